import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withoutEmptyPartitions } from './empty-partitions';

/** A partition of kafkajs's parsed Fetch v11 answer (its keys as tripwire.spec.ts checks them). */
function partition(partition: number, offsets: readonly number[], extra: { errorCode?: number; preferredReadReplica?: number } = {}) {
  return {
    partition,
    errorCode: extra.errorCode ?? 0,
    highWatermark: '10',
    lastStableOffset: '10',
    lastStartOffset: '0',
    abortedTransactions: [],
    preferredReadReplica: extra.preferredReadReplica ?? -1,
    messages: offsets.map((offset) => ({ offset: String(offset) })),
  };
}

const kept = (response: { responses: readonly { topicName: string; partitions: readonly { partition: number }[] }[] }): string[] =>
  response.responses.flatMap(({ topicName, partitions }) => partitions.map((p) => `${topicName}-${p.partition}`));

describe('withoutEmptyPartitions', () => {
  it('leaves out the partitions that brought nothing, and the topics left with none', () => {
    const response = {
      throttleTime: 0,
      errorCode: 0,
      responses: [
        { topicName: 'a', partitions: [partition(0, []), partition(1, [7, 8]), partition(2, [])] },
        { topicName: 'b', partitions: [partition(0, []), partition(1, [])] },
        { topicName: 'c', partitions: [partition(0, [3])] },
      ],
    };
    const answer = withoutEmptyPartitions(response);
    assert.deepEqual(kept(answer), ['a-1', 'c-0']);
    assert.equal(answer.throttleTime, 0);
    // A topic that kept every partition is the answer's own; the answer itself is not changed.
    assert.equal(answer.responses[1], response.responses[2]);
    assert.deepEqual(kept(response), ['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'c-0']);
  });

  it('keeps an empty partition that names a preferred read replica or carries an error code', () => {
    const response = {
      responses: [{ topicName: 'a', partitions: [partition(0, [], { preferredReadReplica: 2 }), partition(1, [], { errorCode: 6 }), partition(2, [])] }],
    };
    assert.deepEqual(kept(withoutEmptyPartitions(response)), ['a-0', 'a-1']);
  });

  it('gives back the same answer when every partition brought something, and an empty one when none did', () => {
    const full = { responses: [{ topicName: 'a', partitions: [partition(0, [1]), partition(1, [2])] }] };
    assert.equal(withoutEmptyPartitions(full), full);
    const idle = { responses: [{ topicName: 'a', partitions: [partition(0, []), partition(1, [])] }] };
    assert.deepEqual(withoutEmptyPartitions(idle).responses, []);
  });
});
