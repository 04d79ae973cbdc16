/**
 * `mirrorflow plan`: what a pipeline would do, found out read-only. Per flow: which source topics
 * match and what each becomes on the target (existing or to be created, with partition counts),
 * which consumer groups would be checkpointed (MM2's rule: groups through the group filter that
 * have offsets on topics through the topic filter), which internal topics it would write, and
 * everything that is wrong (unreachable cluster, missing permissions, a remote topic with fewer
 * partitions than its source). Only metadata requests are made: list and describe, never create,
 * alter or commit.
 */
import { firstValueFrom } from '#rxjs';
import type { FlowConfig, PipelineConfig } from '../../config';
import { describeError } from '../../core/errors';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { TopicDescription } from '../../core/ports/cluster-admin';
import { DefaultGroupFilter, DefaultTopicFilter, createReplicationPolicy, shouldReplicateTopic, type ReplicationPolicy } from '../../policy';
import { flowProgressTopic } from '../flow-names';

export interface ClusterPlan {
  readonly alias: string;
  readonly bootstrapServers: readonly string[];
  readonly reachable: boolean;
  readonly problem?: string;
}

export interface TopicPlan {
  readonly source: string;
  readonly partitions: number;
  readonly remote: string;
  /** Partitions of the remote topic; undefined when it does not exist yet (it would be created). */
  readonly remotePartitions?: number;
  readonly problem?: string;
}

export interface InternalTopicPlan {
  readonly topic: string;
  readonly cluster: string;
  /** Undefined when the cluster could not be listed. */
  readonly exists?: boolean;
  readonly purpose: string;
}

export interface FlowPlan {
  readonly flow: string;
  readonly source: string;
  readonly target: string;
  /** `replication`, or `heartbeats only` for a flow with `enabled: false`. */
  readonly mode: 'replication' | 'heartbeats only' | 'off';
  /** How a replicating flow reads the source: whether records of aborted transactions are copied. */
  readonly isolation?: 'read_committed' | 'read_uncommitted';
  /** A replicating flow with `provenance.enabled`: every record gets the provenance header. */
  readonly provenance?: true;
  /** Source topics that match; undefined when they could not be listed. */
  readonly topics?: readonly TopicPlan[];
  /** How many topics the source has in all. */
  readonly sourceTopicCount?: number;
  /** Groups that would be checkpointed; undefined when not looked at (checkpoints off, or an error). */
  readonly groups?: readonly string[];
  readonly internalTopics: readonly InternalTopicPlan[];
  readonly problems: readonly string[];
}

export interface PipelinePlan {
  readonly pipeline: string;
  readonly clusters: readonly ClusterPlan[];
  readonly flows: readonly FlowPlan[];
  /** Every problem of the clusters and flows. */
  readonly problemCount: number;
}

export async function planPipeline(config: PipelineConfig, clients: KafkaClients): Promise<PipelinePlan> {
  const used = [...new Set(config.flows.flatMap((f) => [f.source, f.target]))];
  const clusters = await Promise.all(
    used.map(async (alias): Promise<ClusterPlan> => {
      const bootstrapServers = config.clusters[alias]?.bootstrap_servers ?? [];
      try {
        await clients.checkReachable(alias);
        return { alias, bootstrapServers, reachable: true };
      } catch (error) {
        return { alias, bootstrapServers, reachable: false, problem: describeError(error) };
      }
    }),
  );
  const reachable = new Set(clusters.filter((c) => c.reachable).map((c) => c.alias));
  const topicLists = new Map<string, Promise<readonly TopicDescription[]>>();
  const listTopics = (alias: string): Promise<readonly TopicDescription[]> => {
    let listed = topicLists.get(alias);
    if (listed === undefined) {
      listed = firstValueFrom(clients.admin(alias).listTopics());
      // Each flow reports a failure itself; no rejection may go unhandled meanwhile.
      listed.catch(() => undefined); // each flow awaits `listed` and reports its failure
      topicLists.set(alias, listed);
    }
    return listed;
  };
  const flows: FlowPlan[] = [];
  for (const flow of config.flows) flows.push(await planFlow(flow, clients, reachable, listTopics));
  const problemCount =
    clusters.filter((c) => !c.reachable).length +
    flows.reduce((n, f) => n + f.problems.length + (f.topics ?? []).filter((t) => t.problem !== undefined).length, 0);
  return { pipeline: config.name, clusters, flows, problemCount };
}

