/**
 * One remote topic's configs against its source's: what the periodic config sync changes, and
 * why the differences it leaves are left. Both the sync (`src/flow/topics/topic-config-sync.ts`) and
 * `mirrorflow diff` use it, so the report says exactly what the sync would do.
 *
 * The operations are MM2's (`MirrorSourceConnector.syncTopicConfigs`, see `alterConfigOps`), but
 * only those that change something are kept: MM2 sends every SET and DELETE at every interval;
 * here a SET whose value the target already has, or a DELETE of an override the target does not
 * have, is left out, so an unchanged topic costs no write and an unchanged config never fails.
 */
import type { TopicConfigChange, TopicConfigEntry } from '../core/ports/cluster-admin';
import { alterConfigOps, type ConfigPropertyFilter } from './config-property-filter';

export interface ConfigDifference {
  readonly name: string;
  /** The source's value; null when the source has no such config or does not show it. */
  readonly sourceValue: string | null;
  /** The target's value; null when the target has no such config or does not show it. */
  readonly targetValue: string | null;
  /** What the sync does about it; absent when it leaves the difference. */
  readonly change?: TopicConfigChange;
  /** Why the sync leaves it (when there is no change). */
  readonly keptBecause?: string;
}

/** Why MM2's `targetConfig` leaves out a source entry, or undefined when it keeps it. */
function whyNotSynced(filter: ConfigPropertyFilter, e: TopicConfigEntry): string | undefined {
  if (!filter.shouldReplicateConfigProperty(e.name)) return 'excluded by topic_sync.configs_exclude';
  if (e.readOnly) return 'read-only on the source';
  if (e.sensitive) return 'sensitive: its value cannot be read';
  if (e.source === 'static-broker') return "the source's value comes from its broker's static configuration, which is not copied";
  return undefined;
}

/**
 * The configs of a remote topic that differ from its source topic's, or that the sync would
 * change, sorted by name. `syncEnabled` false (topic_sync.sync_configs) keeps every difference.
 */
export function compareTopicConfigs(
  filter: ConfigPropertyFilter,
  source: readonly TopicConfigEntry[],
  target: readonly TopicConfigEntry[],
  syncEnabled = true,
): ConfigDifference[] {
  const targetByName = new Map(target.map((e) => [e.name, e]));
  const ops = new Map(alterConfigOps(filter, source).map((op) => [op.name, op]));
  const differences: ConfigDifference[] = [];
  for (const e of source) {
    const t = targetByName.get(e.name);
    const targetValue = t?.value ?? null;
    const base = { name: e.name, sourceValue: e.value, targetValue };
    const op = syncEnabled ? ops.get(e.name) : undefined;
    if (op?.op === 'delete') {
      // Back to the target's default: only a topic-level override there needs deleting.
      if (t?.source === 'topic') differences.push({ ...base, change: { op: 'delete', name: e.name } });
      else if (targetValue !== e.value) {
        differences.push({ ...base, keptBecause: "at its default on the source; use_defaults_from 'target' keeps the target's default" });
      }
      continue;
    }
    if (op?.op === 'set' && op.value !== null) {
      if (t === undefined || t.value !== op.value) differences.push({ ...base, change: { op: 'set', name: e.name, value: op.value } });
      continue;
    }
    if (targetValue === e.value && t !== undefined) continue;
    const reason = !syncEnabled
      ? 'topic_sync.sync_configs is false'
      : t === undefined
        ? 'the target has no such config'
        : (whyNotSynced(filter, e) ?? 'the source shows no value to copy');
    differences.push({ ...base, keptBecause: reason });
  }
  const sourceNames = new Set(source.map((e) => e.name));
  for (const t of target) {
    if (!sourceNames.has(t.name) && t.source === 'topic')
      differences.push({ name: t.name, sourceValue: null, targetValue: t.value, keptBecause: 'the source has no such config' });
  }
  return differences.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The changes the sync makes to one remote topic (the differences that have one). */
export function configChanges(differences: readonly ConfigDifference[]): TopicConfigChange[] {
  return differences.flatMap((d) => (d.change === undefined ? [] : [d.change]));
}
