/**
 * MM2's driver (`MirrorMakerConfig`) as an algorithm over the file's properties: which herders
 * (flows) exist, and the connector, client and worker configs each flow sees, with MM2's
 * precedence exactly (MirrorMakerConfig's clusterPairs and connectorBaseConfig), oddities included:
 *   - a top-level key reaches the flows only if a connector knows it (`topics` does,
 *     `consumer.isolation.level` and `use.defaults.from` do not: they are dropped);
 *   - top-level connection settings (bootstrap.servers, security.protocol, ssl.*, sasl.*) are
 *     inherited by every cluster that does not set its own;
 *   - `A->B.<key>` wins over everything, except that a cluster's `A.consumer.x` arrives as
 *     `source.consumer.x`, which beats the flow's `A->B.consumer.x` (it arrives as `consumer.x`);
 *   - a flow is off unless `A->B.enabled` (or a top-level `enabled`) says true, yet a herder, and so
 *     heartbeats, exist for every ordered pair unless heartbeats are turned off;
 *   - herder existence reads `A->B.enabled` with Java's Boolean.parseBoolean (no trimming), while
 *     the connector parses the same value as a config boolean (trimmed).
 * Every value keeps the property it came from, so a mapped setting can name its key and line.
 */
import { isConnectorKey, WORKER_TOP_LEVEL_PREFIXES } from './mm2-keys';
import { CLIENT_ROLES, isSharedClientKey, type ClientRole } from './mm2-client-keys';
import type { Mm2Property } from './mm2-document';

export type Side = 'source' | 'target';

export interface HerderPair {
  readonly source: string;
  readonly target: string;
}

type Props = ReadonlyMap<string, Mm2Property>;

export class Mm2DriverConfig {
  constructor(
    /** The file's properties by key; a later entry of a key already replaced the earlier one. */
    private readonly props: Props,
    /** The `clusters` list, checked by the caller. */
    readonly clusters: readonly string[],
  ) {}

  get(key: string): Mm2Property | undefined {
    return this.props.get(key);
  }

  /** MirrorMakerConfig.clusterPairs: a herder for every ordered pair whose flow is enabled or whose heartbeats are on. */
  herderPairs(): HerderPair[] {
    const global = this.props.get('emit.heartbeats.enabled');
    const globalHeartbeats = global === undefined ? true : javaParseBoolean(global.value);
    const pairs: HerderPair[] = [];
    for (const source of this.clusters) {
      for (const target of this.clusters) {
        if (source === target) continue;
        const prefix = `${source}->${target}.`;
        const enabled = javaParseBoolean(this.props.get(`${prefix}enabled`)?.value);
        const own = this.props.get(`${prefix}emit.heartbeats.enabled`);
        const heartbeats = own === undefined ? globalHeartbeats : javaParseBoolean(own.value);
        if (enabled || heartbeats) pairs.push({ source, target });
      }
    }
    return pairs;
  }

  /** `MirrorMakerConfig.clusterProps(c)`: the cluster's own keys plus inherited connection settings. */
  clusterProps(alias: string): Map<string, Mm2Property> {
    const props = this.withPrefixStripped(`${alias}.`);
    for (const [key, prop] of [...props]) {
      if (!isSharedClientKey(key)) continue;
      for (const role of CLIENT_ROLES) putIfAbsent(props, `${role}.${key}`, prop);
    }
    for (const [key, prop] of this.props) {
      if (!isSharedClientKey(key)) continue;
      for (const role of CLIENT_ROLES) putIfAbsent(props, `${role}.${key}`, prop);
      putIfAbsent(props, key, prop);
    }
    return props;
  }

  /** `connectorBaseConfig(source->target)`, the same for the three connectors of a flow. */
  connectorConfig(pair: HerderPair): Map<string, Mm2Property> {
    const config = new Map<string, Mm2Property>();
    // 1. Top-level keys the connector definitions know; the rest is dropped.
    for (const [key, prop] of this.props) if (isConnectorKey(key)) config.set(key, prop);
    // 2. Provider and policy settings, whatever their name.
    for (const [key, prop] of this.props) {
      if (key.startsWith('config.providers') || key.startsWith('replication.policy')) config.set(key, prop);
    }
    // 3. The clusters' settings, as source.cluster.* / source.consumer.* and target.*.
    for (const [side, alias] of [
      ['source', pair.source],
      ['target', pair.target],
    ] as const) {
      for (const [key, prop] of this.clusterProps(alias)) {
        const role = CLIENT_ROLES.find((r) => key.startsWith(`${r}.`));
        config.set(role === undefined ? `${side}.cluster.${key}` : `${side}.${key}`, prop);
      }
    }
    // 4. What the driver fills in.
    putIfAbsent(config, 'source.cluster.alias', { key: 'source.cluster.alias', value: pair.source });
    putIfAbsent(config, 'target.cluster.alias', { key: 'target.cluster.alias', value: pair.target });
    // 5. The flow's own keys win.
    for (const [key, prop] of this.withPrefixStripped(`${pair.source}->${pair.target}.`)) config.set(key, prop);
    // 6. Off unless enabled.
    putIfAbsent(config, 'enabled', { key: 'enabled', value: 'false' });
    return config;
  }

  /**
   * One client of a flow (`MirrorConnectorConfig.sourceConsumerConfig` and friends): the side's
   * connection settings, then `<role>.*`, then `<side>.<role>.*`, each winning over the last.
   */
  clientConfig(connector: ReadonlyMap<string, Mm2Property>, side: Side, role: ClientRole): Map<string, Mm2Property> {
    const config = new Map<string, Mm2Property>();
    for (const [key, prop] of stripped(connector, `${side}.cluster.`)) if (isSharedClientKey(key)) config.set(key, prop);
    for (const [key, prop] of stripped(connector, `${role}.`)) config.set(key, prop);
    for (const [key, prop] of stripped(connector, `${side}.${role}.`)) config.set(key, prop);
    // Connect's per-connector override of its worker's producer, the one that writes the flow's records.
    if (side === 'target' && role === 'producer') for (const [key, prop] of stripped(connector, 'producer.override.')) config.set(key, prop);
    if (side === 'source' && role === 'consumer') {
      config.set('enable.auto.commit', { key: 'enable.auto.commit', value: 'false' });
      putIfAbsent(config, 'auto.offset.reset', { key: 'auto.offset.reset', value: 'earliest' });
    }
    return config;
  }

  /** `workerConfig(->target)`: the Connect worker of herders that write to `target`. */
  workerConfig(target: string): Map<string, Mm2Property> {
    const config = this.clusterProps(target);
    for (const [key, prop] of this.props) {
      if (WORKER_TOP_LEVEL_PREFIXES.some((prefix) => key.startsWith(prefix))) config.set(key, prop);
    }
    return config;
  }

  private withPrefixStripped(prefix: string): Map<string, Mm2Property> {
    return stripped(this.props, prefix);
  }
}

function stripped(props: ReadonlyMap<string, Mm2Property>, prefix: string): Map<string, Mm2Property> {
  const out = new Map<string, Mm2Property>();
  for (const [key, prop] of props) if (key.startsWith(prefix)) out.set(key.slice(prefix.length), prop);
  return out;
}

function putIfAbsent(map: Map<string, Mm2Property>, key: string, prop: Mm2Property): void {
  if (!map.has(key)) map.set(key, prop);
}

/** `Boolean.parseBoolean`: true only for "true" in any case, nothing trimmed; null is false. */
export function javaParseBoolean(value: string | undefined): boolean {
  return value !== undefined && value.toLowerCase() === 'true';
}
