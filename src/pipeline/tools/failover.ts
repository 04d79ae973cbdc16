/**
 * Failover of one consumer group from a flow's source to its target, as one command instead of
 * MM2's hand-run procedure (stop the consumers, RemoteClusterUtils.translateOffsets, commit the
 * result on the target with kafka-consumer-groups, start the consumers there).
 *
 * `planFailover` reads and decides, writing nothing: the group must have no active members on
 * the target (offsets of an active group cannot be changed, and its consumers would not see
 * them); the translated offsets come from the checkpoints the flow wrote to the target; an
 * offset the group already has on the target is never moved backwards unless forced, so a
 * repeated failover, or one after consumers already ran on the target, cannot replay their work.
 * `executeFailover` commits what the plan says and reads the offsets back. A group without
 * checkpoints that is a share group fails over by its start offsets (share-failover.ts).
 */
import { firstValueFrom } from '#rxjs';
import { describeError } from '../../core/errors';
import type { ClusterAdmin, GroupOffset, GroupState } from '../../core/ports/cluster-admin';
import { renameTopicPartition } from '../../flow/checkpoints/checkpoint-translation';
import { readPreservationMarkers } from '../../flow/replication/preservation-markers';
import { topicPartitionKey } from '../../core/record';
import { flowGroupId, preservedOffsetsGroup } from '../flow-names';
import type { PipelineTools } from './pipeline-tools';
import type { TranslatedOffset } from './mirror-client';
import { FailoverRefusedError } from './tool-errors';
import { check, change, describeOffsets, type ChangeStep } from './change-steps';
import { decideAction, isWritten, type FailoverPartition, type FailoverPlan, type FailoverRequest, type FailoverResult } from './failover-plan';
import { executeShareFailover, findShareGroup, planShareFailover } from './share-failover';

export {
  decideAction,
  isWritten,
  type FailoverAction,
  type FailoverPartition,
  type FailoverPlan,
  type FailoverRequest,
  type FailoverResult,
} from './failover-plan';

/** A group with members (or rebalancing towards having them). */
function isActive(state: GroupState): boolean {
  return state === 'stable' || state === 'preparing-rebalance' || state === 'completing-rebalance';
}

/** Why offsets cannot be written for a group in `state` on `cluster`, if they cannot. */
function activeRefusal(group: string, cluster: string, state: GroupState): string | undefined {
  if (isActive(state)) {
    return (
      `Group "${group}" has active members on cluster "${cluster}" (state ${state}): the offsets of an active group cannot be changed. ` +
      `Stop its consumers on "${cluster}" and run failover again.`
    );
  }
  if (state === 'unknown') {
    return `The broker of cluster "${cluster}" reports a state for group "${group}" that mirrorflow does not know, so it cannot tell whether the group is active; nothing is written.`;
  }
  return undefined;
}

