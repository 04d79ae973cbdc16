import 'reflect-metadata';
import type { Container } from '#inversify';
import {
  type Subscription,
  ReplaySubject,
  Subject,
  asyncScheduler,
  finalize,
  firstValueFrom,
  from,
  lastValueFrom,
  merge,
  mergeMap,
  defaultIfEmpty,
  take,
} from '#rxjs';
import type { FlowConfig } from '../config';
import { ClusterUnavailableError, MirrorflowError, describeError, isRetriable } from '../core/errors';
import type { KafkaClients } from '../core/ports/kafka-clients';
import type { TopicPartition } from '../core/record';
import { silentLogger, type Logger } from '../core/ports/logger';
import type { Scheduler } from '../core/ports/scheduler';
import { PluginRegistry } from '../plugins';
import { ProgressStore } from '../flow/progress/progress-store';
import { KafkajsClients } from '../kafka';
import type { FlowStatus } from '../flow/status/flow-status';
import { unlessFinished } from './flow-migration';
import type { FlowSnapshot } from '../telemetry/flow-snapshot';
import { toClusterConnection } from './wiring/cluster-connection';
import { withClusterPrincipal } from './cluster-principal';
import { checkTransforms, pipelineContainer } from './wiring/flow-container';
import { toFlowSnapshot } from './flow-snapshot';
import { flowGroupId } from './flow-names';
import { progressStoreSettings } from './wiring/settings/internal-topic-settings';
import { internalWriterOptions } from './wiring/settings/client-settings';
import { flowReplicationPolicy } from './wiring/flow-policy';
import { PipelineConfig } from './wiring/tokens';
import { planReload, type ReloadPlan } from './reload-plan';
import { buildRunningFlow, runFlow, runningFlows, type RunningFlow } from './run-flow';

/** How long closing the Kafka clients may take after the flows stopped. */
const CLOSE_TIMEOUT_MS = 10_000;

export interface PipelineOptions {
  readonly logger: Logger;
  readonly registry: PluginRegistry;
  readonly scheduler?: Scheduler;
  /** Replaces the kafkajs clients (tests may put fakes behind the ports). */
  readonly clients?: KafkaClients;
  /**
   * How long `prepare` waits for a cluster that cannot be reached; undefined waits for as long as
   * it takes (as MM2 does: under an orchestrator, a replicator that starts before its clusters
   * must not crash-loop). A cluster that refuses the login or the certificates ends it at once.
   */
  readonly startupTimeoutMs?: number;
}

/** Waits between attempts to reach a cluster at start: the first short, then longer, at most this. */
const REACH_FIRST_WAIT_MS = 500;
const REACH_MAX_WAIT_MS = 10_000;

/**
 * One running pipeline: a DI container with the pipeline's config, clients and scheduler, and a
 * child container per flow that runs (enabled, or emitting heartbeats only). `start` checks everything that can be checked before any
 * client writes (transforms build, every cluster answers) so bad input never half-starts.
 */
export class Pipeline {
  private readonly container: Container;
  /** The running flows by name, in the file's order. */
  private flows = new Map<string, RunningFlow>();
  private readonly stop$ = new ReplaySubject<void>(1);
  /** Flows a reload starts while the pipeline runs. */
  private readonly started$ = new Subject<RunningFlow>();
  private readonly clients: KafkaClients;
  private readonly logger: Logger;
  private readonly scheduler: Scheduler;
  private readonly startupTimeoutMs: number | undefined;
  private current: PipelineConfig;
  private state: 'prepared' | 'running' | 'stopped' = 'prepared';
  /** Lets the changes asked for while the pipeline starts go: called when `run()` begins, or `stop()` ends it first. */
  private startedOrStopped!: () => void;
  /**
   * Reloads and restarts apply one at a time, in the order asked; those asked while the pipeline
   * starts (the REST API and the file watch are up while it waits for its clusters) wait for it.
   */
  private reloading: Promise<unknown> = new Promise<void>((resolve) => (this.startedOrStopped = resolve));
  /** Reloads and restarts asked for and not yet done. */
  private pending = 0;

