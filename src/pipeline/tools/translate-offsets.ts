import { firstValueFrom } from '#rxjs';
import type { PipelineTools, DirectionRequest, FlowDirection } from './pipeline-tools';
import { DEFAULT_READ_TIMEOUT_MS, type TranslatedOffset } from './mirror-client';
import { readPreservationMarkers } from '../../flow/replication/preservation-markers';
import { renameTopicPartition } from '../../flow/checkpoints/checkpoint-translation';
import { topicPartitionKey } from '../../core/record';
import { flowGroupId, preservedOffsetsGroup } from '../flow-names';
import { loadOffsetSyncs } from './offset-syncs';
import { ToolUsageError } from './tool-errors';

export interface TranslateOffsetsRequest extends DirectionRequest {
  /** One group by id, as `RemoteClusterUtils.translateOffsets(props, alias, group, timeout)`. */
  readonly group?: string;
  /** Every group whose id fully matches this Java regex (KIP-1239). */
  readonly groupPattern?: string;
  readonly timeoutMs?: number;
  /** Only this topic: its name on the source (`orders`) or on the target (`primary.orders`). */
  readonly topic?: string;
  /** Only this partition of `topic`. */
  readonly partition?: number;
  /**
   * With `topic` and `partition`: translate this source offset (an application that keeps its
   * own offsets) through the offset syncs, as a checkpoint would, instead of reading a group's.
   */
  readonly offset?: number;
}

export interface GroupTranslation {
  readonly group: string;
  /** Offsets on the target cluster, by topic then partition. */
  readonly offsets: readonly TranslatedOffset[];
}

/** One source offset translated to the target (`offset` of the request). */
export interface OffsetTranslation {
  /** The topic on the source, and its name on the target. */
  readonly topic: string;
  readonly remoteTopic: string;
  readonly partition: number;
  readonly sourceOffset: number;
  /**
   * Where a consumer resumes on the target: one past the nearest offset sync at or below the
   * source offset (the sync's own downstream offset when the offset is the sync's), never ahead
   * of what is replicated; the source offset itself on a partition that keeps its offsets;
   * null when it cannot be translated (see `reason`).
   */
  readonly offset: number | null;
  readonly translatedBy: 'offset-sync' | 'preserved' | 'none';
  /** The offset sync used. */
  readonly offsetSync?: { readonly upstreamOffset: number; readonly downstreamOffset: number };
  /** Why `offset` is null. */
  readonly reason?: string;
}

export interface TranslateOffsetsResult {
  readonly source: string;
  readonly target: string;
  /** The topic read, on the target cluster. */
  readonly checkpointsTopic: string;
  /** Groups with checkpoints, sorted by id; for `group`, that group (with no offsets if it has none). Empty for an `offset` alone. */
  readonly groups: readonly GroupTranslation[];
  /**
   * `offsets: preserve`: the target `topic-partition`s that hold their source's offsets, whose
   * checkpoints carry the group's offset as it is; empty for other flows.
   */
  readonly preservedPartitions?: readonly string[];
  /** With `offset`: that source offset translated. */
  readonly translation?: OffsetTranslation;
}

/** Checks that the request's parts go together; throws ToolUsageError (the CLI's 64, HTTP's 400) naming what is wrong. */
export function checkTranslateRequest(request: TranslateOffsetsRequest): void {
  if (request.group !== undefined && request.groupPattern !== undefined) throw new ToolUsageError('Give a group or a group pattern, not both.');
  if (request.group === undefined && request.groupPattern === undefined && request.offset === undefined)
    throw new ToolUsageError('Give a group (or a group pattern), or a topic, partition and offset to translate.');
  if (request.partition !== undefined && request.topic === undefined) throw new ToolUsageError('A partition needs its topic.');
  if (request.offset !== undefined && (request.topic === undefined || request.partition === undefined))
    throw new ToolUsageError('An offset to translate needs its topic and partition.');
  for (const [name, value] of [
    ['partition', request.partition],
    ['offset', request.offset],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0))
      throw new ToolUsageError(`The ${name} must be a whole number, 0 or more (got ${value}).`);
  }
}

/**
 * Translates consumer group offsets of the flow's source into offsets on its target, from the
 * checkpoints the flow wrote there: what RemoteClusterUtils.translateOffsets answers, run
 * against the target cluster with the flow's source as the remote alias. `topic` and
 * `partition` narrow the answer; `offset` translates one source offset through the offset syncs.
 */
