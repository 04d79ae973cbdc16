import type { FlowConfig } from '../../../config';
import type { KafkaRecord, MirrorRecord, RecordFailure } from '../../../core/record';
import { silentLogger } from '../../../core/ports/logger';
import type { ReplicationPolicy } from '../../../policy';
import { buildTransformChain, builtInTransforms, type PluginRegistry } from '../../../plugins';
import { expectedDigest, type ComparedBy } from '../../../flow/verify/expected-copy';
import type { VerifyJobSettings } from '../../../flow/verify/verify-job';
import { offsetSyncsPlace } from '../../flow-names';
import { renamedRemoteTopic, shouldReplicate } from './topic-settings';

/**
 * How a flow's copies are compared with their source (expected-copy.ts): by content, after the
 * flow's own transforms (a chain of its own, silent, so the flow's counters are not moved), or by
 * count where the target's bytes cannot be worked out from the source's (schema ids moved to
 * another registry, transforms of plugins).
 */
export interface FlowComparison {
  readonly comparedBy: ComparedBy;
  readonly transform?: (records: readonly MirrorRecord[], failures?: RecordFailure[]) => readonly MirrorRecord[];
}

export function flowComparison(flow: FlowConfig, registry: PluginRegistry): FlowComparison {
  const comparedBy: ComparedBy =
    flow.schema_registry !== undefined || flow.transforms.some((s) => !builtInTransforms.some((b) => b.name === s.type)) ? 'count' : 'content';
  if (flow.transforms.length === 0 || flow.schema_registry !== undefined) return { comparedBy };
  const transform = buildTransformChain(flow.transforms, registry, {
    flow: { source: flow.source, target: flow.target },
    logger: silentLogger,
    converters: flow.converter,
  });
  return { comparedBy, transform };
}

/** Continuous verification's settings: `verify.*`, the flow's topics and names, and where its offset syncs are. */
export function verifyJobSettings(flow: FlowConfig, policy: ReplicationPolicy, comparedBy: ComparedBy): VerifyJobSettings {
  return {
    source: flow.source,
    target: flow.target,
    intervalMs: flow.verify.interval_ms,
    recordsPerInterval: flow.verify.records_per_interval,
    isolationLevel: flow.consumer.isolation_level,
    targetIsolationLevel: flow.delivery === 'exactly_once' ? 'read_committed' : 'read_uncommitted',
    comparedBy,
    replicates: shouldReplicate(flow, policy),
    remoteTopic: renamedRemoteTopic(flow, policy),
    offsetSyncsTopic: flow.offset_syncs.enabled ? policy.offsetSyncsTopic(offsetSyncsPlace(flow).otherAlias) : undefined,
  };
}

/** Per source topic, a source record's digest as its copy should be; undefined without transforms. */
export function expectedCopies(
  flow: FlowConfig,
  policy: ReplicationPolicy,
  comparison: FlowComparison,
): ((topic: string) => (record: KafkaRecord, out: Uint32Array, at: number) => boolean) | undefined {
  const { transform, comparedBy } = comparison;
  if (transform === undefined) return undefined;
  const renamed = renamedRemoteTopic(flow, policy);
  const byTopic = new Map<string, (record: KafkaRecord, out: Uint32Array, at: number) => boolean>();
  return (topic) => {
    let found = byTopic.get(topic);
    if (found === undefined) {
      found = expectedDigest({ by: comparedBy, remoteTopic: policy.formatRemoteTopic(flow.source, topic), comparedTopic: renamed(topic), transform });
      byTopic.set(topic, found);
    }
    return found;
  };
}