async function planFlow(
  flow: FlowConfig,
  clients: KafkaClients,
  reachable: ReadonlySet<string>,
  listTopics: (alias: string) => Promise<readonly TopicDescription[]>,
): Promise<FlowPlan> {
  const problems: string[] = [];
  const mode = flow.enabled ? 'replication' : flow.heartbeats.enabled ? 'heartbeats only' : 'off';
  const policy = policyOf(flow);
  const base = {
    flow: flow.name,
    source: flow.source,
    target: flow.target,
    mode,
    ...(mode === 'replication' ? { isolation: flow.consumer.isolation_level } : {}),
    ...(mode === 'replication' && flow.provenance.enabled ? { provenance: true as const } : {}),
  } as const;
  for (const alias of [flow.source, flow.target]) {
    if (!reachable.has(alias)) problems.push(`cluster ${alias} is unreachable, so this flow cannot be planned`);
  }
  if (problems.length > 0) return { ...base, internalTopics: [], problems };

  const targetTopics = await listed(listTopics(flow.target), `cannot list the topics of ${flow.target}`, problems);
  const sourceTopics = await listed(listTopics(flow.source), `cannot list the topics of ${flow.source}`, problems);
  const internalTopics = internalTopicsOf(flow, policy, { source: sourceTopics, target: targetTopics });
  if (mode !== 'replication') return { ...base, internalTopics, problems };

  const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
  let topics: TopicPlan[] | undefined;
  if (sourceTopics !== undefined) {
    const onTarget = new Map((targetTopics ?? []).map((t) => [t.name, t.partitions]));
    topics = sourceTopics
      .filter((t) => shouldReplicateTopic(t.name, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats }))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => {
        const remote = policy.formatRemoteTopic(flow.source, t.name);
        const remotePartitions = targetTopics === undefined ? undefined : onTarget.get(remote);
        const fewer = remotePartitions !== undefined && remotePartitions < t.partitions;
        return {
          source: t.name,
          partitions: t.partitions,
          remote,
          ...(remotePartitions === undefined ? {} : { remotePartitions }),
          ...(fewer
            ? {
                problem: `${remote} has ${remotePartitions} partition${remotePartitions === 1 ? '' : 's'}, fewer than ${t.name} (${t.partitions}); replication would add partitions, so keys would land in other partitions than before`,
              }
            : {}),
        };
      });
    // Copying configs needs DescribeConfigs on the source topics.
    if (flow.topic_sync.sync_configs && topics.length > 0) {
      try {
        await firstValueFrom(clients.admin(flow.source).describeTopicConfigs(topics.map((t) => t.source)));
      } catch (error) {
        problems.push(`cannot describe the configs of ${flow.source}'s topics (DescribeConfigs permission?): ${describeError(error)}`);
      }
    }
  }
  const groups = flow.checkpoints.enabled ? await checkpointedGroups(flow, clients, filter, problems) : undefined;
  return {
    ...base,
    ...(topics === undefined ? {} : { topics, sourceTopicCount: sourceTopics!.length }),
    ...(groups === undefined ? {} : { groups }),
    internalTopics,
    problems,
  };
}

/** MM2's `findConsumerGroups`: through the group filter, with offsets on a topic through the topic filter. */
async function checkpointedGroups(flow: FlowConfig, clients: KafkaClients, filter: DefaultTopicFilter, problems: string[]): Promise<string[] | undefined> {
  const admin = clients.admin(flow.source);
  const groupFilter = new DefaultGroupFilter({ include: flow.checkpoints.groups, exclude: flow.checkpoints.groups_exclude });
  let ids: readonly string[];
  try {
    ids = await firstValueFrom(admin.listGroups());
  } catch (error) {
    problems.push(`cannot list the consumer groups of ${flow.source} (Describe permission on the cluster?): ${describeError(error)}`);
    return undefined;
  }
  const groups: string[] = [];
  for (const id of [...ids].filter((g) => groupFilter.shouldReplicateGroup(g)).sort()) {
    try {
      const offsets = await firstValueFrom(admin.fetchGroupOffsets(id));
      if (offsets.some((o) => filter.shouldReplicateTopic(o.topic))) groups.push(id);
    } catch (error) {
      problems.push(`cannot read the offsets of group ${id} on ${flow.source} (Describe permission on the group?): ${describeError(error)}`);
    }
  }
  return groups;
}

function internalTopicsOf(
  flow: FlowConfig,
  policy: ReplicationPolicy,
  topics: { source?: readonly TopicDescription[]; target?: readonly TopicDescription[] },
): InternalTopicPlan[] {
  const exists = (list: readonly TopicDescription[] | undefined, name: string): { exists?: boolean } =>
    list === undefined ? {} : { exists: list.some((t) => t.name === name) };
  const plans: InternalTopicPlan[] = [];
  const on = (cluster: string, topic: string, purpose: string): void => {
    plans.push({ topic, cluster, purpose, ...exists(cluster === flow.source ? topics.source : topics.target, topic) });
  };
  if (flow.heartbeats.enabled) on(flow.target, policy.heartbeatsTopic(), 'heartbeats');
  if (!flow.enabled) return plans;
  on(flow.target, flowProgressTopic(flow), 'replication progress');
  if (flow.offset_syncs.enabled) {
    const onSource = flow.offset_syncs.location === 'source';
    on(onSource ? flow.source : flow.target, policy.offsetSyncsTopic(onSource ? flow.target : flow.source), 'offset syncs');
  }
  if (flow.checkpoints.enabled) on(flow.target, policy.checkpointsTopic(flow.source), 'checkpoints');
  return plans;
}

function policyOf(flow: FlowConfig): ReplicationPolicy {
  const spec = flow.replication_policy;
  return createReplicationPolicy(
    spec.type === 'identity'
      ? { type: 'identity', separator: spec.separator, sourceAlias: flow.source }
      : { type: 'default', separator: spec.separator, internalTopicSeparatorEnabled: spec.internal_topic_separator_enabled },
  );
}

async function listed<T>(promise: Promise<T>, what: string, problems: string[]): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    const message = `${what} (Describe permission?): ${describeError(error)}`;
    if (!problems.includes(message)) problems.push(message);
    return undefined;
  }
}
