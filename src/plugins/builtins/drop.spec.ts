import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { instantiate, mirrorRecord, optionIssues } from '../test-support';
import { drop } from './drop';

// Which records it is applied to is the chain's `when` (step-condition.spec.ts).
describe('drop', () => {
  it('drops every record it is applied to, as Filter without a predicate', () => {
    const t = instantiate(drop, {});
    assert.equal(t.apply(mirrorRecord()), undefined);
    assert.equal(t.apply(mirrorRecord({ value: null })), undefined);
  });

  it('has no options of its own', () => {
    assert.deepEqual(optionIssues(drop, { all: true }), [': Unrecognized key: "all"']);
  });
});
