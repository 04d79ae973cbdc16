/**
 * The partition assigner of an exactly-once flow's source group: whole slots to members
 * (core/slot-assignment.ts), never a slot split between two. Its protocol name differs from
 * round-robin's, so a process of the same flow without exactly-once cannot join the group.
 *
 * Each member states its slot count in its metadata (user data, int32). The leader assigns only
 * to members that count as it does: two members with different counts would give one partition
 * two transactional ids, so a member configured otherwise (a rolling change of `tasks`) gets
 * nothing until it agrees, and the leader says so in a warning.
 */
import { AssignerProtocol, type PartitionAssigner } from '../kafkajs';
import type { TopicPartition } from '../../core/record';
import type { Logger } from '../../core/ports/logger';
import { assignSlots } from '../../core/slot-assignment';

export const SLOT_ASSIGNER_NAME = 'MirrorflowSlotAssigner';

/** The slot count a member's metadata states, or undefined when it states none. */
export function statedSlotCount(metadata: Buffer): number | undefined {
  const { userData } = AssignerProtocol.MemberMetadata.decode(metadata) ?? {};
  return userData !== undefined && userData.length >= 4 ? userData.readInt32BE(0) : undefined;
}

export function slotAssigner(slots: { readonly count: number; readonly of: (tp: TopicPartition) => number }, logger?: Logger): PartitionAssigner {
  const userData = Buffer.alloc(4);
  userData.writeInt32BE(slots.count);
  return ({ cluster }) => ({
    name: SLOT_ASSIGNER_NAME,
    version: 0,
    assign: async ({ members, topics }) => {
      const agreeing = members.filter((m) => statedSlotCount(m.memberMetadata) === slots.count);
      const others = members.filter((m) => !agreeing.includes(m));
      if (others.length > 0) {
        logger?.warn('Group members with another slot count (tasks) get no partitions until every process has the same.', {
          slots: slots.count,
          members: others.map((m) => ({ memberId: m.memberId, slots: statedSlotCount(m.memberMetadata) })),
        });
      }
      const partitions = topics.flatMap((topic) => cluster.findTopicPartitionMetadata(topic).map((m) => ({ topic, partition: m.partitionId })));
      const assignment = assignSlots(
        agreeing.map((m) => m.memberId),
        partitions,
        slots.of,
      );
      for (const m of others) assignment.set(m.memberId, []);
      return [...assignment].map(([memberId, tps]) => {
        const byTopic: Record<string, number[]> = {};
        for (const tp of tps) (byTopic[tp.topic] ??= []).push(tp.partition);
        return { memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: byTopic, userData: Buffer.alloc(0) }) };
      });
    },
    protocol: ({ topics }) => ({ name: SLOT_ASSIGNER_NAME, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData }) }),
  });
}
