import type { PipelineTools, DirectionRequest } from './pipeline-tools';
import type { TranslatedOffset } from './mirror-client';

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
}

/**
 * Translates consumer group offsets of the flow's source into offsets on its target, from the
 * checkpoints the flow wrote there: what RemoteClusterUtils.translateOffsets answers, run
 * against the target cluster with the flow's source as the remote alias.
 */
export async function translateOffsets(tools: PipelineTools, request: TranslateOffsetsRequest): Promise<TranslateOffsetsResult> {
  const { source, target, policy } = tools.direction(request);
  await tools.checkReachable(target);
  const client = tools.mirrorClient(target, policy);
  const checkpointsTopic = policy.checkpointsTopic(source);
  const options = { timeoutMs: request.timeoutMs };
  if (request.groupPattern !== undefined) {
    const byGroup = await client.remoteConsumerOffsetsMatching(request.groupPattern, source, options);
    return { source, target, checkpointsTopic, groups: [...byGroup].map(([group, offsets]) => ({ group, offsets })) };
  }
  const group = request.group ?? '';
  const offsets = await client.remoteConsumerOffsets(group, source, options);
  return { source, target, checkpointsTopic, groups: [{ group, offsets }] };
}