export async function translateOffsets(tools: PipelineTools, request: TranslateOffsetsRequest): Promise<TranslateOffsetsResult> {
  checkTranslateRequest(request);
  const direction = tools.direction(request);
  const { source, target, policy, flow } = direction;
  await tools.checkReachable(target);
  const client = tools.mirrorClient(target, policy);
  const checkpointsTopic = policy.checkpointsTopic(source);
  const options = { timeoutMs: request.timeoutMs };
  const markers =
    flow.offsets === 'preserve' ? await readPreservationMarkers(tools.admin(target), preservedOffsetsGroup(flowGroupId(tools.config.name, flow))) : new Map();
  const preservedPartitions = [...markers]
    .filter(([, m]) => m.preserved)
    .map(([k]) => k as string)
    .sort();
  const names = request.topic === undefined ? undefined : topicNames(direction, request.topic);
  const wanted = (o: TranslatedOffset): boolean =>
    (names === undefined || o.topic === names.remoteTopic) && (request.partition === undefined || o.partition === request.partition);
  let groups: GroupTranslation[] = [];
  if (request.groupPattern !== undefined) {
    const byGroup = await client.remoteConsumerOffsetsMatching(request.groupPattern, source, options);
    groups = [...byGroup].map(([group, offsets]) => ({ group, offsets: offsets.filter(wanted) }));
  } else if (request.group !== undefined) {
    const offsets = await client.remoteConsumerOffsets(request.group, source, options);
    groups = [{ group: request.group, offsets: offsets.filter(wanted) }];
  }
  const translation =
    request.offset === undefined || names === undefined || request.partition === undefined
      ? undefined
      : await translateOne(tools, direction, names, request.partition, request.offset, request.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  return { source, target, checkpointsTopic, groups, preservedPartitions, ...(translation === undefined ? {} : { translation }) };
}

/** A topic named either way, as it is on the flow's source and on its target. */
export function topicNames({ source, target, policy }: FlowDirection, topic: string): { topic: string; remoteTopic: string } {
  // A name the policy says came from the source is the target's name of its upstream topic.
  if (policy.topicSource(topic) === source) {
    const upstream = policy.upstreamTopic(topic);
    if (upstream !== undefined) return { topic: upstream, remoteTopic: topic };
  }
  return { topic, remoteTopic: renameTopicPartition({ topic, partition: 0 }, policy, source, target).topic };
}

async function translateOne(
  tools: PipelineTools,
  direction: FlowDirection,
  names: { topic: string; remoteTopic: string },
  partition: number,
  sourceOffset: number,
  timeoutMs: number,
): Promise<OffsetTranslation> {
  const { source, target, flow } = direction;
  const base = { topic: names.topic, remoteTopic: names.remoteTopic, partition, sourceOffset };
  if (flow.offsets === 'preserve') {
    const targetAdmin = tools.admin(target);
    const markers = await readPreservationMarkers(targetAdmin, preservedOffsetsGroup(flowGroupId(tools.config.name, flow)));
    const marker = markers.get(topicPartitionKey({ topic: names.remoteTopic, partition }));
    if (marker?.preserved === true && sourceOffset >= marker.offset) {
      const end = (await firstValueFrom(targetAdmin.partitionOffsets(names.remoteTopic))).find((p) => p.partition === partition)?.latest ?? 0;
      if (sourceOffset <= end) return { ...base, offset: sourceOffset, translatedBy: 'preserved' };
      return {
        ...base,
        offset: null,
        translatedBy: 'none',
        reason: `${names.remoteTopic}-${partition} keeps its source offsets, but ends at ${end} on ${target}: offset ${sourceOffset} is not replicated yet`,
      };
    }
  }
  // The offset held while the syncs are read: the nearest sync at or before it is kept, however
  // far behind the latest one it is, so the answer is the closest the syncs allow.
  const syncs = await loadOffsetSyncs(tools, direction, [{ topic: names.topic, partition, offset: sourceOffset }], timeoutMs);
  const store = syncs.store;
  if (store === undefined) {
    return {
      ...base,
      offset: null,
      translatedBy: 'none',
      reason: `cluster "${syncs.cluster}" has no topic ${syncs.topic}: the flow ${source}->${target} has not written offset syncs yet`,
    };
  }
  const found = store.translate({ topic: names.topic, partition }, sourceOffset);
  if (found === undefined)
    return {
      ...base,
      offset: null,
      translatedBy: 'none',
      reason: `no offset syncs for ${names.topic}-${partition}: the flow has not replicated a record of it yet`,
    };
  if (found.sync === undefined || found.offset < 0)
    return {
      ...base,
      offset: null,
      translatedBy: 'none',
      reason: `offset ${sourceOffset} is older than every offset sync kept for ${names.topic}-${partition}; a consumer there starts where its auto.offset.reset says`,
    };
  return {
    ...base,
    offset: found.offset,
    translatedBy: 'offset-sync',
    offsetSync: { upstreamOffset: found.sync.upstreamOffset, downstreamOffset: found.sync.downstreamOffset },
  };
}
