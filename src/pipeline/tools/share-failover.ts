/**
 * Failover of a share group (KIP-932): MM2's checkpoints have no share groups, so `failover`
 * cannot read one from the checkpoints topic. A running flow with group offset sync keeps the
 * target share group's start offsets (share-group-offset-sync.ts), at its interval; this brings
 * them up to date at the moment of the failover, the way that sync does, for a group stopped on
 * the source:
 *
 *   - read its start offsets on the source (every record before one is done with there);
 *   - translate each through the flow's offset syncs, never ahead of what was copied;
 *   - set them on the target, where the target group has none or is behind (never backwards
 *     unless forced), and read them back; before them, the share configs set on the source group
 *     (`share.auto.offset.reset` and the like) where the target group's differ.
 *
 * With the source unreachable (a disaster), nothing is translated: the plan shows the start
 * offsets the flow's last sync left on the target, and is refused when there are none, since the
 * group's consumers there would start where `share.auto.offset.reset` says (latest by default).
 * Records after a start offset that were acknowledged one by one on the source are delivered
 * again on the target: no API reads or sets them.
 */
import { firstValueFrom } from '#rxjs';
import { describeError } from '../../core/errors';
import { GroupActiveError, type ShareGroupDescription, type ShareGroupStartOffset, type TopicConfigChange } from '../../core/ports/cluster-admin';
import { topicPartitionKey } from '../../core/record';
import { checkpointTranslation, type CheckpointTranslation } from '../../flow/checkpoints/checkpoint-translation';
import { OffsetSyncStore } from '../../flow/checkpoints/offset-sync-store';
import { preservedPartitions } from '../../flow/checkpoints/preserved-partitions';
import { translateShareGroup } from '../../flow/checkpoints/share-group-sync-plan';
import { describeConfigChanges, shareGroupConfigChanges } from '../../flow/checkpoints/share-group-configs';
import { flowTopicFilter } from '../wiring/settings/topic-settings';
import { flowGroupId, preservedOffsetsGroup } from '../flow-names';
import { check, change, describeOffsets, type ChangeStep } from './change-steps';
import { decideAction, isWritten, type FailoverPartition, type FailoverPlan, type FailoverRequest, type FailoverResult } from './failover-plan';
import { loadOffsetSyncs } from './offset-syncs';
import type { FlowDirection, PipelineTools } from './pipeline-tools';
import { FailoverRefusedError } from './tool-errors';

const DEFAULT_TIMEOUT_MS = 60_000;

/** A share group with members, or in a state mirrorflow does not know, cannot be altered. */
function activeShareRefusal(group: string, cluster: string, described: ShareGroupDescription): string | undefined {
  if (described.members > 0 || described.state === 'stable') {
    return (
      `Share group "${group}" has ${described.members} active member(s) on cluster "${cluster}" (state ${described.state}): ` +
      `its start offsets cannot be changed while they run. Stop its share consumers on "${cluster}" and run failover again.`
    );
  }
  if (described.state === 'unknown') {
    return `The broker of cluster "${cluster}" reports a state for share group "${group}" that mirrorflow does not know, so it cannot tell whether the group is active; nothing is written.`;
  }
  return undefined;
}

/**
 * The share group `group` as the target describes it, when the target or else the source has it
 * (`dead` when only the source does); `source-unreachable` when the target has none and the source
 * cannot be asked; undefined when neither has it (or supports share groups), so the caller goes
 * on as for a consumer group.
 */
export async function findShareGroup(
  tools: PipelineTools,
  direction: FlowDirection,
  group: string,
): Promise<ShareGroupDescription | 'source-unreachable' | undefined> {
  const described = async (cluster: string): Promise<ShareGroupDescription | undefined> => {
    try {
      const found = (await firstValueFrom(tools.admin(cluster).describeShareGroups([group]))).get(group);
      return found === undefined || found.state === 'dead' ? undefined : found;
    } catch {
      // A cluster without share groups: not a share group there.
      return undefined;
    }
  };
  const onTarget = await described(direction.target);
  if (onTarget !== undefined) return onTarget;
  try {
    await tools.checkReachable(direction.source);
  } catch {
    return 'source-unreachable';
  }
  return (await described(direction.source)) === undefined ? undefined : { state: 'dead', members: 0 };
}

