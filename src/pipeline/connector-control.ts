import { connectorSettings, readTexts, type ConnectorConfigText, type FlowConfig, type PipelineConfig } from '../config';
import { ConfigError, MirrorflowError, formatConfigIssue } from '../core/errors';
import type { Logger } from '../core/ports/logger';
import type { PluginRegistry } from '../plugins';
import type { ProgressStore } from '../flow/progress/progress-store';
import { CONNECTOR_CLASSES, type ConnectorClass, type ConnectorRef, type ConnectorView, type StoredOffset } from '../telemetry/connect-api';
import type { SourceOffsetChange } from '../telemetry/connect-offsets-body';
import { ConnectRestError, type ConnectorWrites, type InitialState, notStoppedMessage } from '../telemetry/connect-writes';
import { loadPipelineTexts } from './load-pipeline';
import type { Pipeline } from './pipeline';
import type { ReloadPlan } from './reload-plan';

export interface ConnectorControlOptions {
  readonly pipeline: Pipeline;
  /** The files the pipeline was read from. */
  readonly files: readonly string[];
  /** Their texts when they are MM2 connector configs (Connect's JSON or properties); undefined for a pipeline YAML or a driver file. */
  readonly connectorTexts: readonly ConnectorConfigText[] | undefined;
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly unknownKeys?: 'error' | 'warn';
  readonly logger: Logger;
}

/**
 * What the Connect-style write routes do to a running pipeline (src/telemetry/connect-writes.ts).
 * Every change is a new configuration applied through `Pipeline.reload`, as a change of the file
 * is, so a REST change and the same change made in the file do the same:
 *
 * - `PUT …/config` (pipelines made from connector configs only) puts the config in place of the
 *   connector's file among the others, and reads them all as `mirrorflow run` reads the files;
 * - `DELETE` turns the connector's part of its flow off (MirrorSourceConnector: replication and
 *   checkpoints; MirrorCheckpointConnector: checkpoints; MirrorHeartbeatConnector: heartbeats);
 * - `pause` and `stop` do the same but remember it, so status shows PAUSED or STOPPED and
 *   `resume` turns it on again; a stopped MirrorSourceConnector's offsets — its flow's progress —
 *   may be changed (`alterOffsets`, `resetOffsets`), and the flow resumes from them;
 * - `restart` stops the connector's flow (drained, progress stored) and starts it again;
 * - `create` (`POST /connectors`) is a `PUT …/config` of a connector that does not run yet,
 *   paused or stopped before anything starts when its initial state says so.
 *
 * Nothing is persisted: Connect keeps REST configs in its config topic, here the files stay what
 * a restart reads. A REST change holds until the files change (or SIGHUP): then the files are
 * applied, with the connectors still paused or stopped kept so.
 */
export class ConnectorControl implements ConnectorWrites {
  private base: PipelineConfig;
  private texts: ConnectorConfigText[] | undefined;
  private readonly pausedRefs = new Map<string, ConnectorRef>();
  private readonly stoppedRefs = new Map<string, ConnectorRef>();
  /** Records per topic when each connector's active topics were last reset. */
  private readonly topicBaselines = new Map<string, ReadonlyMap<string, number>>();

  constructor(private readonly options: ConnectorControlOptions) {
    this.base = options.pipeline.config;
    this.texts = options.connectorTexts === undefined ? undefined : [...options.connectorTexts];
  }

  get applying(): boolean {
    return this.options.pipeline.applying;
  }

  get flows(): ConnectorView['flows'] {
    return this.options.pipeline.snapshots();
  }

  get paused(): readonly ConnectorRef[] {
    return [...this.pausedRefs.values()];
  }

  get stopped(): readonly ConnectorRef[] {
    return [...this.stoppedRefs.values()];
  }

  /** Connectors whose flow is being restarted now. */
  readonly restarting = new Set<string>();

  /** A pipeline of connector configs has the connectors it was given (or PUT, or POST); any other has all of its flows'. */
  readonly exists = (c: ConnectorRef): boolean => this.texts === undefined || this.textOf(c.name) !== undefined;

  readonly topicsReset = (c: ConnectorRef): ReadonlyMap<string, number> | undefined => this.topicBaselines.get(c.name);

