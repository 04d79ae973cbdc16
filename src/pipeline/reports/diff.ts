/**
 * `mirrorflow diff`: how far each flow's target is from its source, read-only. Per replicated
 * topic: a remote topic that is missing, partition counts that differ, configs that differ (both
 * values, and what the periodic config sync would do about it or why it leaves it — the same
 * decision the sync makes, `compareTopicConfigs`), and remote topics on the target whose source
 * topic is gone. Only list and describe requests are made.
 *
 * Drift is what the flow would change (a missing topic, missing partitions, a config the sync
 * sets or resets) and what it cannot repair (a remote topic with more partitions, a remote topic
 * whose source is gone, an ACL the ACL sync would create). Source ACLs the sync does not copy are
 * information, not drift. Differences the config sync leaves on purpose (excluded configs, the target's
 * own defaults) are reported as kept; `strict` counts them as drift too.
 */
import { firstValueFrom } from '#rxjs';
import type { FlowConfig, PipelineConfig } from '../../config';
import { ClusterUnavailableError } from '../../core/errors';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { TopicDescription } from '../../core/ports/cluster-admin';
import { DefaultTopicFilter, compareTopicConfigs, shouldReplicateTopic, type ConfigDifference } from '../../policy';
import { flowReplicationPolicy } from '../wiring/flow-policy';
import { flowConfigFilter } from '../wiring/settings/topic-settings';
import { diffTopicAcls, type AclDiff } from './diff-acls';

export interface TopicDiff {
  readonly source: string;
  readonly remote: string;
  readonly sourcePartitions: number;
  /** Undefined when the remote topic does not exist. */
  readonly remotePartitions?: number;
  /** Configs that differ or that the sync would change; empty when the remote topic is missing. */
  readonly configs: readonly ConfigDifference[];
}

export interface FlowDiff {
  readonly flow: string;
  readonly source: string;
  readonly target: string;
  /** Replicated topics that differ in any way, by source name. */
  readonly topics: readonly TopicDiff[];
  /** Replicated topics found in sync. */
  readonly inSync: number;
  /** Remote topics of this flow's source on the target whose source topic no longer exists. */
  readonly orphans: readonly { readonly remote: string; readonly source: string }[];
  /** Why orphans were not looked for (the identity policy cannot tell remote topics apart). */
  readonly orphansNotChecked?: string;
  /** Topic ACLs, when the flow syncs them (`topic_sync.acls.enabled`). */
  readonly acls?: AclDiff;
  readonly drift: number;
  readonly kept: number;
}

export interface PipelineDiff {
  readonly pipeline: string;
  readonly flows: readonly FlowDiff[];
  readonly drift: number;
  readonly kept: number;
  readonly strict: boolean;
}

/** True when a topic difference is drift (the sync would change it, or it cannot be repaired). */
export function isDrift(topic: TopicDiff): boolean {
  return topic.remotePartitions === undefined || topic.remotePartitions !== topic.sourcePartitions;
}

export async function diffPipeline(config: PipelineConfig, clients: KafkaClients, options: { strict?: boolean } = {}): Promise<PipelineDiff> {
  const flows = config.flows.filter((f) => f.enabled);
  const used = [...new Set(flows.flatMap((f) => [f.source, f.target]))];
  for (const alias of used) {
    try {
      await clients.checkReachable(alias);
    } catch (error) {
      if (error instanceof ClusterUnavailableError) throw error;
      throw new ClusterUnavailableError(alias, 'cannot be reached', { cause: error });
    }
  }
  const strict = options.strict === true;
  const diffs: FlowDiff[] = [];
  for (const flow of flows) diffs.push(await diffFlow(flow, clients, strict));
  return {
    pipeline: config.name,
    flows: diffs,
    drift: diffs.reduce((n, f) => n + f.drift, 0),
    kept: diffs.reduce((n, f) => n + f.kept, 0),
    strict,
  };
}

