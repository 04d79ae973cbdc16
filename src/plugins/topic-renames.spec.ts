import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { topicAfterTransforms } from './topic-renames';

const flow = { source: 'primary', target: 'backup' };
const step = (type: string, options: Record<string, unknown> = {}) => ({ type, options, path: 'flows[0].transforms[0]' });

describe('topicAfterTransforms', () => {
  it('applies the rename_topic steps in order, across header and drop steps', () => {
    const after = topicAfterTransforms(
      [
        step('drop', { when: { has_header: 'internal' } }),
        step('rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr-$1' }),
        step('insert_header', { header: 'h', value: 'v' }),
        step('rename_topic', { regex: 'dr-(orders)', replacement: '$1-copy' }),
      ],
      flow,
    );
    assert.equal(after('primary.orders'), 'orders-copy');
    assert.equal(after('primary.users'), 'dr-users');
    assert.equal(after('other'), 'other');
  });

  it('stops at a step whose topic depends on the record or is unknown', () => {
    const after = topicAfterTransforms(
      [
        step('rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr-$1' }),
        step('route_by_timestamp'),
        step('rename_topic', { regex: '(.*)', replacement: 'never-$1' }),
      ],
      flow,
    );
    assert.equal(after('primary.orders'), 'dr-orders');
    assert.equal(
      topicAfterTransforms([step('mask_json_field', { fields: ['a'] }), step('rename_topic', { regex: '(.*)', replacement: 'x$1' })], flow)('t'),
      't',
    );
  });

  it('follows a rename on a topic_matches condition where it holds (negated: where it does not), and stops at one on the record', () => {
    const after = topicAfterTransforms(
      [
        step('rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr.$1', when: { topic_matches: 'primary\\.orders.*' } }),
        step('rename_topic', { regex: '(.*)', replacement: '$1-kept', when: { topic_matches: 'dr\\..*' }, negate: true }),
      ],
      flow,
    );
    assert.equal(after('primary.orders'), 'dr.orders');
    assert.equal(after('primary.users'), 'primary.users-kept');
    const onHeader = topicAfterTransforms(
      [
        step('rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr.$1' }),
        step('rename_topic', { regex: '(.*)', replacement: '$1-x', when: { has_header: 'h' } }),
      ],
      flow,
    );
    assert.equal(onHeader('primary.orders'), 'dr.orders');
  });

  it('keeps the name reached when a rename would give an illegal topic name', () => {
    assert.equal(topicAfterTransforms([step('rename_topic', { regex: '(.*)', replacement: '$1/x' })], flow)('primary.orders'), 'primary.orders');
  });
});
