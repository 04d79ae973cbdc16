import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { header, mirrorRecord } from '../test-support';
import { compileRecordPredicate, recordPredicateSchema } from './record-predicate';

const predicate = (when: unknown) => compileRecordPredicate(recordPredicateSchema.parse(when));

describe('record predicate', () => {
  it('topic_matches tests the whole target topic, not the source topic', () => {
    const p = predicate({ topic_matches: 'primary\\..*' });
    assert.equal(p(mirrorRecord({ topic: 'primary.orders' })), true);
    assert.equal(p(mirrorRecord({ topic: 'x.primary.orders' })), false);
    assert.equal(
      predicate({ topic_matches: 'orders' })(mirrorRecord({ topic: 'primary.orders', source: { topic: 'orders', partition: 0, offset: 0 } })),
      false,
    );
  });

  it('has_header holds for any header with the key, whatever its value', () => {
    const p = predicate({ has_header: 'h' });
    assert.equal(p(mirrorRecord({ headers: [header('a', '1'), header('h', null)] })), true);
    assert.equal(p(mirrorRecord({ headers: [header('h', '')] })), true);
    assert.equal(p(mirrorRecord({ headers: [header('H', '1')] })), false);
    assert.equal(p(mirrorRecord({ headers: [] })), false);
  });

  it('is_tombstone distinguishes null from empty values, and ignores the key', () => {
    const p = predicate({ is_tombstone: true });
    assert.equal(p(mirrorRecord({ key: null, value: null })), true);
    assert.equal(p(mirrorRecord({ key: null, value: Buffer.alloc(0) })), false);
  });

  it('needs every given condition to hold', () => {
    const p = predicate({ topic_matches: '.*orders', has_header: 'h', is_tombstone: true });
    const all = mirrorRecord({ value: null, headers: [header('h', '1')] });
    assert.equal(p(all), true);
    assert.equal(p({ ...all, value: Buffer.from('x') }), false);
    assert.equal(p({ ...all, headers: [] }), false);
    assert.equal(p({ ...all, topic: 'users' }), false);
  });
});
