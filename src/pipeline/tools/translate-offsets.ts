import type { PipelineTools, DirectionRequest } from './pipeline-tools';
import type { TranslatedOffset } from './mirror-client';
import { readPreservationMarkers } from '../../flow/replication/offset-preservation';
import { flowGroupId, preservedOffsetsGroup } from '../flow-names';

export interface TranslateOffsetsRequest extends DirectionRequest {
  /** One group by id, as `RemoteClusterUtils.translateOffsets(props, alias, group, timeout)`. */
  readonly group?: string;
  /** Every group whose id fully matches this Java regex (KIP-1239). */
  readonly groupPattern?: string;
  readonly timeoutMs?: number;
}

export interface GroupTranslation {
  readonly group: string;
  /** Offsets on the target cluster, by topic then partition. */
  readonly offsets: readonly TranslatedOffset[];
}

export interface TranslateOffsetsResult {
  readonly source: string;
  readonly target: string;
  /** The topic read, on the target cluster. */
  readonly checkpointsTopic: string;
  /** Groups with checkpoints, sorted by id; for `group`, that group (with no offsets if it has none). */
  readonly groups: readonly GroupTranslation[];
  /**
   * `offsets: preserve`: the target `topic-partition`s that hold their source's offsets, whose
   * checkpoints carry the group's offset as it is; empty for other flows.
   */
  readonly preservedPartitions?: readonly string[];
}

/**
 * Translates consumer group offsets of the flow's source into offsets on its target, from the
 * checkpoints the flow wrote there: what RemoteClusterUtils.translateOffsets answers, run
 * against the target cluster with the flow's source as the remote alias.
 */
export async function translateOffsets(tools: PipelineTools, request: TranslateOffsetsRequest): Promise<TranslateOffsetsResult> {
  const { source, target, policy, flow } = tools.direction(request);
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
  if (request.groupPattern !== undefined) {
    const byGroup = await client.remoteConsumerOffsetsMatching(request.groupPattern, source, options);
    return { source, target, checkpointsTopic, groups: [...byGroup].map(([group, offsets]) => ({ group, offsets })), preservedPartitions };
  }
  const group = request.group ?? '';
  const offsets = await client.remoteConsumerOffsets(group, source, options);
  return { source, target, checkpointsTopic, groups: [{ group, offsets }], preservedPartitions };
}
