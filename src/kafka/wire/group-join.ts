/**
 * A hook before every join and rejoin of a kafkajs consumer group member, and the member's state
 * as kafkajs's ConsumerGroup (src/consumer/consumerGroup.js) keeps it. Every rejoin path of
 * kafkajs's consumer (the runner's rebalance and unknown-member handling, stale metadata) goes
 * through `ConsumerGroup.joinAndSync`, which install.ts wraps (`installGroupJoinHook`) before any
 * consumer exists; the wrapper awaits the hook of the member, if it has one, then joins.
 *
 * A member is found from its ConsumerGroup through a partition assigner it was given: kafkajs makes
 * one per ConsumerGroup from each factory in the consumer's `partitionAssigners`, and keeps them in
 * `assigners` (../consumer/group-hooks.ts registers the one its factory made).
 */
import { kafkajsConsumerGroup } from './kafkajs-internals';

/** kafkajs's ConsumerGroup, as far as a hook reads it (live: its fields change with each join). */
export interface ConsumerGroupState {
  /** Null before the first join and after the coordinator said this member is no member any more. */
  readonly memberId: string | null;
  readonly generationId: number | null;
}

type JoinHook = (group: ConsumerGroupState) => Promise<void>;

interface KafkajsConsumerGroup extends ConsumerGroupState {
  readonly groupId: string;
  readonly assigners: readonly object[];
  /** The group's coordinator, once found (a broker of kafkajs's). */
  readonly coordinator?: { heartbeat(request: { groupId: string; memberId: string; groupGenerationId: number }): Promise<unknown> } | null;
  joinAndSync(): Promise<void>;
  /** kafkajs's heartbeat of the member, shared by its callers: sent only once `interval` ms passed since the last one answered. */
  heartbeat(options: { interval: number }): Promise<void>;
}

const hooks = new WeakMap<object, JoinHook>();

/** Awaited before every join of the ConsumerGroup that has `assigner` among its partition assigners. */
export function beforeGroupJoin(assigner: object, hook: JoinHook): void {
  hooks.set(assigner, hook);
}

function hookOf(group: KafkajsConsumerGroup): JoinHook | undefined {
  for (const assigner of group.assigners) {
    const hook = hooks.get(assigner);
    if (hook) return hook;
  }
  return undefined;
}

/**
 * A Heartbeat at the group's coordinator carrying the member's id and generation (rejects with
 * kafkajs's protocol error: ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, …);
 * undefined when the member is not joined (no coordinator, member id or generation).
 */
export function groupHeartbeat(state: ConsumerGroupState): Promise<unknown> | undefined {
  const group = state as KafkajsConsumerGroup;
  if (!group.coordinator || !group.memberId || group.generationId === null) return undefined;
  return group.coordinator.heartbeat({ groupId: group.groupId, memberId: group.memberId, groupGenerationId: group.generationId });
}

/**
 * kafkajs's own heartbeat of a joined member (`ConsumerGroup.heartbeat`), the one its fetch loop
 * sends: only once `intervalMs` passed since the last one answered, and a call made while one is
 * under way shares it, so the fetch loop meets the same answer (a rebalance, say) and acts on it.
 * Undefined when the member is not joined.
 */
export function memberHeartbeat(state: ConsumerGroupState, intervalMs: number): Promise<void> | undefined {
  const group = state as KafkajsConsumerGroup;
  if (!group.coordinator || !group.memberId || group.generationId === null) return undefined;
  return group.heartbeat({ interval: intervalMs });
}

/** Wraps kafkajs's `ConsumerGroup.prototype.joinAndSync`; once (install.ts). */
export function installGroupJoinHook(): void {
  const prototype = kafkajsConsumerGroup().prototype as { joinAndSync: () => Promise<void> };
  const original = prototype.joinAndSync;
  if ((original as { mirrorflowHooked?: boolean }).mirrorflowHooked === true) return;
  const joinAndSync = async function joinAndSync(this: KafkajsConsumerGroup): Promise<void> {
    await hookOf(this)?.(this);
    return original.call(this);
  };
  prototype.joinAndSync = Object.assign(joinAndSync, { mirrorflowHooked: true });
}

/** Whether kafkajs's `joinAndSync` is the wrapper (tripwire.spec.ts). */
export function groupJoinHooked(): boolean {
  return (kafkajsConsumerGroup().prototype.joinAndSync as { mirrorflowHooked?: boolean }).mirrorflowHooked === true;
}
