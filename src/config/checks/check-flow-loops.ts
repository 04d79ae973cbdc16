/**
 * Flows that would copy a topic around without end. The default replication policy prevents
 * this by name (a topic never goes back to a cluster in its prefix chain), but the identity
 * policy keeps names, so `a->b` plus `b->a` copies `orders` back and forth forever; mixing
 * policies or separators can do the same with ever longer names. MM2 lets such a pipeline start.
 * Provenance headers (`provenance.enabled`) prevent it record by record: a flow with them never
 * writes a record into a cluster its header names, so a loop of such flows is no loop.
 *
 * The check follows sample topic names (from the flows' own `topics` patterns) through the
 * enabled flows with the real filters and policies, and the header the records would carry: it
 * reports a loop only when it has an example topic that really would circulate, so pipelines
 * whose filters keep copies apart, or whose flows carry provenance headers, pass.
 */
import { DefaultTopicFilter, createReplicationPolicy, shouldReplicateTopic, type ReplicationPolicy } from '../../policy';
import type { PathSegment } from '../config-path';
import type { FlowConfig, PipelineConfig } from '../pipeline-config';
import { topicNameSamples } from './topic-name-samples';

export interface FlowLoop {
  /**
   * Where to report it, in `config.flows`: `provenance.enabled` of the first flow of the loop
   * without provenance headers, or the flow the example topic starts from.
   */
  readonly path: PathSegment[];
  readonly message: string;
  readonly hint: string;
}

interface CompiledFlow {
  readonly index: number;
  readonly flow: FlowConfig;
  readonly policy: ReplicationPolicy;
  readonly filter: DefaultTopicFilter;
}

/** Extra names tried for every flow: common topic names that broad patterns let through. */
const EXTRA_SAMPLES = ['orders', 'x'];

export function checkFlowLoops(config: PipelineConfig): FlowLoop[] {
  const flows: CompiledFlow[] = config.flows
    .map((flow, index) => ({ flow, index }))
    .filter(({ flow }) => flow.enabled)
    .map(({ flow, index }) => ({
      index,
      flow,
      policy: createReplicationPolicy(
        flow.replication_policy.type === 'identity'
          ? { type: 'identity', separator: flow.replication_policy.separator, sourceAlias: flow.source }
          : {
              type: 'default',
              separator: flow.replication_policy.separator,
              internalTopicSeparatorEnabled: flow.replication_policy.internal_topic_separator_enabled,
            },
      ),
      filter: new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude }),
    }));
  // The default policy with one separator everywhere is loop-free by construction.
  const separators = new Set(flows.map((f) => f.flow.replication_policy.separator));
  if (flows.every((f) => f.flow.replication_policy.type === 'default') && separators.size <= 1) return [];

  const loops: FlowLoop[] = [];
  const reported = new Set<string>();
  for (const start of flows) {
    const samples = new Set([...start.flow.topics.flatMap(topicNameSamples), ...EXTRA_SAMPLES]);
    for (const topic of samples) {
      if (topic === '') continue;
      const path = circulation(start, topic, flows, Object.keys(config.clusters).length);
      if (path === undefined) continue;
      const names = [...new Set(path.map((f) => f.flow.name))];
      const key = [...names].sort().join(',');
      if (!reported.has(key)) {
        reported.add(key);
        const bare = [...new Map(path.filter((f) => !f.flow.provenance.enabled).map((f) => [f.index, f])).values()];
        const headers = `turn on provenance headers on ${bare.map((f) => f.flow.name).join(', ')} (provenance.enabled: true, or in mm2.properties provenance.header.enable = true), so a record never returns to a cluster it has been in`;
        loops.push({
          path: bare[0] === undefined ? ['flows', start.index] : ['flows', bare[0].index, 'provenance', 'enabled'],
          message: `flows ${names.join(', ')} would copy topic "${topic}" around without end`,
          hint: path.some((f) => f.flow.replication_policy.type === 'identity')
            ? `the identity policy keeps topic names, so a copy looks like an original: ${headers}; or use the default policy on one of these flows, or topic filters that keep copies out`
            : `use one replication policy and separator on all of these flows, so copies are recognised by name; or ${headers}`,
        });
      }
      break;
    }
  }
  return loops;
}

/**
 * The flows a topic takes when it keeps being copied: undefined when every path ends. A path
 * loops when it returns a topic name to a cluster that already had it, or goes on longer than
 * any finite chain of distinct clusters could. Along the way it carries the clusters a record's
 * provenance header would name (undefined before a flow with headers wrote one): a flow with
 * headers stops where the target is among them.
 */
function circulation(start: CompiledFlow, topic: string, flows: readonly CompiledFlow[], clusterCount: number): CompiledFlow[] | undefined {
  const maxHops = 2 * clusterCount + 2;
  const walk = (
    flow: CompiledFlow,
    name: string,
    seen: ReadonlySet<string>,
    path: CompiledFlow[],
    header: readonly string[] | undefined,
  ): CompiledFlow[] | undefined => {
    const { policy, filter } = flow;
    const { source, target } = flow.flow;
    const passes = shouldReplicateTopic(name, { filter, policy, targetAlias: target, replicateHeartbeats: flow.flow.replicate_heartbeats });
    if (!passes) return undefined;
    let carried = header;
    if (flow.flow.provenance.enabled) {
      if (header?.includes(target) === true) return undefined;
      carried = [...(header === undefined ? [] : header), ...(header?.at(-1) === source ? [] : [source]), target];
    }
    const copy = policy.formatRemoteTopic(source, name);
    const here = `${target}\u0000${copy}`;
    const taken = [...path, flow];
    if (seen.has(here) || taken.length > maxHops) return taken;
    const next = new Set(seen).add(here);
    for (const onward of flows) {
      if (onward.flow.source !== target) continue;
      const found = walk(onward, copy, next, taken, carried);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(start, topic, new Set([`${start.flow.source}\u0000${topic}`]), [], undefined);
}
