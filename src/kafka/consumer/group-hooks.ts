/**
 * What kafkajs 2.2.4 does not offer a consumer group member, added around its ConsumerGroup:
 *
 * - **A hook before every (re)join.** kafkajs's group protocol is eager: a member that rejoins
 *   gives up every partition it holds, and the coordinator completes the new generation only
 *   once every member has rejoined (or its rebalance timeout passed). kafkajs reports a
 *   rebalance (`REBALANCING`, `GROUP_JOIN`) only through events whose listeners it does not
 *   wait for, and its fetch loop stops before it rejoins, so work handed on by `eachBatch` may
 *   still be in flight. Every rejoin path goes through kafkajs's `ConsumerGroup.joinAndSync`,
 *   where ../wire/group-join.ts awaits our hook: no other member gets this member's partitions
 *   before the hook is done.
 * - **A heartbeat apart from the fetch loop.** kafkajs heartbeats only between the batches of
 *   its fetch loop (and when a fetch comes back empty), so a round that takes longer than the
 *   session timeout (the first fetch of thousands of partitions after a join on a loaded broker,
 *   a batch held in eachBatch) loses the member, whose rejoin copies partitions again. `keepAlive`
 *   sends kafkajs's own heartbeat on a timer, as the Java consumer's heartbeat thread does.
 * - **A membership check.** A Heartbeat request carrying the member's generation: the
 *   coordinator answers ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID to a member that a newer
 *   generation left out, which is how a stale owner finds out before it writes.
 *
 * kafkajs has no static membership (`group.instance.id`): its JoinGroup never sends one.
 */
import { PartitionAssigners, type PartitionAssigner } from '../kafkajs';
import { beforeGroupJoin, groupHeartbeat, memberHeartbeat, type ConsumerGroupState } from '../wire/group-join';

export interface GroupHooks {
  /** Awaited before the member joins or rejoins the group; everything it held is given up then. */
  beforeJoin(): Promise<void>;
}

/** A member's view of its group, for fencing. */
export interface GroupMember {
  /** The generation of the last join, once joined. */
  generation(): number | undefined;
  /**
   * Asks the coordinator whether this member still belongs to `generation` (its current one when
   * not given). True while a rebalance waits for this member to rejoin (it still owns what it
   * had); false once a newer generation formed without it, and false as soon as this member
   * itself rejoined past `generation`: what it held there was given up before the join, however
   * much of it is still being written. Rejects when the coordinator cannot be asked.
   */
  stillMember(generation?: number): Promise<boolean>;
  /**
   * Without asking the coordinator: false once this member knows it left `generation` (kafkajs
   * forgot its member id, told by the coordinator that it is no member any more, or it joined
   * again since). A fetch that arrives then is not this member's to copy.
   */
  holds(generation: number | undefined): boolean;
  /**
   * kafkajs's heartbeat of the member, sent only once `intervalMs` passed since its last one
   * (the fetch loop's included); nothing before the first join or while kafkajs knows no member
   * id. Never rejects: an answer that ends the membership (a rebalance, an expired session) is
   * met again by the fetch loop's next heartbeat, which rejoins as kafkajs always does.
   */
  keepAlive(intervalMs: number): Promise<void>;
}

const FENCED = new Set(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

/**
 * Hooks for a consumer's group membership: pass `partitionAssigners` in the consumer's config.
 * `assigners` are the protocols the member offers, preferred first (kafkajs's round-robin
 * assignment by default); the coordinator picks the first that every member offers.
 */
export function groupHooks(
  hooks: GroupHooks,
  assigners: readonly PartitionAssigner[] = [PartitionAssigners.roundRobin],
): { readonly partitionAssigners: PartitionAssigner[]; readonly member: GroupMember } {
  /** The member's kafkajs group, once it joined (../wire/group-join.ts). */
  const entry: { group?: ConsumerGroupState } = {};
  const hook = async (group: ConsumerGroupState): Promise<void> => {
    entry.group = group;
    await hooks.beforeJoin();
  };
  const partitionAssigners: PartitionAssigner[] = assigners.map((assigner) => (config) => {
    const made = assigner(config);
    beforeGroupJoin(made, hook);
    return made;
  });
  const member: GroupMember = {
    generation: () => entry.group?.generationId ?? undefined,
    holds: (generation) => {
      const group = entry.group;
      return generation === undefined || group === undefined || (group.generationId === generation && !!group.memberId);
    },
    keepAlive: async (intervalMs) => {
      const group = entry.group;
      const heartbeat = group === undefined ? undefined : memberHeartbeat(group, intervalMs);
      await heartbeat?.catch(() => undefined); // the fetch loop meets the same answer and acts on it
    },
    stillMember: async (generation) => {
      const group = entry.group;
      // Past the generation asked about (rejoined, or between joins after giving it up), or told
      // by the coordinator that it is no member any more (kafkajs then forgets its member id and
      // joins again, as a process resumed after its session expired does): a write still
      // finishing for that generation is a stale owner's, even though the coordinator would take
      // this member's heartbeat for its new generation.
      if (generation !== undefined && (group?.generationId !== generation || !group.memberId)) return false;
      // Not joined yet (or between joins): nothing to be fenced from; only the coordinator's answer fences.
      const heartbeat = group === undefined ? undefined : groupHeartbeat(group);
      if (heartbeat === undefined) return true;
      try {
        await heartbeat;
        return true;
      } catch (error) {
        const type = (error as { type?: string }).type;
        if (type === 'REBALANCE_IN_PROGRESS') return true;
        if (type !== undefined && FENCED.has(type)) return false;
        throw error;
      }
    },
  };
  return { partitionAssigners, member };
}
