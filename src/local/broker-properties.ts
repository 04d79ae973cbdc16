/**
 * The `server.properties` of a node of a local KRaft cluster: each JVM is both broker and
 * controller, the controllers of the cluster form a static quorum (every node lists every voter,
 * so `kafka-storage format` needs no `--standalone`), PLAINTEXT on loopback only. Settings are
 * tuned for tests and demos on a small machine; a cluster of three or more nodes keeps what
 * production relies on (replication factor 3, two in-sync replicas for every write).
 */

export interface BrokerPropertiesInput {
  /** Port for clients (PLAINTEXT listener). */
  readonly brokerPort: number;
  /** Port for the KRaft controller listener. */
  readonly controllerPort: number;
  /** Folder for the log segments and the metadata log. */
  readonly dataDir: string;
  readonly host?: string;
  /** This node's id (`node.id`). Default 1. */
  readonly nodeId?: number;
  /**
   * Every controller of the cluster, this node among them (`controller.quorum.voters`), in id
   * order; their count is the cluster's size. Default this node alone: a single-node cluster.
   */
  readonly voters?: readonly QuorumVoter[];
  /** Free ports reserved for this node's listeners that `overrides` add (StartClusterOptions.extraPorts). */
  readonly extraPorts?: readonly number[];
  /** Extra or replacing settings; a value of `undefined` removes a default. */
  readonly overrides?: BrokerPropertyOverrides;
}

/** A controller of the quorum: a node's id and where its controller listener is. */
export interface QuorumVoter {
  readonly id: number;
  readonly host: string;
  readonly controllerPort: number;
}

/** Where a broker listens, for settings that must name its ports. */
export interface BrokerAddress {
  readonly host: string;
  readonly brokerPort: number;
  readonly controllerPort: number;
  /** The node's id within its cluster (1 in a single-node cluster). */
  readonly nodeId: number;
  /** Free ports the launcher reserved for this node, for listeners the overrides add. */
  readonly extraPorts: readonly number[];
}

/**
 * A setting's value; `undefined` removes a default. A function is given the ports the launcher
 * chose, which callers cannot know beforehand: a test that adds a listener must repeat the
 * launcher's own in `listeners` and `advertised.listeners`.
 */
export type BrokerPropertyValue = string | undefined | ((address: BrokerAddress) => string);
export type BrokerPropertyOverrides = Readonly<Record<string, BrokerPropertyValue>>;

/** Defaults that do not depend on ports or folders. Exported so tests and docs can show them. */
export const LOCAL_BROKER_DEFAULTS: Readonly<Record<string, string>> = {
  // One node: every replication factor and ISR minimum must be 1 or topics cannot be created
  // (replicationDefaults raises them for a cluster of several nodes).
  'num.partitions': '1',
  'default.replication.factor': '1',
  'min.insync.replicas': '1',
  'offsets.topic.replication.factor': '1',
  'transaction.state.log.replication.factor': '1',
  'transaction.state.log.min.isr': '1',
  'share.coordinator.state.topic.replication.factor': '1',
  'share.coordinator.state.topic.min.isr': '1',
  // The default 50 partitions each make the first group or transaction wait for 50 logs.
  'offsets.topic.num.partitions': '5',
  'transaction.state.log.num.partitions': '5',
  // Tests join groups constantly; the 3 s default delay would slow every one of them.
  'group.initial.rebalance.delay.ms': '0',
  // Code that forgets to create a topic must fail in tests as it would on a managed cluster.
  'auto.create.topics.enable': 'false',
  'delete.topic.enable': 'true',
  // Retention tests should not wait the default 5 minutes for the cleaner to look.
  'log.retention.check.interval.ms': '10000',
  // The cleaner takes 128 MiB of a 512 MiB heap by default; compacted topics here are small.
  'log.cleaner.dedupe.buffer.size': '16777216',
  // A faster heartbeat unfences the freshly started broker sooner, so it answers sooner.
  'broker.heartbeat.interval.ms': '500',
  // Fewer threads than the production defaults: the test machines have two cores.
  'num.network.threads': '2',
  'num.io.threads': '4',
  'num.recovery.threads.per.data.dir': '1',
};

/**
 * What a cluster of several nodes changes in LOCAL_BROKER_DEFAULTS: every topic, the internal
 * ones too, replicated to min(nodes, 3) brokers, and (from three nodes on) a write acknowledged
 * with acks=all only once two replicas hold it, as production clusters are run. A replica that
 * fell out of the ISR never becomes leader (no unclean election: that would lose acknowledged
 * records, which is what the tests on these clusters look for).
 */
export function replicationDefaults(nodes: number): Readonly<Record<string, string>> {
  if (nodes <= 1) return {};
  const factor = String(Math.min(nodes, 3));
  const minIsr = nodes >= 3 ? '2' : '1';
  return {
    'default.replication.factor': factor,
    'min.insync.replicas': minIsr,
    'offsets.topic.replication.factor': factor,
    'transaction.state.log.replication.factor': factor,
    'transaction.state.log.min.isr': minIsr,
    'share.coordinator.state.topic.replication.factor': factor,
    'share.coordinator.state.topic.min.isr': minIsr,
    'unclean.leader.election.enable': 'false',
  };
}

export function brokerProperties(input: BrokerPropertiesInput): Record<string, string> {
  const host = input.host ?? '127.0.0.1';
  const nodeId = input.nodeId ?? 1;
  const voters = input.voters ?? [{ id: nodeId, host, controllerPort: input.controllerPort }];
  const base: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(nodeId),
    'controller.quorum.voters': voters.map((voter) => `${voter.id}@${voter.host}:${voter.controllerPort}`).join(','),
    listeners: `PLAINTEXT://${host}:${input.brokerPort},CONTROLLER://${host}:${input.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${host}:${input.brokerPort}`,
    'inter.broker.listener.name': 'PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': input.dataDir,
    ...LOCAL_BROKER_DEFAULTS,
    ...replicationDefaults(voters.length),
  };
  const address: BrokerAddress = { host, brokerPort: input.brokerPort, controllerPort: input.controllerPort, nodeId, extraPorts: input.extraPorts ?? [] };
  for (const [key, value] of Object.entries(input.overrides ?? {})) {
    if (value === undefined) delete base[key];
    else base[key] = typeof value === 'function' ? value(address) : value;
  }
  return base;
}

/** Renders properties in Java `.properties` syntax, escaping what Java would misread. */
export function renderProperties(properties: Readonly<Record<string, string>>, header?: string): string {
  const lines: string[] = [];
  if (header !== undefined) for (const line of header.split('\n')) lines.push(`# ${line}`);
  for (const [key, value] of Object.entries(properties)) {
    lines.push(`${escapeProperty(key, true)}=${escapeProperty(value, false)}`);
  }
  return lines.join('\n') + '\n';
}

function escapeProperty(text: string, isKey: boolean): string {
  let out = '';
  for (const [index, char] of [...text].entries()) {
    switch (char) {
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '=':
      case ':':
        out += isKey ? `\\${char}` : char;
        break;
      case '#':
      case '!':
        out += index === 0 ? `\\${char}` : char;
        break;
      case ' ':
        out += isKey || index === 0 ? '\\ ' : ' ';
        break;
      default:
        out += char;
    }
  }
  return out;
}