async function diffFlow(flow: FlowConfig, clients: KafkaClients, strict: boolean): Promise<FlowDiff> {
  const policy = flowReplicationPolicy(flow);
  const sourceAdmin = clients.admin(flow.source);
  const targetAdmin = clients.admin(flow.target);
  const [sourceTopics, targetTopics] = await Promise.all([firstValueFrom(sourceAdmin.listTopics()), firstValueFrom(targetAdmin.listTopics())]);
  const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
  const onTarget = new Map(targetTopics.map((t) => [t.name, t.partitions]));
  const shouldReplicate = (topic: string) =>
    shouldReplicateTopic(topic, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats });
  const replicated = sourceTopics
    .filter((t) => shouldReplicate(t.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({ topic: t, remote: policy.formatRemoteTopic(flow.source, t.name) }));

  const existing = replicated.filter((r) => onTarget.has(r.remote));
  const [sourceConfigs, targetConfigs] =
    existing.length === 0
      ? [new Map(), new Map()]
      : await Promise.all([
          firstValueFrom(sourceAdmin.describeTopicConfigs(existing.map((r) => r.topic.name))),
          firstValueFrom(targetAdmin.describeTopicConfigs(existing.map((r) => r.remote))),
        ]);
  const configFilter = flowConfigFilter(flow);
  const topics: TopicDiff[] = [];
  let drift = 0;
  let kept = 0;
  for (const { topic, remote } of replicated) {
    const remotePartitions = onTarget.get(remote);
    const configs =
      remotePartitions === undefined
        ? []
        : compareTopicConfigs(configFilter, sourceConfigs.get(topic.name) ?? [], targetConfigs.get(remote) ?? [], flow.topic_sync.sync_configs);
    const diff: TopicDiff = {
      source: topic.name,
      remote,
      sourcePartitions: topic.partitions,
      ...(remotePartitions === undefined ? {} : { remotePartitions }),
      configs,
    };
    const changed = configs.filter((c) => c.change !== undefined).length;
    const leftAlone = configs.length - changed;
    drift += (isDrift(diff) ? 1 : 0) + changed + (strict ? leftAlone : 0);
    kept += strict ? 0 : leftAlone;
    if (isDrift(diff) || configs.length > 0) topics.push(diff);
  }
  const { orphans, orphansNotChecked } = findOrphans(flow, policy, sourceTopics, targetTopics);
  drift += orphans.length;
  const acls = flow.topic_sync.acls.enabled
    ? await diffTopicAcls({
        sourceAdmin,
        targetAdmin,
        remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
        shouldReplicate,
        replicatedTopics: replicated.map((r) => r.topic.name),
        prefixed: flow.topic_sync.acls.prefixed,
      })
    : undefined;
  if (acls !== undefined && 'missing' in acls) drift += acls.missing.length;
  return {
    flow: flow.name,
    source: flow.source,
    target: flow.target,
    topics,
    inSync: replicated.length - topics.length,
    orphans,
    ...(orphansNotChecked === undefined ? {} : { orphansNotChecked }),
    ...(acls === undefined ? {} : { acls }),
    drift,
    kept,
  };
}

function findOrphans(
  flow: FlowConfig,
  policy: ReturnType<typeof flowReplicationPolicy>,
  sourceTopics: readonly TopicDescription[],
  targetTopics: readonly TopicDescription[],
): { orphans: FlowDiff['orphans']; orphansNotChecked?: string } {
  if (flow.replication_policy.type === 'identity') {
    return { orphans: [], orphansNotChecked: 'the identity policy keeps topic names, so remote topics cannot be told from the target’s own' };
  }
  const onSource = new Set(sourceTopics.map((t) => t.name));
  const orphans = targetTopics
    .filter((t) => policy.topicSource(t.name) === flow.source && !policy.isInternalTopic(t.name))
    .map((t) => ({ remote: t.name, source: policy.upstreamTopic(t.name) ?? '' }))
    .filter((o) => o.source !== '' && !onSource.has(o.source))
    .sort((a, b) => (a.remote < b.remote ? -1 : 1));
  return { orphans };
}
