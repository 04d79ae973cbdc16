/**
 * The partition assigner of an exactly-once flow's source group: whole slots to members
 * (core/slot-assignment.ts), never a slot split between two. Its protocol name differs from
 * round-robin's, so a process of the same flow without exactly-once cannot join the group.
 */
import { AssignerProtocol, type PartitionAssigner } from './kafkajs';
import type { TopicPartition } from '../core/record';
import { assignSlots } from '../core/slot-assignment';

export const SLOT_ASSIGNER_NAME = 'MirrorflowSlotAssigner';

export function slotAssigner(slotOf: (tp: TopicPartition) => number): PartitionAssigner {
  return ({ cluster }) => ({
    name: SLOT_ASSIGNER_NAME,
    version: 0,
    assign: async ({ members, topics }) => {
      const partitions = topics.flatMap((topic) => cluster.findTopicPartitionMetadata(topic).map((m) => ({ topic, partition: m.partitionId })));
      const assignment = assignSlots(
        members.map((m) => m.memberId),
        partitions,
        slotOf,
      );
      return [...assignment].map(([memberId, tps]) => {
        const byTopic: Record<string, number[]> = {};
        for (const tp of tps) (byTopic[tp.topic] ??= []).push(tp.partition);
        return { memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: byTopic, userData: Buffer.alloc(0) }) };
      });
    },
    protocol: ({ topics }) => ({ name: SLOT_ASSIGNER_NAME, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) }),
  });
}