  /** A stopped MirrorSourceConnector's offsets: its flow's progress as stored. */
  readonly storedOffsets = async (c: ConnectorRef): Promise<readonly StoredOffset[]> => {
    const flow = this.flowOf(c);
    if (flow === undefined) return [];
    const stored = await this.options.pipeline.readProgress(flow);
    return stored.map((e) => ({ topic: e.tp.topic, partition: e.tp.partition, offset: e.offset }));
  };

  /** The connector's config as given (its file, or the last PUT); undefined for a pipeline not made from connector configs. */
  readonly config = (c: ConnectorRef): Readonly<Record<string, string>> | undefined => this.textOf(c.name)?.settings;

  /** The changed pipeline file applied (reload-on-change): the files win over REST changes; paused and stopped connectors stay so. */
  async applyFile(next: PipelineConfig, registry: PluginRegistry): Promise<ReloadPlan> {
    const plan = await this.options.pipeline.reload(this.masked(next), registry);
    this.base = next;
    if (this.texts !== undefined) {
      try {
        this.texts = await readTexts(this.options.files);
      } catch (error) {
        // Being replaced again, say: the next change of the files reads them once more.
        this.options.logger.warn('The connector configs could not be read again; the REST API keeps those read before until the files change again.', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return plan;
  }

  putConfig(name: string, config: Readonly<Record<string, string>>): Promise<{ created: boolean; connector: ConnectorRef }> {
    return this.applyConfig(name, config);
  }

  async create(name: string, config: Readonly<Record<string, string>>, initial: InitialState): Promise<ConnectorRef> {
    const { connector } = await this.applyConfig(name, config, { initial });
    return connector;
  }

  /**
   * The config in place of its connector's (or added); `create` refuses a connector that runs
   * already (409), and puts a new one's initial state in place before anything of it starts.
   */
  private async applyConfig(
    name: string,
    config: Readonly<Record<string, string>>,
    create?: { initial: InitialState },
  ): Promise<{ created: boolean; connector: ConnectorRef }> {
    if (this.texts === undefined)
      throw new ConnectRestError(
        400,
        `This pipeline runs from ${this.options.files.join(', ')}, not from connector configs: change it in the file (applied while running). ` +
          'PUT /connectors/{name}/config changes pipelines run from MM2 connector configs (mirrorflow run source.json checkpoint.json heartbeat.json).',
      );
    const text: ConnectorConfigText = { file: `PUT /connectors/${name}/config`, text: JSON.stringify(config, null, 2), format: 'json' };
    const given = connectorSettings(text.file, text.text, text.format);
    const ref = given === undefined ? undefined : refOf(given.source, given.target, given.className);
    if (ref !== undefined) checkName(name, ref);
    // In place of the connector's own text, so the others keep their order.
    const at = ref === undefined ? -1 : this.texts.findIndex((t) => this.keyOf(t) === ref.name);
    const created = at < 0;
    if (create !== undefined && !created) throw new ConnectRestError(409, `Connector ${name} already exists`);
    const texts = created ? [...this.texts, text] : this.texts.map((t, i) => (i === at ? text : t));
    let loaded;
    try {
      // The running name: the pipeline's groups and internal names derive from it.
      loaded = loadPipelineTexts(texts, {
        set: this.options.set,
        pluginDirs: this.options.pluginDirs,
        name: this.options.pipeline.config.name,
        ...(this.options.unknownKeys === undefined ? {} : { unknownKeys: this.options.unknownKeys }),
      });
    } catch (error) {
      if (error instanceof ConfigError) {
        const problems = error.issues.map((issue) => formatConfigIssue(issue));
        throw new ConnectRestError(400, `Connector configuration is invalid and contains the following ${problems.length} error(s):\n${problems.join('\n')}`);
      }
      throw error;
    }
    // A config that reads is a connector of a known class and flow.
    const connector = ref!;
    for (const warning of loaded.warnings) this.options.logger.warn('Configuration note.', { note: formatConfigIssue(warning, 'warning') });
    // KIP-980: created paused or stopped, it never runs first.
    const held = create?.initial === 'PAUSED' ? this.pausedRefs : create?.initial === 'STOPPED' ? this.stoppedRefs : undefined;
    held?.set(connector.name, connector);
    try {
      await this.apply(loaded.config, loaded.registry);
    } catch (error) {
      held?.delete(connector.name);
      throw error;
    }
    this.texts = texts;
    this.options.logger.info(created ? 'A connector was created over the REST API.' : "A connector's config was changed over the REST API.", {
      connector: connector.name,
    });
    return { created, connector };
  }

  async pause(c: ConnectorRef): Promise<void> {
    if (this.pausedRefs.has(c.name)) return;
    await this.hold(c, 'paused');
    this.options.logger.info('A connector was paused over the REST API.', { connector: c.name });
  }

  /** Connect's STOPPED; here as paused (its part of the flow off, drained, progress stored), and its offsets may change. */
  async stop(c: ConnectorRef): Promise<void> {
    if (this.stoppedRefs.has(c.name)) return;
    await this.hold(c, 'stopped');
    this.options.logger.info('A connector was stopped over the REST API.', { connector: c.name });
  }

  async resume(c: ConnectorRef): Promise<void> {
    if (!this.pausedRefs.has(c.name) && !this.stoppedRefs.has(c.name)) return;
    await this.hold(c, undefined);
    this.options.logger.info('A connector was resumed over the REST API.', { connector: c.name });
  }

  async delete(c: ConnectorRef): Promise<void> {
    const next = withoutPart(this.base, ref(c));
    const before = this.held(c);
    this.pausedRefs.delete(c.name);
    this.stoppedRefs.delete(c.name);
    try {
      await this.apply(next);
    } catch (error) {
      this.restore(c, before);
      throw error;
    }
    this.base = next;
    // Connect forgets a deleted connector's active topics.
    this.topicBaselines.delete(c.name);
    if (this.texts !== undefined) this.texts = this.texts.filter((t) => this.keyOf(t) !== c.name);
    this.options.logger.info('A connector was deleted over the REST API.', { connector: c.name });
  }

  resetTopics(c: ConnectorRef, baseline: ReadonlyMap<string, number>): void {
    this.topicBaselines.set(c.name, new Map(baseline));
    this.options.logger.info("A connector's active topics were reset over the REST API.", { connector: c.name });
  }

  async alterOffsets(c: ConnectorRef, changes: readonly SourceOffsetChange[]): Promise<void> {
    const flow = this.stoppedFlow(c);
    const other = changes.find((change) => change.cluster !== c.source);
    if (other !== undefined)
      throw new ConnectRestError(
        400,
        `The offset of ${other.topic}-${other.partition} names cluster ${other.cluster}, but ${c.name} replicates from ${c.source}: its flow reads only offsets whose "cluster" is "${c.source}".`,
      );
    await this.editProgress(flow, (progress) =>
      progress.alter(changes.map((change) => ({ tp: { topic: change.topic, partition: change.partition }, offset: change.offset }))),
    );
    this.options.logger.info("A stopped connector's offsets were altered over the REST API.", { connector: c.name, partitions: changes.length });
  }

  async resetOffsets(c: ConnectorRef): Promise<void> {
    const flow = this.stoppedFlow(c);
    const partitions = await this.editProgress(flow, async (progress) => {
      const stored = progress.stored();
      await progress.alter(stored.map((e) => ({ tp: e.tp, offset: null })));
      return stored.length;
    });
    this.options.logger.info("A stopped connector's offsets were reset over the REST API: its flow starts over.", { connector: c.name, partitions });
  }

  /** The flow of a stopped connector; 400 as Connect answers when it is not stopped. */
  private stoppedFlow(c: ConnectorRef): FlowConfig {
    if (!this.stoppedRefs.has(c.name)) throw new ConnectRestError(400, notStoppedMessage(c.name));
    const flow = this.flowOf(c);
    if (flow === undefined) throw new ConnectRestError(404, `Connector ${c.name} not found`);
    return flow;
  }

  /** Changes the flow's progress; what keeps it from being changed now (another process replicates it) is a 409. */
  private async editProgress<T>(flow: FlowConfig, edit: (progress: ProgressStore) => Promise<T>): Promise<T> {
    try {
      return await this.options.pipeline.editProgress(flow, edit);
    } catch (error) {
      if (error instanceof MirrorflowError) throw new ConnectRestError(409, `The offsets were not changed: ${error.message}`);
      throw error;
    }
  }

  private flowOf(c: ConnectorRef): FlowConfig | undefined {
    return this.base.flows.find((f) => f.source === c.source && f.target === c.target);
  }

  /** Puts the connector in `state` (undefined: running) and applies it; as it was before when that fails. */
  private async hold(c: ConnectorRef, state: 'paused' | 'stopped' | undefined): Promise<void> {
    const before = this.held(c);
    this.restore(c, state);
    try {
      await this.apply(this.base);
    } catch (error) {
      this.restore(c, before);
      throw error;
    }
  }

  private held(c: ConnectorRef): 'paused' | 'stopped' | undefined {
    return this.pausedRefs.has(c.name) ? 'paused' : this.stoppedRefs.has(c.name) ? 'stopped' : undefined;
  }

  private restore(c: ConnectorRef, state: 'paused' | 'stopped' | undefined): void {
    this.pausedRefs.delete(c.name);
    this.stoppedRefs.delete(c.name);
    if (state === 'paused') this.pausedRefs.set(c.name, ref(c));
    if (state === 'stopped') this.stoppedRefs.set(c.name, ref(c));
  }

  async restart(c: ConnectorRef): Promise<void> {
    this.options.logger.info('A connector is restarted over the REST API: its flow stops and starts again.', { connector: c.name });
    this.restarting.add(c.name);
    try {
      await this.options.pipeline.restart(`${c.source}->${c.target}`);
    } finally {
      this.restarting.delete(c.name);
    }
  }

  /** Applies `next` with the paused connectors' parts off; a change that cannot be applied is a 400 naming why. */
  private async apply(next: PipelineConfig, registry?: PluginRegistry): Promise<void> {
    try {
      await this.options.pipeline.reload(this.masked(next), registry);
    } catch (error) {
      if (error instanceof MirrorflowError) throw new ConnectRestError(400, `The change was not applied: ${error.message}`);
      throw error;
    }
    this.base = next;
  }

  private masked(config: PipelineConfig): PipelineConfig {
    return [...this.paused, ...this.stopped].reduce(withoutPart, config);
  }

  private keyOf(text: ConnectorConfigText): string | undefined {
    const s = connectorSettings(text.file, text.text, text.format);
    return s === undefined ? undefined : refOf(s.source, s.target, s.className).name;
  }

  private textOf(name: string): ReturnType<typeof connectorSettings> {
    for (const text of this.texts ?? []) {
      const s = connectorSettings(text.file, text.text, text.format);
      if (s !== undefined && refOf(s.source, s.target, s.className).name === name) return s;
    }
    return undefined;
  }
}

function ref(c: ConnectorRef): ConnectorRef {
  return { name: c.name, type: c.type, source: c.source, target: c.target };
}

function refOf(source: string, target: string, type: ConnectorClass): ConnectorRef {
  return { name: `${source}->${target}.${type}`, type, source, target };
}

/**
 * A connector is named `<source>-><target>.<class>` or by its bare class: the name in the URL must
 * say the class and flow its config says, so a PUT cannot turn one connector into another.
 */
function checkName(name: string, given: ConnectorRef): void {
  const type = CONNECTOR_CLASSES.find((t) => name === t || name.endsWith(`.${t}`));
  if (type === undefined)
    throw new ConnectRestError(
      400,
      `Connector names here are <source>-><target>.<class> or the bare class (e.g. ${given.name}, ${given.type}); ${name} is neither.`,
    );
  if (type !== given.type) throw new ConnectRestError(400, `The connector ${name} is a ${type}, but its config's connector.class is ${given.type}.`);
  if (name !== type && name !== given.name)
    throw new ConnectRestError(
      400,
      `The connector ${name} replicates ${name.slice(0, -type.length - 1)}, but its config's source.cluster.alias and target.cluster.alias make it ${given.name}.`,
    );
}

/** The configuration with the connector's part of its flow turned off. */
function withoutPart(config: PipelineConfig, c: ConnectorRef): PipelineConfig {
  const flow = `${c.source}->${c.target}`;
  const off = (f: FlowConfig): FlowConfig => {
    switch (c.type) {
      case 'MirrorSourceConnector':
        return { ...f, enabled: false };
      case 'MirrorCheckpointConnector':
        return { ...f, checkpoints: { ...f.checkpoints, enabled: false } };
      case 'MirrorHeartbeatConnector':
        return { ...f, heartbeats: { ...f.heartbeats, enabled: false } };
    }
  };
  return { ...config, flows: config.flows.map((f) => (f.name === flow ? off(f) : f)) };
}
