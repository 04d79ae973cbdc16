import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runFieldChain } from '../connect/field-chain-support';
import { optionIssues } from '../test-support';
import { insertField } from './insert-field';

describe('insert_field (InsertField$Value, schemaless)', () => {
  it('adds topic, partition, timestamp and a static field, in HashMap order (Connect vectors)', () => {
    assert.equal(
      runFieldChain(
        [['insert_field', { static_field: 'origin', static_value: 'dc1', topic_field: 'topic', partition_field: 'part', timestamp_field: 'ts' }]],
        '{"id":1}',
      ),
      '{"topic":"src.orders","id":1,"part":1,"ts":1700000000123,"origin":"dc1"}',
    );
    assert.equal(
      runFieldChain(
        [['insert_field', { static_field: 'origin', static_value: 'dc1' }]],
        '{"z":1,"y":2,"x":3,"w":4,"v":5,"u":6,"t":7,"s":8,"r":9,"q":10,"p":11,"o":12}',
      ),
      '{"origin":"dc1","o":12,"p":11,"q":10,"r":9,"s":8,"t":7,"u":6,"v":5,"w":4,"x":3,"y":2,"z":1}',
    );
  });

  it('runs in a chain with replace_field and cast, read once and written once (Connect vector)', () => {
    const steps = [
      ['insert_field', { static_field: 'origin', static_value: 'dc1', topic_field: 'topic', partition_field: 'part', timestamp_field: 'ts' }],
      ['replace_field', { exclude: ['name'], renames: ['id:order_id'] }],
      ['cast', { spec: ['amount:float64'] }],
    ] as const;
    assert.equal(
      runFieldChain(steps, '{"id":1,"amount":"12.5","name":"x"}'),
      '{"amount":12.5,"part":1,"origin":"dc1","topic":"src.orders","order_id":1,"ts":1700000000123}',
    );
  });

  it("ignores Connect's ! and ? marks on field names", () => {
    assert.equal(runFieldChain([['insert_field', { topic_field: 't!' }]], '{"o":1}'), '{"t":"src.orders","o":1}');
    assert.equal(runFieldChain([['insert_field', { topic_field: 't?', partition_field: 'o' }]], '{"o":1}'), '{"t":"src.orders","o":1}');
  });

  it('inserts the source offset (Connect allows offset.field on sink records only)', () => {
    assert.equal(runFieldChain([['insert_field', { offset_field: 'off' }]], '{"id":1}'), '{"off":42,"id":1}');
  });

  it('passes null and empty values unchanged, as tombstones', () => {
    assert.equal(runFieldChain([['insert_field', { static_field: 'o', static_value: 'x' }]], null), null);
    assert.equal(runFieldChain([['insert_field', { static_field: 'o', static_value: 'x' }]], 'null'), null);
    assert.equal(runFieldChain([['insert_field', { static_field: 'o', static_value: 'x' }]], ''), null);
    assert.equal(runFieldChain([['insert_field', { static_field: 'o', static_value: 'x' }]], ' \t'), null);
  });

  it("fails records that are not objects with Connect's message", () => {
    assert.match(
      runFieldChain([['insert_field', { static_field: 'o', static_value: 'x' }]], '"str"')!,
      /Only Map objects supported in absence of schema for \[field insertion\], found: java\.lang\.String/,
    );
    assert.match(runFieldChain([['insert_field', { static_field: 'o', static_value: 'x' }]], '[1]')!, /found: java\.util\.ArrayList/);
  });

  it('needs static_value with static_field', () => {
    assert.deepEqual(optionIssues(insertField, { static_field: 'x' }), ['static_value: static_field needs static_value']);
  });
});
