/**
 * A share group's own configs copied with its start offsets: where its consumers start on a
 * partition it has no start offset on (`share.auto.offset.reset`, `latest` unless set), what they
 * read (`share.isolation.level`), how long a record stays locked, how often it is delivered. They
 * are group configs of each cluster (`kafka-configs.sh --entity-type groups`, Kafka 4.0+), set by
 * hand; a target group without them behaves otherwise than the source's after a failover.
 *
 * Copied: every `share.` config set on the source group (config source `group`), where the
 * target's value differs. Never deleted on the target, never copied from a broker default.
 */
import type { TopicConfigChange, TopicConfigEntry } from '../../core/ports/cluster-admin';

/** The changes that give the target group (`target`, its configs) the share configs set on the source group (`source`). */
export function shareGroupConfigChanges(source: readonly TopicConfigEntry[], target: readonly TopicConfigEntry[]): TopicConfigChange[] {
  const current = new Map(target.map((e) => [e.name, e.value]));
  const changes: TopicConfigChange[] = [];
  for (const e of source) {
    if (e.source !== 'group' || e.value === null || !e.name.startsWith('share.')) continue;
    if (current.get(e.name) === e.value) continue;
    changes.push({ op: 'set', name: e.name, value: e.value });
  }
  return changes.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** `name=value, …` of set changes, for logs and plans. */
export function describeConfigChanges(changes: readonly TopicConfigChange[]): string {
  return changes.map((c) => (c.op === 'set' ? `${c.name}=${c.value}` : `-${c.name}`)).join(', ');
}
