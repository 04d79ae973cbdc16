/**
 * Which source topic configs reach the remote topic: MM2's `ConfigPropertyFilter`,
 * `DefaultConfigPropertyFilter` (`config.properties.exclude`, `use.defaults.from`) and the
 * selection in `MirrorSourceConnector.targetConfig` / `syncTopicConfigs`.
 */
import type { TopicConfigEntry } from '../core/ports/cluster-admin';
import { compilePatternList, type PatternList } from './pattern-list';

export type { TopicConfigEntry };

export interface ConfigPropertyFilter {
  shouldReplicateConfigProperty(name: string): boolean;
  /** Whether a property that is at its default on the source is copied (else the target's default applies). */
  shouldReplicateSourceDefault(name: string): boolean;
}

/**
 * `config.properties.exclude` default in Kafka 4.3.1, verbatim (its dots are unescaped regex
 * dots, as in MM2). These are never synced.
 */
export const DEFAULT_CONFIG_PROPERTIES_EXCLUDE: readonly string[] = [
  'follower.replication.throttled.replicas',
  'leader.replication.throttled.replicas',
  'message.timestamp.difference.max.ms',
  'log.message.timestamp.before.max.ms',
  'log.message.timestamp.after.max.ms',
  'message.timestamp.type',
  'unclean.leader.election.enable',
  'min.insync.replicas',
];

export interface DefaultConfigPropertyFilterOptions {
  readonly exclude?: readonly string[];
  /** `use.defaults.from`: whose defaults a remote topic gets; default `target`. */
  readonly useDefaultsFrom?: 'source' | 'target';
}

export class DefaultConfigPropertyFilter implements ConfigPropertyFilter {
  private readonly exclude: PatternList;
  private readonly useDefaultsFrom: 'source' | 'target';

  /** Throws `InvalidPatternError` (naming the entry) for an invalid regex. */
  constructor(options: DefaultConfigPropertyFilterOptions = {}) {
    this.exclude = compilePatternList(options.exclude ?? DEFAULT_CONFIG_PROPERTIES_EXCLUDE);
    this.useDefaultsFrom = options.useDefaultsFrom ?? 'target';
  }

  shouldReplicateConfigProperty(name: string): boolean {
    return !this.exclude.matches(name);
  }

  shouldReplicateSourceDefault(_name: string): boolean {
    return this.useDefaultsFrom === 'source';
  }
}

/**
 * MM2's `targetConfig(sourceConfig, incremental)`: the source entries to carry over. An entry is
 * kept when it is non-default (or incremental, or a default the filter wants copied), neither
 * read-only nor sensitive, not from the static broker config, and not excluded by name.
 * `isDefault` must mean "source is the built-in default": dynamic broker defaults count as set.
 */
export function targetConfig(filter: ConfigPropertyFilter, entries: readonly TopicConfigEntry[], incremental: boolean): TopicConfigEntry[] {
  return entries.filter(
    (e) =>
      (incremental || (e.isDefault && filter.shouldReplicateSourceDefault(e.name)) || !e.isDefault) &&
      !e.readOnly &&
      !e.sensitive &&
      e.source !== 'static-broker' &&
      filter.shouldReplicateConfigProperty(e.name),
  );
}

/** Configs for a new remote topic (MM2's `targetConfig(…, false)` as a map); null values are left out. */
export function newTopicConfigs(filter: ConfigPropertyFilter, entries: readonly TopicConfigEntry[]): Record<string, string> {
  const configs: Record<string, string> = {};
  for (const e of targetConfig(filter, entries, false)) if (e.value !== null) configs[e.name] = e.value;
  return configs;
}

/** One `IncrementalAlterConfigs` operation on a remote topic. */
export type AlterConfigOp = { readonly op: 'set'; readonly name: string; readonly value: string | null } | { readonly op: 'delete'; readonly name: string };

/**
 * MM2's periodic config sync for one remote topic: every entry that `targetConfig(…, true)` keeps
 * is SET to the source value, except source defaults the filter does not copy, which are DELETEd
 * so the target falls back to its own default (how a property removed on the source is reset).
 */
export function alterConfigOps(filter: ConfigPropertyFilter, entries: readonly TopicConfigEntry[]): AlterConfigOp[] {
  return targetConfig(filter, entries, true).map((e): AlterConfigOp => {
    if (e.isDefault && !filter.shouldReplicateSourceDefault(e.name)) return { op: 'delete', name: e.name };
    return { op: 'set', name: e.name, value: e.value };
  });
}