  constructor(config: PipelineConfig, options: PipelineOptions) {
    this.current = config;
    this.logger = options.logger.child({ pipeline: config.name });
    this.clients =
      options.clients ??
      new KafkajsClients({
        clusters: Object.values(config.clusters).map(toClusterConnection),
        logger: this.logger,
        clientIdPrefix: `mirrorflow-${config.name}`,
        debug: config.logging.level === 'debug',
      });
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.startupTimeoutMs = options.startupTimeoutMs;
    this.container = pipelineContainer(config, {
      logger: this.logger,
      clients: this.clients,
      scheduler: this.scheduler,
      registry: options.registry,
    });
  }

  /** The configuration the pipeline runs now: the one it started with, or the last one a reload applied. */
  get config(): PipelineConfig {
    return this.current;
  }

  get statuses(): readonly FlowStatus[] {
    return [...this.flows.values()].map((f) => f.status);
  }

  /** The Kafka client library's debug logs, on or off while running (the `kafkajs` logger's level). */
  setClientDebug(on: boolean): void {
    this.clients.setDebug?.(on);
  }

  /** A copy of every flow's live status, for the HTTP endpoints and metrics. */
  snapshots(): FlowSnapshot[] {
    const now = Date.now();
    return [...this.flows.values()].map((f) => {
      const policy = flowReplicationPolicy(f.config);
      return toFlowSnapshot(f.status, f.replication !== undefined, (topic) => policy.formatRemoteTopic(f.config.source, topic), now);
    });
  }

  /**
   * Builds every flow and waits until every cluster it uses is reachable (see
   * `startupTimeoutMs`; meanwhile each flow shows the outage, and is not ready); writes nothing.
   * A `stop()` meanwhile ends the wait, and `run()` then ends at once.
   */
  async prepare(): Promise<void> {
    const running = runningFlows(this.current);
    for (const flow of running) this.flows.set(flow.name, this.buildFlow(flow));
    await this.checkReachable(running);
  }

  /** Runs every flow until `stop()` (resolves) or a flow fails (rejects); flows a reload adds run too. */
  async run(): Promise<void> {
    const stop$ = this.stop$.asObservable();
    if (this.state === 'prepared') this.state = 'running';
    this.startedOrStopped();
    const flows$ = merge(from([...this.flows.values()]), this.started$).pipe(
      mergeMap((f) => unlessFinished(f.migration, merge(stop$, f.stop$).pipe(take(1)), (s$) => runFlow(f, s$, this.clients)).pipe(finalize(f.markEnded))),
    );
    try {
      await lastValueFrom(flows$.pipe(defaultIfEmpty(undefined)), { defaultValue: undefined });
    } catch (error) {
      throw withClusterPrincipal(error, this.current);
    } finally {
      this.state = 'stopped';
      await this.close();
    }
  }

  /**
   * Stops fetching, drains in-flight batches, stores progress; `run()` then resolves. The stop is
   * kept: asked for before `run()` or while flows are still starting, it ends them as they start.
   */
  stop(): void {
    this.state = 'stopped';
    this.startedOrStopped();
    this.stop$.next();
    this.stop$.complete();
    this.started$.complete();
  }

  /**
   * Applies a changed configuration to the running pipeline, flow by flow: a flow that is gone
   * drains and stops; a flow whose settings changed drains, stores its progress and starts again
   * with the new ones; a new flow starts; the others go on without a pause. The transforms of
   * new and changed flows are built before anything stops, so a change that cannot be built (a
   * plugin that fails) changes nothing. A change to the clusters or the pipeline's name needs a
   * restart and is refused.
   */
  reload(next: PipelineConfig, registry?: PluginRegistry): Promise<ReloadPlan> {
    return this.serialized(() => this.apply(next, registry));
  }

  /** True while a reload or a restart is asked for or being applied. */
  get applying(): boolean {
    return this.pending > 0;
  }

  /**
   * Stops one flow as a reload stops a changed one (drained, progress stored, clients closed) and
   * starts it again with the same settings, from that progress; a failed flow's parts start afresh.
   */
  restart(name: string): Promise<void> {
    return this.serialized(async () => {
      if (this.state !== 'running') throw new MirrorflowError('The pipeline is stopping; nothing was restarted.');
      const flow = this.flows.get(name);
      if (flow === undefined) return;
      await this.stopFlow(name);
      if (this.state !== 'running') throw new MirrorflowError('The pipeline stopped while the flow restarted; it was not started again.');
      const built = this.buildFlow(flow.config);
      this.flows.set(name, built);
      this.started$.next(built);
    });
  }

