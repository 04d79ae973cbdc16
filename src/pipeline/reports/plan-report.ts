/**
 * A pipeline plan as people read it in a terminal: clusters, then each flow with its topics in a
 * table (source topic → remote topic, and what is there), the consumer groups it would checkpoint,
 * the internal topics it writes, and its problems marked with ✗.
 */
import type { FlowPlan, PipelinePlan, TopicPlan } from './plan';

export function formatPlan(plan: PipelinePlan): string {
  const lines: string[] = [`Pipeline ${plan.pipeline}`, '', 'Clusters'];
  const width = Math.max(...plan.clusters.map((c) => c.alias.length));
  for (const cluster of plan.clusters) {
    const state = cluster.reachable ? 'reachable' : `✗ unreachable: ${cluster.problem ?? ''}`;
    lines.push(`  ${cluster.alias.padEnd(width)}  ${cluster.bootstrapServers.join(',')}  ${state}`);
  }
  for (const flow of plan.flows) lines.push('', ...formatFlow(flow));
  lines.push('', plan.problemCount === 0 ? 'No problems found.' : `${plan.problemCount} problem${plan.problemCount === 1 ? '' : 's'} found.`);
  return `${lines.join('\n')}\n`;
}

function formatFlow(flow: FlowPlan): string[] {
  const lines = [`Flow ${flow.flow} (${flow.mode})`];
  if (flow.isolation === 'read_committed') lines.push(`  Reads ${flow.source} read_committed: records of aborted transactions are not copied`);
  if (flow.isolation === 'read_uncommitted')
    lines.push(`  Reads ${flow.source} read_uncommitted: records of aborted transactions are copied, and committed on ${flow.target} (MM2's default)`);
  if (flow.provenance === true)
    lines.push(`  Adds a provenance header to every record; records that were on ${flow.target} already are not copied (docs/active-active.md)`);
  if (flow.topics !== undefined) {
    lines.push(`  Topics: ${flow.topics.length} of ${flow.sourceTopicCount ?? 0} on ${flow.source} match`);
    const sourceWidth = Math.max(0, ...flow.topics.map((t) => `${t.source} (${t.partitions})`.length));
    const remoteWidth = Math.max(0, ...flow.topics.map((t) => t.remote.length));
    for (const topic of flow.topics) {
      lines.push(`    ${`${topic.source} (${topic.partitions})`.padEnd(sourceWidth)}  ->  ${topic.remote.padEnd(remoteWidth)}  ${remoteState(topic)}`);
    }
  }
  if (flow.groups !== undefined) {
    lines.push(flow.groups.length === 0 ? '  Checkpointed groups: none yet' : `  Checkpointed groups (${flow.groups.length}): ${flow.groups.join(', ')}`);
  }
  if (flow.internalTopics.length > 0) {
    lines.push('  Internal topics');
    for (const t of flow.internalTopics) {
      const state = t.exists === undefined ? 'unknown' : t.exists ? 'exists' : 'would be created';
      lines.push(`    ${t.topic} on ${t.cluster} (${t.purpose}): ${state}`);
    }
  }
  for (const problem of flow.problems) lines.push(`  ✗ ${problem}`);
  return lines;
}

function remoteState(topic: TopicPlan): string {
  if (topic.remotePartitions === undefined) return `would be created with ${topic.partitions} partition${topic.partitions === 1 ? '' : 's'}`;
  const state = `exists with ${topic.remotePartitions} partition${topic.remotePartitions === 1 ? '' : 's'}`;
  return topic.problem === undefined ? state : `${state}  ✗ ${topic.problem}`;
}