/** The plan for share group `request.group`, described on the target as `onTarget` (`dead` when it has none there). */
export async function planShareFailover(
  tools: PipelineTools,
  request: FailoverRequest,
  direction: FlowDirection,
  onTarget: ShareGroupDescription,
): Promise<FailoverPlan> {
  const { source, target } = direction;
  const { group, force } = request;
  const targetAdmin = tools.admin(target);
  const warnings: string[] = [];
  const targetOffsets = onTarget.state === 'dead' ? [] : await firstValueFrom(targetAdmin.fetchShareGroupOffsets(group));
  const current = new Map(targetOffsets.map((o) => [topicPartitionKey(o), o.startOffset]));
  const partitionCounts = new Map((await firstValueFrom(targetAdmin.listTopics())).map((t) => [t.name, t.partitions]));
  const refusal = activeShareRefusal(group, target, onTarget);
  const base = {
    group,
    source,
    target,
    groupType: 'share' as const,
    checkpointsTopic: direction.policy.checkpointsTopic(source),
    force,
    targetState: onTarget.state,
  };

  const sourceSide = await readShareSource(tools, source, group);
  if (sourceSide.error !== undefined) {
    warnings.push(
      `Cluster "${source}" could not be read (${sourceSide.error}), so nothing is translated: the start offsets on "${target}" are those ` +
        `the flow's group offset sync set last (checkpoints.sync_group_offsets), and they are kept as they are.`,
    );
    const partitions: FailoverPartition[] = targetOffsets.map((o) => ({
      topic: o.topic,
      partition: o.partition,
      targetOffset: o.startOffset,
      metadata: '',
      action: 'unchanged',
    }));
    const none =
      partitions.length === 0
        ? `Share group "${group}" has no start offsets on cluster "${target}", and cluster "${source}" cannot be read to translate its own, ` +
          `so there is nothing to fail over to: its share consumers on "${target}" would start where share.auto.offset.reset says (latest by default). ` +
          `Run failover again once "${source}" answers, or set the group's start offsets by hand.`
        : undefined;
    const refused = refusal ?? none;
    return {
      ...base,
      partitions,
      warnings,
      ...(refused !== undefined ? { refusal: refused } : {}),
      steps:
        refused !== undefined ? [] : [check(target, `share group "${group}" has no active members; its start offsets stay as the flow's last sync set them`)],
    };
  }
  if (sourceSide.described.members > 0) {
    warnings.push(
      `Share group "${group}" still has ${sourceSide.described.members} active member(s) on "${source}". They keep acknowledging records there; ` +
        `stop them before starting the share consumers on "${target}", or both sides process the same records.`,
    );
  }

  const translation = await shareTranslation(tools, direction, sourceSide.offsets, request.timeoutMs ?? DEFAULT_TIMEOUT_MS, warnings);
  const groupConfigs = await configChanges(tools, direction, group, warnings);
  const { translated } = translateShareGroup(sourceSide.offsets, translation);
  const byTarget = new Map(translated.map((o) => [topicPartitionKey(o), o]));
  const partitions: FailoverPartition[] = [];
  for (const o of sourceSide.offsets) {
    if (!translation.shouldCheckpointTopic(o.topic)) continue;
    const remote = translation.rename(o);
    const k = topicPartitionKey(remote);
    const targetOffset = current.get(k);
    const to = byTarget.get(k)?.startOffset;
    const exists = remote.partition < (partitionCounts.get(remote.topic) ?? 0);
    const p = { topic: remote.topic, partition: remote.partition, sourceOffset: o.startOffset, targetOffset, metadata: '' };
    if (!exists) partitions.push({ ...p, action: 'missing-partition' });
    else if (to === undefined) partitions.push({ ...p, action: 'not-translated' });
    else partitions.push({ ...p, translatedOffset: to, action: decideAction(to, targetOffset, force) });
  }
  partitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));

  const missing = partitions.filter((p) => p.action === 'missing-partition');
  if (missing.length > 0) {
    warnings.push(`${missing.length} partition(s) of the group's topics are not on "${target}" (topic not created there yet); they are skipped.`);
  }
  const untranslated = partitions.filter((p) => p.action === 'not-translated');
  if (untranslated.length > 0) {
    warnings.push(
      `${untranslated.length} partition(s) have no offset sync at or before the group's start offset (nothing replicated there yet, or the start offset ` +
        `is older than every sync kept); on "${target}" the group starts those where share.auto.offset.reset says.`,
    );
  }
  if (partitions.length === 0) {
    warnings.push(`Share group "${group}" has no start offsets on "${source}" on topics the flow ${source}->${target} replicates; nothing to set.`);
  }

  const writes = partitions.filter((p) => isWritten(p.action)).map((p) => ({ topic: p.topic, partition: p.partition, offset: p.translatedOffset! }));
  const configSteps =
    groupConfigs.length === 0 ? [] : [change(target, `set the configs of share group "${group}" its source group has: ${describeConfigChanges(groupConfigs)}`)];
  const steps: ChangeStep[] =
    refusal !== undefined
      ? []
      : writes.length === 0
        ? [check(target, `share group "${group}" has no active members; its start offsets are already at or past the translated ones`), ...configSteps]
        : [
            check(target, `share group "${group}" still has no active members`),
            ...configSteps,
            change(
              target,
              `set ${writes.length} start offset(s) of share group "${group}"${onTarget.state === 'dead' ? ' (the group is created)' : ''}: ${describeOffsets(writes)}`,
            ),
            check(target, `read the start offsets of share group "${group}" back: each must be the one set`),
          ];
  return {
    ...base,
    sourceState: sourceSide.described.state,
    partitions,
    ...(groupConfigs.length > 0 ? { groupConfigs } : {}),
    warnings,
    ...(refusal !== undefined ? { refusal } : {}),
    steps,
  };
}