export async function planFailover(tools: PipelineTools, request: FailoverRequest): Promise<FailoverPlan> {
  const direction = tools.direction(request);
  const { source, target, policy, flow } = direction;
  const { group } = request;
  await tools.checkReachable(target);
  const targetAdmin = tools.admin(target);
  const checkpointsTopic = policy.checkpointsTopic(source);
  const warnings: string[] = [];

  const targetState = (await firstValueFrom(targetAdmin.describeGroups([group]))).get(group) ?? 'dead';
  const translated = await tools.mirrorClient(target, policy).remoteConsumerOffsets(group, source, { timeoutMs: request.timeoutMs });
  if (translated.length === 0) {
    const share = await findShareGroup(tools, direction, group);
    if (share !== undefined && share !== 'source-unreachable') return planShareFailover(tools, request, direction, share);
    throw new FailoverRefusedError(
      `No checkpoints for group "${group}" in ${checkpointsTopic} on cluster "${target}", so there are no offsets to fail over to. ` +
        `The flow ${source}->${target} checkpoints a group once it has committed offsets on replicated topics ` +
        `(every ${flow.checkpoints.interval_ms} ms; checkpoints.enabled must be true).` +
        (share === 'source-unreachable'
          ? ` If "${group}" is a share group: "${target}" has no share group of that name, and cluster "${source}", where its start offsets are, cannot be reached.`
          : ''),
    );
  }
  const targetOffsets = await firstValueFrom(targetAdmin.fetchGroupOffsets(group));
  const partitionCounts = new Map((await firstValueFrom(targetAdmin.listTopics())).map((t) => [t.name, t.partitions]));

  const sourceSide = await readSource(tools, source, group);
  if (sourceSide.error !== undefined) {
    warnings.push(`Cluster "${source}" could not be read (${sourceSide.error}); the checkpoints alone decide, and the source offsets column is empty.`);
  } else if (sourceSide.state !== undefined && isActive(sourceSide.state)) {
    warnings.push(
      `Group "${group}" still has active members on "${source}" (state ${sourceSide.state}). Its consumers there keep consuming and committing; ` +
        `stop them before starting the consumers on "${target}", or both sides process the same records.`,
    );
  }
  const sourceByTarget = new Map<string, GroupOffset>();
  for (const o of sourceSide.offsets) sourceByTarget.set(key(renameTopicPartition(o, policy, source, target).topic, o.partition), o);

  const preserved =
    flow.offsets === 'preserve' && sourceSide.error === undefined
      ? await preservedEnds(targetAdmin, flowGroupId(tools.config.name, flow))
      : new Map<string, number>();
  const partitions: FailoverPartition[] = [];
  for (const t of translated)
    partitions.push(exactWherePreserved(partitionPlan(t, targetOffsets, sourceByTarget, partitionCounts, request.force), preserved, request.force));
  const checkpointed = new Set(translated.map((t) => key(t.topic, t.partition)));
  for (const [k, o] of sourceByTarget) {
    if (checkpointed.has(k)) continue;
    const topic = renameTopicPartition(o, policy, source, target).topic;
    const targetOffset = targetOffsets.find((c) => c.topic === topic && c.partition === o.partition)?.offset;
    partitions.push(
      exactWherePreserved(
        { topic, partition: o.partition, sourceOffset: o.offset, targetOffset, metadata: o.metadata, action: 'no-checkpoint' },
        preserved,
        request.force,
      ),
    );
  }
  partitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));

  const behind = partitions.filter(
    (p) => p.preserved === undefined && p.sourceOffset !== undefined && p.checkpointOffset !== undefined && p.sourceOffset > p.checkpointOffset,
  );
  if (behind.length > 0) {
    const most = Math.max(...behind.map((p) => p.sourceOffset! - p.checkpointOffset!));
    warnings.push(
      `On ${behind.length} partition(s) the group committed further on "${source}" after the newest checkpoint, so its consumers on "${target}" ` +
        `will re-read up to ${most} record(s) per partition (none are skipped). Running failover again after the next checkpoint narrows this.`,
    );
  }
  const missing = partitions.filter((p) => p.action === 'missing-partition');
  if (missing.length > 0) {
    warnings.push(
      `${missing.length} checkpoint(s) name partitions that "${target}" does not have (topic deleted, or not created there yet); they are skipped.`,
    );
  }
  const unchecked = partitions.filter((p) => p.action === 'no-checkpoint');
  if (unchecked.length > 0) {
    warnings.push(
      `${unchecked.length} partition(s) with offsets on "${source}" have no checkpoint (topic not replicated, or not checkpointed yet); ` +
        `on "${target}" the group starts those where its consumers' auto.offset.reset says.`,
    );
  }

  const refusal = activeRefusal(group, target, targetState);
  const writes = partitions.filter((p) => isWritten(p.action)).map((p) => ({ topic: p.topic, partition: p.partition, offset: p.translatedOffset! }));
  const steps: ChangeStep[] =
    refusal !== undefined
      ? []
      : writes.length === 0
        ? [check(target, `group "${group}" has no active members (it is ${targetState}); its offsets are already at or past the translated ones`)]
        : [
            check(target, `group "${group}" still has no active members (it is ${targetState} now)`),
            change(
              target,
              `commit ${writes.length} offset(s) of group "${group}"${targetState === 'dead' ? ' (the group is created)' : ''}: ${describeOffsets(writes)}`,
            ),
            check(target, `read the offsets of group "${group}" back: each must be the one committed`),
          ];
  return {
    group,
    groupType: 'consumer',
    source,
    target,
    checkpointsTopic,
    force: request.force,
    targetState,
    ...(sourceSide.error === undefined ? { sourceState: sourceSide.state } : {}),
    partitions,
    warnings,
    ...(refusal !== undefined ? { refusal } : {}),
    steps,
  };
}