  /**
   * Reads a flow's stored progress and lets `edit` change it, while the flow does not replicate
   * (in this process: its replication is off; in the others: its group on the source has no
   * member) — Connect's offsets routes on a stopped connector. Serialized with reloads, so the
   * flow cannot start meanwhile; the progress topic is read and written with clients of its own,
   * closed after.
   */
  editProgress<T>(flow: FlowConfig, edit: (progress: ProgressStore) => Promise<T>): Promise<T> {
    return this.serialized(async () => {
      if (this.state !== 'running') throw new MirrorflowError('The pipeline is stopping; the progress was not changed.');
      if (this.flows.get(flow.name)?.replication !== undefined)
        throw new MirrorflowError(`The flow ${flow.name} replicates in this process; its progress can be changed only while it is stopped.`);
      const group = flowGroupId(this.current.name, flow);
      const state = (await firstValueFrom(this.clients.admin(flow.source).describeGroups([group]))).get(group) ?? 'dead';
      if (state !== 'empty' && state !== 'dead')
        throw new MirrorflowError(
          `The flow ${flow.name} still replicates in another process (its group ${group} on ${flow.source} is ${state}); stop it there too before changing its progress.`,
        );
      return this.withProgress(flow, 'progress-edit', edit);
    });
  }

  /** A flow's stored progress, as its progress topic holds it now: the last replicated offset per source partition. */
  readProgress(flow: FlowConfig): Promise<{ tp: TopicPartition; offset: number }[]> {
    return this.withProgress(flow, 'progress-read', (progress) => Promise.resolve(progress.stored()));
  }

  /** A progress store of the flow's own, loaded, for `use`; its writer is closed after. */
  private async withProgress<T>(flow: FlowConfig, name: string, use: (progress: ProgressStore) => Promise<T>): Promise<T> {
    const role = `${flow.name}|${name}`;
    const progress = new ProgressStore({
      ...progressStoreSettings(flow),
      targetAdmin: this.clients.admin(flow.target),
      reader: this.clients.reader(flow.target),
      writer: this.clients.writer(flow.target, internalWriterOptions(flow, name)),
      logger: this.logger.child({ flow: flow.name }),
    });
    try {
      await lastValueFrom(progress.load(), { defaultValue: undefined });
      return await use(progress);
    } finally {
      await this.clients.closeRoles(role);
    }
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    const done = this.reloading.then(work).finally(() => this.pending--);
    this.reloading = done.catch(() => undefined); // the queue only orders; the caller gets `done` and its failure
    return done;
  }

  private async apply(next: PipelineConfig, registry: PluginRegistry | undefined): Promise<ReloadPlan> {
    if (this.state !== 'running') throw new MirrorflowError('The pipeline is stopping; the change was not applied.');
    const plan = planReload(
      this.current,
      next,
      [...this.flows.values()].map((f) => f.config),
    );
    if (plan.refused !== undefined) throw new MirrorflowError(plan.refused);
    const wanted = runningFlows(next);
    const toStart = wanted.filter((f) => plan.added.includes(f.name) || plan.changed.includes(f.name));
    if (toStart.length === 0 && plan.removed.length === 0) {
      this.current = next;
      return plan;
    }
    this.container.rebind<PipelineConfig>(PipelineConfig).toConstantValue(next);
    if (registry !== undefined) this.container.rebind(PluginRegistry).toConstantValue(registry);
    try {
      // Plugin problems surface before anything stops; no client is made for the check.
      for (const flow of toStart) checkTransforms(this.container, flow, this.logger);
    } catch (error) {
      this.container.rebind<PipelineConfig>(PipelineConfig).toConstantValue(this.current);
      throw error;
    }
    // Everything a stopped flow fetched is acknowledged and its progress stored, and its clients
    // are closed, before its replacement is made and reads that progress: nothing is copied twice.
    await Promise.all([...plan.removed, ...plan.changed].map((name) => this.stopFlow(name)));
    for (const name of plan.removed) this.flows.delete(name);
    if (this.state !== 'running') throw new MirrorflowError('The pipeline stopped while the change was applied; the new flows were not started.');
    const built = toStart.map((flow) => this.buildFlow(flow));
    const byName = new Map(built.map((f) => [f.config.name, f]));
    const flows = new Map<string, RunningFlow>();
    for (const flow of wanted) {
      const running = byName.get(flow.name) ?? this.flows.get(flow.name);
      if (running !== undefined) flows.set(flow.name, running);
    }
    this.flows = flows;
    this.current = next;
    for (const f of built) this.started$.next(f);
    return plan;
  }

