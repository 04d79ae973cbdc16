/**
 * A pipeline diff as people read it in a terminal: per flow, each topic that differs with what
 * differs (partitions, then configs: source value, target value, and what the sync does about it
 * or why it leaves it), the remote topics whose source is gone, the topic ACLs the ACL sync would
 * create and those it does not copy, and a last line with the counts. Drift is marked ✗,
 * differences kept on purpose and ACLs not copied ·.
 */
import type { TopicAcl } from '../../core/ports/topic-acl';
import type { AclSkipReason } from '../../flow/topics/acl-sync-status';
import type { AclDiff } from './diff-acls';
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
  if (flow.acls !== undefined) lines.push(...formatAcls(flow, flow.acls));
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

/** Why the ACL sync does not copy an ACL, as a reader of the diff needs it. */
const SKIPPED_BECAUSE: Record<AclSkipReason, string> = {
  'allow-write': 'ALLOW WRITE is never copied: only the replication writes remote topics',
  wildcard: 'a literal "*" would cover topics of the target that are not remote topics of this source',
  prefixed: 'prefixed ACLs are not copied: topic_sync.acls.prefixed is off',
  'not-replicated': 'no topic it covers is replicated by this flow',
  refused: 'the target refused it',
};

/** `ALLOW User:alice READ, LITERAL topic primary.orders, host *`. */
const aclText = (acl: TopicAcl): string => `${acl.permission} ${acl.principal} ${acl.operation}, ${acl.patternType} topic ${acl.name}, host ${acl.host}`;

/**
 * The ACLs the sync would create (drift), then those it does not copy (information). ACLs of
 * topics the flow does not replicate are counted, not listed: on a shared cluster they are most.
 */
function formatAcls(flow: FlowDiff, acls: AclDiff): string[] {
  if ('notCompared' in acls) return [`  Topic ACLs: not compared (${acls.notCompared})`];
  const lines = acls.missing.map((acl) => `  ✗ ACL missing on ${flow.target}: ${aclText(acl)} (the ACL sync creates it)`);
  const elsewhere = acls.skipped.filter((s) => s.reason === 'not-replicated').length;
  for (const { acl, reason } of acls.skipped) {
    if (reason !== 'not-replicated') lines.push(`  · ACL of ${flow.source} not copied: ${aclText(acl)} (${SKIPPED_BECAUSE[reason]})`);
  }
  if (elsewhere > 0) lines.push(`  · ${elsewhere} ACL${elsewhere === 1 ? '' : 's'} of ${flow.source} not copied: ${SKIPPED_BECAUSE['not-replicated']}`);
  lines.push(`  ${acls.present} topic ACL${acls.present === 1 ? '' : 's'} in sync`);
  return lines;
}
