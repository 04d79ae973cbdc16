import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { didYouMean } from './did-you-mean';

const names = ['drop', 'drop_headers', 'insert_header', 'rename_topic'];

describe('didYouMean', () => {
  it('suggests the closest name for typos, swapped letters and other spellings', () => {
    assert.equal(didYouMean('rename_topc', names), 'rename_topic');
    assert.equal(didYouMean('drpo', names), 'drop');
    assert.equal(didYouMean('InsertHeader', names), 'insert_header');
    assert.equal(didYouMean('drop-headers', names), 'drop_headers');
  });

  it('suggests nothing for unrelated names', () => {
    assert.equal(didYouMean('timestamp_router', names), undefined);
    assert.equal(didYouMean('x', names), undefined);
    assert.equal(didYouMean('drop', []), undefined);
  });
});