  private async stopFlow(name: string): Promise<void> {
    const flow = this.flows.get(name);
    if (flow === undefined) return;
    flow.stop$.next();
    flow.stop$.complete();
    await flow.ended;
    // Its consumer has left the group (and its producers closed) before a successor joins.
    await this.clients.closeRoles(`${name}|`);
    flow.container.unbindAll();
  }

  /** One flow's container and parts; plugin problems surface here, before any connection. */
  private buildFlow(flow: FlowConfig): RunningFlow {
    return buildRunningFlow(this.container, this.current.name, flow, this.logger);
  }

  private async checkReachable(flows: readonly FlowConfig[]): Promise<void> {
    const used = (f: FlowConfig): string[] => (f.enabled ? [f.source, f.target] : [f.target]);
    const clusters = [...new Set(flows.flatMap(used))];
    const started = this.scheduler.now();
    // A cluster that refuses us ends the start: the waits for the others end with it.
    const start = { failed: false };
    await Promise.all(
      clusters.map(async (cluster) => {
        // The wait shows as an outage of every flow that uses the cluster (one of them logs it).
        const trackers = flows
          .filter((f) => used(f).includes(cluster))
          .map((f, i) =>
            this.flows.get(f.name)!.status.outages.tracker(cluster, 'connecting at start', i === 0 ? this.logger : silentLogger, () => this.scheduler.now()),
          );
        try {
          const reached = await this.waitUntilReachable(cluster, started, start, (error) => trackers.forEach((tracker) => tracker.failed(error)));
          trackers.forEach((tracker) => (reached ? tracker.succeeded() : tracker.abandoned()));
        } catch (error) {
          start.failed = true;
          trackers.forEach((tracker) => tracker.abandoned());
          throw error;
        }
      }),
    );
  }

  /**
   * Tries to reach `cluster` until it answers (true), it refuses us or the startup timeout passes
   * (throws), or `stop()` is called or another cluster refused us (false).
   */
  private async waitUntilReachable(cluster: string, started: number, start: { readonly failed: boolean }, failed: (error: unknown) => void): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.clients.checkReachable(cluster);
        return true;
      } catch (error) {
        if (this.state === 'stopped' || start.failed) return false;
        if (!isRetriable(error)) throw error;
        const waitedMs = this.scheduler.now() - started;
        const leftMs = this.startupTimeoutMs === undefined ? Infinity : this.startupTimeoutMs - waitedMs;
        if (leftMs <= 0) {
          const reason = error instanceof ClusterUnavailableError ? error.reason : describeError(error);
          throw new ClusterUnavailableError(cluster, `${reason}; gave up after ${Math.round(waitedMs / 1000)} s (--startup-timeout)`, { cause: error });
        }
        failed(error);
        if (await this.stoppedWithin(Math.min(leftMs, REACH_MAX_WAIT_MS, REACH_FIRST_WAIT_MS * 2 ** (attempt - 1)))) return false;
      }
    }
  }

  /** Waits `ms` on the pipeline's scheduler; true when `stop()` came first. */
  private stoppedWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = this.scheduler.schedule(() => {
        stopped.unsubscribe();
        resolve(false);
      }, ms);
      const stopped = this.stop$.subscribe(() => {
        timer.unsubscribe();
        resolve(true);
      });
    });
  }

  private async close(): Promise<void> {
    // Progress is already stored when the flows complete; a client that will not disconnect
    // (a broker gone, an admin call still retrying) must not keep the process from ending.
    let timer: Subscription | undefined;
    const closed = await Promise.race([
      this.clients.close().then(() => true),
      new Promise<boolean>((resolve) => (timer = this.scheduler.schedule(() => resolve(false), CLOSE_TIMEOUT_MS))),
    ]);
    timer?.unsubscribe();
    if (!closed) this.logger.warn('Kafka clients did not close in time; leaving them.', { timeoutMs: CLOSE_TIMEOUT_MS });
    for (const f of this.flows.values()) f.container.unbindAll();
    this.container.unbindAll();
  }
}