/** Sets the plan's `commit` and `rewind` start offsets on the target and checks they took. */
export async function executeShareFailover(tools: PipelineTools, plan: FailoverPlan): Promise<FailoverResult> {
  if (plan.refusal !== undefined) throw new FailoverRefusedError(plan.refusal);
  const admin = tools.admin(plan.target);
  const now = (await firstValueFrom(admin.describeShareGroups([plan.group]))).get(plan.group) ?? { state: 'dead', members: 0 };
  const refusal = activeShareRefusal(plan.group, plan.target, now);
  if (refusal !== undefined) throw new FailoverRefusedError(`${refusal} (It became so while failing over; nothing was written.)`);
  const offsets: ShareGroupStartOffset[] = plan.partitions
    .filter((p) => isWritten(p.action))
    .map((p) => ({ topic: p.topic, partition: p.partition, startOffset: p.translatedOffset! }));
  if (plan.groupConfigs !== undefined && plan.groupConfigs.length > 0) {
    let result;
    try {
      result = (await firstValueFrom(admin.alterGroupConfigs(new Map([[plan.group, plan.groupConfigs]])))).get(plan.group);
    } catch (error) {
      throw new FailoverRefusedError(`Setting the configs of share group "${plan.group}" on cluster "${plan.target}" failed: ${describeError(error)}`, {
        cause: error,
      });
    }
    if (result?.ok !== true) {
      const why = result === undefined ? 'the broker did not answer for it' : `${result.error}: ${result.message}`;
      throw new FailoverRefusedError(`Setting the configs of share group "${plan.group}" on cluster "${plan.target}" failed: ${why}`);
    }
  }
  if (offsets.length === 0) return { committed: [] };
  try {
    await firstValueFrom(admin.alterShareGroupOffsets(plan.group, offsets), { defaultValue: undefined });
  } catch (error) {
    if (error instanceof GroupActiveError) {
      throw new FailoverRefusedError(
        `Share group "${plan.group}" got a member on cluster "${plan.target}" while failing over, and the broker refused the new start offsets; nothing was written.`,
        { cause: error },
      );
    }
    throw new FailoverRefusedError(`Setting the start offsets of share group "${plan.group}" on cluster "${plan.target}" failed: ${describeError(error)}`, {
      cause: error,
    });
  }
  const after = new Map((await firstValueFrom(admin.fetchShareGroupOffsets(plan.group))).map((o) => [topicPartitionKey(o), o.startOffset]));
  const wrong = offsets.filter((o) => after.get(topicPartitionKey(o)) !== o.startOffset);
  if (wrong.length > 0) {
    throw new FailoverRefusedError(
      `After setting them, share group "${plan.group}" on cluster "${plan.target}" does not hold the translated start offsets for ` +
        `${wrong.map((w) => `${w.topic}-${w.partition}`).join(', ')}; a member may have joined and moved them.`,
    );
  }
  return { committed: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.startOffset, metadata: '' })) };
}

