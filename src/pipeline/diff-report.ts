/**
 * A pipeline diff as people read it in a terminal: per flow, each topic that differs with what
 * differs (partitions, then configs: source value, target value, and what the sync does about it
 * or why it leaves it), the remote topics whose source is gone, and a last line with the counts.
 * Drift is marked ✗, differences the sync keeps on purpose ·.
 */
import type { FlowDiff, PipelineDiff, TopicDiff } from './diff';
import { isDrift } from './diff';

const shown = (value: string | null): string => (value === null ? '(none)' : value);

export function formatDiff(diff: PipelineDiff): string {
  const lines: string[] = [`Pipeline ${diff.pipeline}`];
  for (const flow of diff.flows) lines.push('', ...formatFlow(flow, diff.strict));
  const kept = diff.kept === 0 ? '' : `; ${diff.kept} difference${diff.kept === 1 ? '' : 's'} kept on purpose`;
  lines.push('', diff.drift === 0 ? `In sync${kept}.` : `Drift: ${diff.drift}${kept}.`);
  return `${lines.join('\n')}\n`;
}

function formatFlow(flow: FlowDiff, strict: boolean): string[] {
  const lines = [`Flow ${flow.flow}: ${flow.source} -> ${flow.target}`];
  for (const topic of flow.topics) lines.push(...formatTopic(flow, topic, strict));
  for (const orphan of flow.orphans) lines.push(`  ✗ ${orphan.remote}: its source topic ${orphan.source} is gone from ${flow.source}`);
  if (flow.orphansNotChecked !== undefined) lines.push(`  Remote topics whose source is gone: not checked (${flow.orphansNotChecked})`);
  lines.push(`  ${flow.inSync} topic${flow.inSync === 1 ? '' : 's'} in sync`);
  return lines;
}

function formatTopic(flow: FlowDiff, topic: TopicDiff, strict: boolean): string[] {
  const head = `  ${topic.source} -> ${topic.remote}`;
  if (topic.remotePartitions === undefined) return [`${head}`, `    ✗ missing on ${flow.target} (created at the next topic refresh)`];
  const lines = [head];
  if (isDrift(topic)) {
    const counts = `${topic.sourcePartitions} on ${flow.source}, ${topic.remotePartitions} on ${flow.target}`;
    lines.push(
      topic.remotePartitions < topic.sourcePartitions
        ? `    ✗ partitions: ${counts} (the next topic refresh adds ${topic.sourcePartitions - topic.remotePartitions})`
        : `    ✗ partitions: ${counts} (partitions are never removed; records of a key may land elsewhere after a failover)`,
    );
  }
  for (const c of topic.configs) {
    const values = `${flow.source} ${shown(c.sourceValue)}, ${flow.target} ${shown(c.targetValue)}`;
    if (c.change !== undefined) {
      const action = c.change.op === 'set' ? `the sync sets ${c.change.value}` : `the sync resets it to ${flow.target}'s default`;
      lines.push(`    ✗ ${c.name}: ${values} (${action})`);
    } else lines.push(`    ${strict ? '✗' : '·'} ${c.name}: ${values} (kept: ${c.keptBecause ?? ''})`);
  }
  return lines;
}
