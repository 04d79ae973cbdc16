import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { header, instantiate, mirrorRecord, optionIssues } from '../test-support';
import { drop } from './drop';

describe('drop', () => {
  it('drops the records that meet every condition and keeps the others as the same object', () => {
    const t = instantiate(drop, { when: { topic_matches: 'primary\\.audit-.*', has_header: 'internal' } });
    const both = mirrorRecord({ topic: 'primary.audit-log', headers: [header('internal', null)] });
    const topicOnly = mirrorRecord({ topic: 'primary.audit-log' });
    const headerOnly = mirrorRecord({ topic: 'primary.orders', headers: [header('internal', '1')] });
    assert.equal(t.apply(both), undefined);
    assert.equal(t.apply(topicOnly), topicOnly);
    assert.equal(t.apply(headerOnly), headerOnly);
  });

  it('with negate keeps only the records that meet the conditions', () => {
    const t = instantiate(drop, { when: { has_header: 'keep' }, negate: true });
    const keep = mirrorRecord({ headers: [header('keep', '')] });
    assert.equal(t.apply(keep), keep);
    assert.equal(t.apply(mirrorRecord()), undefined);
  });

  it('drops tombstones (null value) but not empty values', () => {
    const t = instantiate(drop, { when: { is_tombstone: true } });
    assert.equal(t.apply(mirrorRecord({ value: null })), undefined);
    const empty = mirrorRecord({ key: null, value: Buffer.alloc(0) });
    assert.equal(t.apply(empty), empty);
  });

  it('with is_tombstone: false drops everything but tombstones', () => {
    const t = instantiate(drop, { when: { is_tombstone: false } });
    const tombstone = mirrorRecord({ value: null });
    assert.equal(t.apply(tombstone), tombstone);
    assert.equal(t.apply(mirrorRecord({ value: Buffer.alloc(0) })), undefined);
  });

  it('without `when` drops every record, as Filter without a predicate; negate then has nothing to negate', () => {
    const t = instantiate(drop, {});
    assert.equal(t.apply(mirrorRecord()), undefined);
    assert.equal(t.apply(mirrorRecord({ value: null })), undefined);
    assert.deepEqual(optionIssues(drop, { negate: true }), ['negate: negate needs a condition under `when` to negate']);
  });

  it('needs at least one condition, and no unknown ones', () => {
    assert.deepEqual(optionIssues(drop, { when: {} }), ['when: Give at least one condition: topic_matches, has_header or is_tombstone']);
    assert.deepEqual(optionIssues(drop, { when: { topic: 'x' } }), [
      'when: Unrecognized key: "topic"',
      'when: Give at least one condition: topic_matches, has_header or is_tombstone',
    ]);
    assert.deepEqual(optionIssues(drop, { when: { is_tombstone: true } }), []);
  });
});