/** Commits the plan's `commit` and `rewind` offsets on the target and checks they took. */
export async function executeFailover(tools: PipelineTools, plan: FailoverPlan): Promise<FailoverResult> {
  if (plan.groupType === 'share') return executeShareFailover(tools, plan);
  if (plan.refusal !== undefined) throw new FailoverRefusedError(plan.refusal);
  const admin = tools.admin(plan.target);
  // The group may have become active since the plan was made; the broker would refuse anyway,
  // but this says why in our words.
  const state = (await firstValueFrom(admin.describeGroups([plan.group]))).get(plan.group) ?? 'dead';
  const refusal = activeRefusal(plan.group, plan.target, state);
  if (refusal !== undefined) throw new FailoverRefusedError(`${refusal} (It became so while failing over; nothing was written.)`);
  const committed: GroupOffset[] = plan.partitions
    .filter((p) => isWritten(p.action))
    .map((p) => ({ topic: p.topic, partition: p.partition, offset: p.translatedOffset!, metadata: p.metadata }));
  if (committed.length === 0) return { committed };
  try {
    await firstValueFrom(admin.commitGroupOffsets(plan.group, committed));
  } catch (error) {
    throw new FailoverRefusedError(`Committing the offsets of group "${plan.group}" on cluster "${plan.target}" failed: ${describeError(error)}`, {
      cause: error,
    });
  }
  const after = await firstValueFrom(admin.fetchGroupOffsets(plan.group));
  const wrong = committed.filter((c) => after.find((a) => a.topic === c.topic && a.partition === c.partition)?.offset !== c.offset);
  if (wrong.length > 0) {
    throw new FailoverRefusedError(
      `After committing, group "${plan.group}" on cluster "${plan.target}" does not hold the translated offsets for ` +
        `${wrong.map((w) => `${w.topic}-${w.partition}`).join(', ')}; another client may have committed at the same time.`,
    );
  }
  return { committed };
}

function partitionPlan(
  t: TranslatedOffset,
  targetOffsets: readonly GroupOffset[],
  sourceByTarget: ReadonlyMap<string, GroupOffset>,
  partitionCounts: ReadonlyMap<string, number>,
  force: boolean,
): FailoverPartition {
  const current = targetOffsets.find((o) => o.topic === t.topic && o.partition === t.partition)?.offset;
  const exists = t.partition < (partitionCounts.get(t.topic) ?? 0);
  return {
    topic: t.topic,
    partition: t.partition,
    sourceOffset: sourceByTarget.get(key(t.topic, t.partition))?.offset,
    checkpointOffset: t.upstreamOffset,
    checkpointedAt: t.checkpointedAt,
    translatedOffset: t.offset,
    targetOffset: current,
    metadata: t.metadata,
    action: exists ? decideAction(t.offset, current, force) : 'missing-partition',
  };
}

interface SourceSide {
  readonly state?: GroupState;
  readonly offsets: readonly GroupOffset[];
  readonly error?: string;
}

/** The group on the source, if the source answers: in a disaster it usually does not. */
async function readSource(tools: PipelineTools, source: string, group: string): Promise<SourceSide> {
  try {
    await tools.checkReachable(source);
    const admin = tools.admin(source);
    const state = (await firstValueFrom(admin.describeGroups([group]))).get(group) ?? 'dead';
    const offsets = await firstValueFrom(admin.fetchGroupOffsets(group));
    return { state, offsets };
  } catch (error) {
    return { offsets: [], error: describeError(error) };
  }
}

/**
 * Per preserved partition of the flow (target `topic-partition`), the target partition's end:
 * how far it holds the source's offsets. Read from the flow's markers on the target.
 */
async function preservedEnds(admin: ClusterAdmin, flowGroup: string): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  const markers = await readPreservationMarkers(admin, preservedOffsetsGroup(flowGroup));
  const topics = new Set<string>();
  for (const [k, marker] of markers) if (marker.preserved) topics.add(k.slice(0, k.lastIndexOf('-')));
  for (const topic of topics) {
    for (const p of await firstValueFrom(admin.partitionOffsets(topic))) {
      const k = topicPartitionKey({ topic, partition: p.partition });
      const marker = markers.get(k);
      if (marker?.preserved === true) ends.set(k, p.latest);
    }
  }
  return ends;
}

/** A partition that keeps its source offsets fails over to the group's source offset itself, once the target holds it. */
function exactWherePreserved(p: FailoverPartition, preserved: ReadonlyMap<string, number>, force: boolean): FailoverPartition {
  const end = preserved.get(topicPartitionKey(p));
  if (end === undefined || p.sourceOffset === undefined || p.sourceOffset > end || p.action === 'missing-partition') return p;
  return { ...p, translatedOffset: p.sourceOffset, action: decideAction(p.sourceOffset, p.targetOffset, force), preserved: true };
}

function key(topic: string, partition: number): string {
  return JSON.stringify([topic, partition]);
}
