import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AssignerProtocol } from '../kafkajs';
import { SLOT_ASSIGNER_NAME, slotAssigner, statedSlotCount } from './slot-assigner';
import type { TopicPartition } from '../../core/record';
import { silentLogger } from '../../core/ports/logger';

const cluster = { findTopicPartitionMetadata: () => Array.from({ length: 6 }, (_, partitionId) => ({ partitionId })) };
const slots = (count: number) => ({ count, of: (tp: TopicPartition) => tp.partition % count });
const metadataOf = (count: number) => {
  const made = slotAssigner(slots(count))({ cluster } as never);
  return made.protocol({ topics: ['t'] }).metadata;
};

test("each member's metadata states its slot count, under the slot assigner's own protocol name", () => {
  const made = slotAssigner(slots(4))({ cluster } as never);
  const protocol = made.protocol({ topics: ['t'] });
  assert.equal(protocol.name, SLOT_ASSIGNER_NAME);
  assert.equal(statedSlotCount(protocol.metadata), 4);
});

test('whole slots to the members that count as the leader does; a member with another count gets nothing, and the leader says so', async () => {
  const warnings: string[] = [];
  const made = slotAssigner(slots(3), { ...silentLogger, warn: (message: string) => void warnings.push(message) })({ cluster } as never);
  const result = await made.assign({
    members: [
      { memberId: 'a', memberMetadata: metadataOf(3) },
      { memberId: 'b', memberMetadata: metadataOf(3) },
      { memberId: 'c', memberMetadata: metadataOf(5) },
    ],
    topics: ['t'],
  } as never);
  const decoded = Object.fromEntries(result.map((r) => [r.memberId, AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment['t'] ?? []]));
  assert.deepEqual(decoded['c'], []);
  assert.equal([...decoded['a']!, ...decoded['b']!].length, 6);
  for (const partitions of [decoded['a']!, decoded['b']!]) {
    // A slot's partitions (p and p + 3) stay together.
    for (const p of partitions) assert.ok(partitions.includes((p + 3) % 6), `slot of partition ${p} split`);
  }
  assert.ok(warnings.some((w) => /another slot count/.test(w)));
});
