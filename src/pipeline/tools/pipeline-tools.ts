/**
 * What the pipeline's tools (`offsets translate`, `clusters upstream`, `failover`) share: the
 * pipeline file loaded as `run` loads it, Kafka clients for its clusters, the flow a command is
 * about, and the replication policy that names topics on each cluster.
 */
import type { FlowConfig, PipelineConfig } from '../../config';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { GroupReader } from '../../core/ports/group-reader';
import { MirrorflowError } from '../../core/errors';
import type { RecordWriter } from '../../core/ports/record-writer';
import { createReplicationPolicy, type ReplicationPolicy } from '../../policy';
import { createKafkaClients } from '../wiring/clients';
import { flowReplicationPolicy } from '../wiring/flow-policy';
import { toClusterConnection } from '../wiring/cluster-connection';
import { loadPipeline } from '../load-pipeline';
import { MirrorClient } from './mirror-client';
import { ToolUsageError } from './tool-errors';

export interface OpenPipelineToolsOptions {
  readonly file: string;
  readonly set?: readonly string[];
  readonly pluginDirs?: readonly string[];
  readonly logger: Logger;
  /** Replaces the kafkajs clients (tests may put fakes behind the ports). */
  readonly clients?: KafkaClients;
}

/** The two ends of a flow, as a command names them (`--from`, `--to`). */
export interface DirectionRequest {
  readonly from?: string;
  readonly to?: string;
}

/** The flow a command works on and the policy that names its topics. */
export interface FlowDirection {
  readonly source: string;
  readonly target: string;
  readonly flow: FlowConfig;
  readonly policy: ReplicationPolicy;
}

export class PipelineTools {
  private constructor(
    readonly config: PipelineConfig,
    readonly file: string,
    private readonly clients: KafkaClients,
    readonly logger: Logger,
  ) {}

  /** Loads and checks the pipeline file (nothing connects yet). */
  static async open(options: OpenPipelineToolsOptions): Promise<PipelineTools> {
    const { config } = await loadPipeline(options.file, { set: options.set, pluginDirs: options.pluginDirs });
    const clients =
      options.clients ?? createKafkaClients(Object.values(config.clusters).map(toClusterConnection), options.logger, `mirrorflow-${config.name}-tools`);
    return new PipelineTools(config, options.file, clients, options.logger);
  }

  /**
   * Tools over a configuration already loaded (a running pipeline's), with clients of their own:
   * `config` is read at each use, so a reload is followed.
   */
  static fromConfig(config: PipelineConfig, file: string, logger: Logger, clients?: KafkaClients): PipelineTools {
    return new PipelineTools(
      config,
      file,
      clients ?? createKafkaClients(Object.values(config.clusters).map(toClusterConnection), logger, `mirrorflow-${config.name}-tools`),
      logger,
    );
  }

  /** The same clients over another configuration of the same clusters (a reloaded pipeline). */
  withConfig(config: PipelineConfig): PipelineTools {
    return new PipelineTools(config, this.file, this.clients, this.logger);
  }

  get clusterAliases(): string[] {
    return Object.keys(this.config.clusters).sort();
  }

  /** Throws a ToolUsageError naming the declared clusters when `alias` is not one of them. */
  requireCluster(alias: string, flag: string): void {
    if (this.config.clusters[alias] === undefined) {
      throw new ToolUsageError(`${flag} ${alias}: the pipeline ${this.file} has no cluster "${alias}"; its clusters are ${this.clusterAliases.join(', ')}.`);
    }
  }

  /**
   * The flow `from->to`. Either end may be left out when the pipeline's flows (its enabled ones,
   * if any match) leave only one choice; otherwise the error lists the flows to pick from.
   */
  direction(request: DirectionRequest): FlowDirection {
    if (request.from !== undefined) this.requireCluster(request.from, '--from');
    if (request.to !== undefined) this.requireCluster(request.to, '--to');
    if (request.from !== undefined && request.from === request.to) {
      throw new ToolUsageError(`--from and --to are both "${request.from}"; they must be two different clusters.`);
    }
    const matching = this.config.flows.filter(
      (f) => (request.from === undefined || f.source === request.from) && (request.to === undefined || f.target === request.to),
    );
    // A disabled flow (an mm2.properties pair kept for its heartbeats) counts only when named.
    const enabled = matching.filter((f) => f.enabled);
    const candidates = matching.length > 1 && enabled.length > 0 ? enabled : matching;
    const all = this.config.flows.map((f) => f.name).join(', ');
    if (candidates.length === 0) {
      const wanted = `${request.from ?? '*'}->${request.to ?? '*'}`;
      throw new ToolUsageError(`The pipeline ${this.file} has no flow ${wanted}; its flows are ${all}.`);
    }
    if (candidates.length > 1) {
      throw new ToolUsageError(`The pipeline ${this.file} has several flows (${candidates.map((f) => f.name).join(', ')}); say which with --from and --to.`);
    }
    const flow = candidates[0]!;
    return { source: flow.source, target: flow.target, flow, policy: flowReplicationPolicy(flow) };
  }

  /**
   * The policy that names topics on `cluster`: that of the flows into it (they create its remote
   * topics), else of the flows out of it, else MM2's default.
   */
  clusterPolicy(cluster: string): ReplicationPolicy {
    const flow = this.config.flows.find((f) => f.target === cluster) ?? this.config.flows.find((f) => f.source === cluster);
    return flow ? flowReplicationPolicy(flow) : createReplicationPolicy({ type: 'default' });
  }

  admin(cluster: string): ClusterAdmin {
    return this.clients.admin(cluster);
  }

  reader(cluster: string): TopicReader {
    return this.clients.reader(cluster);
  }

  /** An idempotent writer on `cluster` for the tools' own records (a migration's state). */
  writer(cluster: string): RecordWriter {
    return this.clients.writer(cluster, { role: 'tools', compression: 'none' });
  }

  /** Reads topics as a consumer group member on `cluster` (the DR drill). */
  groupReader(cluster: string): GroupReader {
    if (this.clients.groupReader === undefined) throw new MirrorflowError('These Kafka clients cannot read as a consumer group.');
    return this.clients.groupReader(cluster);
  }

  mirrorClient(cluster: string, policy: ReplicationPolicy = this.clusterPolicy(cluster)): MirrorClient {
    return new MirrorClient({ admin: this.clients.admin(cluster), reader: this.clients.reader(cluster), policy, logger: this.logger });
  }

  /** Fails with ClusterUnavailableError (exit 69) when the cluster cannot be reached. */
  checkReachable(cluster: string): Promise<void> {
    return this.clients.checkReachable(cluster);
  }

  close(): Promise<void> {
    return this.clients.close();
  }
}