interface ShareSource {
  readonly described: ShareGroupDescription;
  readonly offsets: readonly ShareGroupStartOffset[];
  readonly error?: string;
}

async function readShareSource(tools: PipelineTools, source: string, group: string): Promise<ShareSource> {
  try {
    await tools.checkReachable(source);
    const admin = tools.admin(source);
    const described = (await firstValueFrom(admin.describeShareGroups([group]))).get(group) ?? { state: 'dead' as const, members: 0 };
    return { described, offsets: await firstValueFrom(admin.fetchShareGroupOffsets(group)) };
  } catch (error) {
    return { described: { state: 'dead', members: 0 }, offsets: [], error: describeError(error) };
  }
}

/**
 * The flow's translation now, as its checkpoint pass makes it: its offset syncs read from the
 * start, holding the group's start offsets (`upstream`) so that the nearest sync at or before each
 * is kept as the history streams past (as a running flow's group holds do), and its preserved
 * partitions. Without the offset-syncs topic nothing translates (warned).
 */
async function shareTranslation(
  tools: PipelineTools,
  direction: FlowDirection,
  upstream: readonly ShareGroupStartOffset[],
  timeoutMs: number,
  warnings: string[],
): Promise<CheckpointTranslation> {
  const { source, target, policy, flow } = direction;
  const held = upstream.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.startOffset }));
  const syncs = await loadOffsetSyncs(tools, direction, held, timeoutMs);
  if (syncs.store === undefined) {
    warnings.push(
      `Cluster "${syncs.cluster}" has no topic ${syncs.topic}: the flow ${source}->${target} has not written offset syncs yet, so nothing translates.`,
    );
  }
  // Never read to its end, an empty store translates nothing.
  const store = syncs.store ?? new OffsetSyncStore({ initializationMustReadToEnd: false });
  const markers = flow.offsets === 'preserve' ? preservedOffsetsGroup(flowGroupId(tools.config.name, flow)) : undefined;
  const preserved = await firstValueFrom(preservedPartitions(tools.admin(target), markers, tools.logger));
  return checkpointTranslation({ source, target, policy, topicFilter: flowTopicFilter(flow) }, store, preserved);
}

/** The share configs set on the source group that the target group lacks; none (warned) when they cannot be read. */
async function configChanges(
  tools: PipelineTools,
  { source, target }: FlowDirection,
  group: string,
  warnings: string[],
): Promise<readonly TopicConfigChange[]> {
  try {
    const [onSource, onTarget] = await Promise.all([
      firstValueFrom(tools.admin(source).describeGroupConfigs([group])),
      firstValueFrom(tools.admin(target).describeGroupConfigs([group])),
    ]);
    return shareGroupConfigChanges(onSource.get(group) ?? [], onTarget.get(group) ?? []);
  } catch (error) {
    warnings.push(
      `The configs of share group "${group}" could not be read (${describeError(error)}); give the target group the source's share.auto.offset.reset by hand.`,
    );
    return [];
  }
}
