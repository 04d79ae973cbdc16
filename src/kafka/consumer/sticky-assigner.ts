/**
 * The partition assigner of a flow's source group: sticky (core/sticky-assignment.ts). Each member
 * states in its metadata's user data what it held in the group's last generation and in which
 * generation; the leader keeps every member on what it held as far as balance allows. A partition
 * that stays with its member is read on from where that member was (kafkajs-source.ts), so a
 * process joining or leaving moves only the partitions that must move.
 *
 * kafkajs's group protocol stays eager (every partition is given up before each rejoin); what the
 * assignment adds is that the same member gets most of them back in the next generation.
 *
 * Offered beside the assigner of earlier versions (kafkajs's round-robin, or the slot assigner of
 * exactly-once flows), as Kafka's consumers offer several protocols: the coordinator picks one
 * every member knows, so while a process of an earlier version is in the group, the group keeps
 * the old assignment, and goes sticky once every member offers it. With `slots` (exactly-once)
 * whole slots move, and a member stating another slot count gets nothing, as with slot-assigner.ts.
 *
 * User data (big-endian): int16 version (0), int32 generation (-1: held nothing), int32 slot count
 * (-1: not exactly-once), int32 topic count, then per topic an int16-length UTF-8 name, an int32
 * partition count and the int32 partitions.
 */
import { AssignerProtocol, type PartitionAssigner } from '../kafkajs';
import type { SlotCount } from '../../core/ports/record-source';
import type { TopicPartition } from '../../core/record';
import type { Logger } from '../../core/ports/logger';
import { assignSticky, type StickyMember } from '../../core/sticky-assignment';

export const STICKY_ASSIGNER_NAME = 'MirrorflowSticky';
export const STICKY_SLOT_ASSIGNER_NAME = 'MirrorflowStickySlots';

/** What a member held in the group's last generation it was assigned in. */
export interface HeldPartitions {
  readonly generation: number;
  readonly partitions: readonly TopicPartition[];
}

/** What a member's metadata states: its claims and, exactly-once, its slot count (undefined: none, or undecodable). */
export interface StickyClaims {
  readonly generation: number;
  readonly slots: number | undefined;
  readonly owned: readonly TopicPartition[];
}

export function encodeClaims(held: HeldPartitions | undefined, slots: number | undefined): Buffer {
  const byTopic = new Map<string, number[]>();
  for (const tp of held?.partitions ?? []) {
    let list = byTopic.get(tp.topic);
    if (list === undefined) byTopic.set(tp.topic, (list = []));
    list.push(tp.partition);
  }
  const names = [...byTopic.keys()].map((topic) => Buffer.from(topic, 'utf8'));
  const size = 2 + 4 + 4 + 4 + names.reduce((sum, name, i) => sum + 2 + name.length + 4 + 4 * [...byTopic.values()][i]!.length, 0);
  const out = Buffer.alloc(size);
  let at = out.writeInt16BE(0, 0);
  at = out.writeInt32BE(held?.generation ?? -1, at);
  at = out.writeInt32BE(slots ?? -1, at);
  at = out.writeInt32BE(names.length, at);
  [...byTopic.values()].forEach((partitions, i) => {
    const name = names[i]!;
    at = out.writeInt16BE(name.length, at);
    at += name.copy(out, at);
    at = out.writeInt32BE(partitions.length, at);
    for (const p of partitions) at = out.writeInt32BE(p, at);
  });
  return out;
}

/** The claims in a member's user data; undefined when it cannot be read (claims nothing). */
export function decodeClaims(userData: Buffer | undefined): StickyClaims | undefined {
  if (userData === undefined || userData.length < 14) return undefined;
  try {
    if (userData.readInt16BE(0) !== 0) return undefined;
    const generation = userData.readInt32BE(2);
    const slots = userData.readInt32BE(6);
    const topics = userData.readInt32BE(10);
    let at = 14;
    const owned: TopicPartition[] = [];
    for (let t = 0; t < topics; t++) {
      const length = userData.readInt16BE(at);
      const topic = userData.toString('utf8', at + 2, at + 2 + length);
      at += 2 + length;
      const count = userData.readInt32BE(at);
      at += 4;
      for (let i = 0; i < count; i++, at += 4) owned.push({ topic, partition: userData.readInt32BE(at) });
    }
    return { generation, slots: slots < 0 ? undefined : slots, owned };
  } catch {
    return undefined; // read past the end: a member's data we do not understand claims nothing
  }
}

/**
 * `held` says what this member held last (asked at each join); `slots` makes it the exactly-once
 * variant, which hands out whole slots.
 */
export function stickyAssigner(options: { held: () => HeldPartitions | undefined; slots?: SlotCount; logger?: Logger }): PartitionAssigner {
  const { slots, logger } = options;
  const name = slots === undefined ? STICKY_ASSIGNER_NAME : STICKY_SLOT_ASSIGNER_NAME;
  return ({ cluster }) => ({
    name,
    version: 0,
    assign: async ({ members, topics }) => {
      const stated = members.map((m) => ({ memberId: m.memberId, claims: decodeClaims(AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.userData) }));
      const agreeing = slots === undefined ? stated : stated.filter((m) => m.claims?.slots === slots.count);
      const others = stated.filter((m) => !agreeing.includes(m));
      if (others.length > 0) {
        logger?.warn('Group members with another slot count (tasks) get no partitions until every process has the same.', {
          slots: slots?.count,
          members: others.map((m) => ({ memberId: m.memberId, slots: m.claims?.slots })),
        });
      }
      const partitions = topics.flatMap((topic) => cluster.findTopicPartitionMetadata(topic).map((m) => ({ topic, partition: m.partitionId })));
      const sticky: StickyMember[] = agreeing.map((m) => ({ id: m.memberId, owned: m.claims?.owned ?? [], generation: m.claims?.generation ?? -1 }));
      const assignment = assignSticky(sticky, partitions, slots?.of);
      for (const m of others) assignment.set(m.memberId, []);
      return [...assignment].map(([memberId, tps]) => {
        const byTopic: Record<string, number[]> = {};
        for (const tp of tps) (byTopic[tp.topic] ??= []).push(tp.partition);
        return { memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: byTopic, userData: Buffer.alloc(0) }) };
      });
    },
    protocol: ({ topics }) => ({
      name,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: encodeClaims(options.held(), slots?.count) }),
    }),
  });
}
