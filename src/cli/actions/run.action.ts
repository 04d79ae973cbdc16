import { Pipeline } from '../../pipeline/pipeline';
import { loadPipeline } from '../../pipeline/load-pipeline';
import { ConnectorControl } from '../../pipeline/connector-control';
import { readTexts } from '../../config/load-pipeline-file';
import { isConnectorConfig } from '../../config/mm2/connector-file';
import { KAFKA_CLIENT_LOGGER, createLogger } from '../../telemetry/create-logger';
import { LogLevels, log4jLevel } from '../../telemetry/log-levels';
import { describeOutages, flowLag, flowName } from '../../telemetry/flow-snapshot';
import { serveHttp } from './serve-http';
import { reloadOnChange } from './reload-on-change';
import { LiveTerminal, type LiveSample, RATE_WINDOW_MS, renderLiveView } from './live-view';
import { MirrorflowError, formatConfigIssue } from '../../core/errors';
import { HeapGrowth } from '../heap-growth';
import type { Logger } from '../../core/ports/logger';

export interface RunOptions {
  /** A pipeline file, or MM2 connector configs that make one pipeline together. */
  readonly file: string | readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  /** `--unknown-keys`: what an unknown key of an mm2.properties file is. */
  readonly unknownKeys?: 'error' | 'warn';
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  readonly logFormat?: 'text' | 'json';
  /** How long a stop may take to drain before giving up, ms. */
  readonly shutdownTimeoutMs: number;
  /** How often to log progress, ms; 0 = never. */
  readonly statusIntervalMs: number;
  /** HOST:PORT or `off`; overrides the pipeline's `http.listen`. */
  readonly http?: string;
  /** Overrides the pipeline's `http.connect_api`. */
  readonly connectApi?: 'read_only' | 'read_write';
  /** Apply the file again when it changes (SIGHUP always does). */
  readonly watch: boolean;
  /** False (`--no-live`): plain logs even on a terminal. */
  readonly live?: boolean;
  /** How long to wait at start for a cluster that cannot be reached, ms; undefined: as long as it takes. */
  readonly startupTimeoutMs?: number;
}

/** How often the live view is redrawn, ms. */
const LIVE_INTERVAL_MS = 1000;

/** How often the partitions the flows fetch are counted for V8's heap growth (heap-growth.ts), ms. */
const HEAP_GROWTH_CHECK_MS = 1000;

/**
 * `mirrorflow run FILE`: load and check everything, connect, replicate until SIGINT/SIGTERM,
 * then drain, store progress and return (exit 0). Config and plugin problems end the run
 * before any cluster is contacted. While it runs, a change to the file (or SIGHUP) is applied
 * flow by flow (reload-on-change.ts).
 */
export async function runAction(options: RunOptions): Promise<void> {
  const { config, registry, warnings } = await loadPipeline(options.file, {
    set: options.set,
    pluginDirs: options.pluginDirs,
    unknownKeys: options.unknownKeys,
  });
  const format = options.logFormat ?? config.logging.format;
  // On a terminal, a live view at the bottom of stderr; log lines scroll above it.
  const terminal = options.live !== false && process.stderr.isTTY && format === 'text' ? new LiveTerminal(process.stderr) : undefined;
  // The named loggers' levels: root's from the file or --log-level, changed while running by PUT /admin/loggers.
  const levels = new LogLevels(log4jLevel(options.logLevel ?? config.logging.level));
  const logger = createLogger({
    level: options.logLevel ?? config.logging.level,
    levels,
    format,
    stream: terminal?.stream(),
  }).child({ pipeline: config.name });
  for (const warning of warnings) logger.warn('Configuration note.', { note: formatConfigIssue(warning, 'warning') });

  const pipeline = new Pipeline(config, { logger, registry, startupTimeoutMs: options.startupTimeoutMs });
  // The Kafka client's own debug logs follow its logger's level.
  const clientDebug = (): void => pipeline.setClientDebug(levels.enabled(KAFKA_CLIENT_LOGGER, 'debug'));
  clientDebug();
  levels.onChange(clientDebug);
  const files = typeof options.file === 'string' ? [options.file] : options.file;
  const texts = await readTexts(files);
  const control = new ConnectorControl({
    pipeline,
    files,
    // The texts `PUT /connectors/{name}/config` puts a connector among, when the files are connector configs.
    connectorTexts: texts.length > 1 || isConnectorConfig(texts[0]!.file, texts[0]!.text) ? texts : undefined,
    set: options.set,
    pluginDirs: options.pluginDirs,
    ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }),
    logger,
  });
  // Bound before any cluster is contacted: a port in use ends the run before replication starts.
  const http = await serveHttp(pipeline, options.http ?? config.http.listen, logger, { control, mode: options.connectApi ?? config.http.connect_api, levels });
  try {
    // A stop while a cluster is waited for ends the wait, and the run with nothing to drain.
    let stoppedEarly = false;
    const stopEarly = (signal: NodeJS.Signals): void => {
      stoppedEarly = true;
      logger.info('Stopping before replication started.', { signal });
      pipeline.stop();
    };
    process.once('SIGINT', stopEarly);
    process.once('SIGTERM', stopEarly);
    try {
      await pipeline.prepare();
    } finally {
      process.off('SIGINT', stopEarly);
      process.off('SIGTERM', stopEarly);
    }
    if (stoppedEarly) return;
    const stopWatching = reloadOnChange(
      pipeline,
      {
        file: options.file,
        set: options.set,
        pluginDirs: options.pluginDirs,
        unknownKeys: options.unknownKeys,
        watch: options.watch,
        apply: (c, r) => control.applyFile(c, r),
      },
      logger,
    );
    try {
      await replicate(pipeline, options, logger, terminal && { terminal, title: `mirrorflow run ${config.name}  (Ctrl-C to stop)` });
    } finally {
      stopWatching();
    }
  } finally {
    await http?.close();
  }
}

/** Replicates until SIGINT/SIGTERM (then drains) or a flow fails, logging progress meanwhile. */
async function replicate(pipeline: Pipeline, options: RunOptions, logger: Logger, live?: { terminal: LiveTerminal; title: string }): Promise<void> {
  let stopping = false;
  let deadline: NodeJS.Timeout | undefined;
  let giveUp: (error: Error) => void = () => {};
  const gaveUp = new Promise<never>((_, reject) => (giveUp = reject));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info('Stopping: draining in-flight records and storing progress.', { signal });
    pipeline.stop();
    deadline = setTimeout(
      () =>
        giveUp(
          new MirrorflowError(`Stopping took longer than ${options.shutdownTimeoutMs} ms; unacknowledged records will be replicated again on the next start.`),
        ),
      options.shutdownTimeoutMs,
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The live view replaces the progress line: it shows the same, every second.
  const ticker =
    live !== undefined
      ? liveView(pipeline, live.terminal, live.title)
      : options.statusIntervalMs > 0
        ? setInterval(() => {
            // From the same snapshots as /status, so a heartbeats-only flow shows its heartbeats' state.
            for (const s of pipeline.snapshots()) {
              const cp = s.checkpoints;
              const hb = s.heartbeats;
              logger.info('Progress.', {
                flow: flowName(s),
                state: s.state,
                topics: s.topics,
                partitions: s.partitionsAssigned,
                elected: s.elected ? 'yes' : 'no',
                records: s.recordsReplicated,
                deadLettered: s.recordsDeadLettered,
                batchesForwarded: s.recordBatchesForwarded,
                lag: flowLag(s),
                sourceResets: s.sourceResets,
                recordsExpired: s.recordsExpired,
                bufferedBytes: s.buffer?.inFlightBytes ?? 0,
                latencyMs: s.lastReplicationLatencyMs,
                checkpoints: cp.state,
                checkpointGroups: cp.groups,
                checkpointsWritten: cp.checkpointsWritten,
                checkpointAgeMs: cp.lastPassAt === undefined ? undefined : Date.now() - cp.lastPassAt,
                checkpointErrors: cp.errors,
                groupsSkippedActive: cp.groupSync.enabled ? cp.groupSync.activeGroups.length : undefined,
                heartbeats: hb.state,
                heartbeatsWritten: hb.written,
                heartbeatAgeMs: hb.lastAt === undefined ? undefined : Date.now() - hb.lastAt,
                // Clusters failing operations right now and for how long; absent when all is well.
                outages: describeOutages(s.outages, Date.now()),
                rssMb: Math.round(process.memoryUsage.rss() / 1048576),
                heapMb: Math.round(process.memoryUsage().heapUsed / 1048576),
              });
            }
          }, options.statusIntervalMs)
        : undefined;
  // While the flows fetch thousands of partitions, V8's heap grows to at most twice what it keeps.
  const heapGrowth = new HeapGrowth();
  let heapHeld = false;
  const heapWatch = heapGrowth.applies
    ? setInterval(() => {
        const partitions = pipeline.statuses.reduce((sum, s) => sum + s.partitionsAssigned, 0);
        if (heapGrowth.follow(partitions) === heapHeld) return;
        heapHeld = !heapHeld;
        logger.info(heapHeld ? 'Many partitions: the heap grows to at most twice what it keeps.' : "Fewer partitions: V8's own heap growth again.", {
          partitions,
        });
      }, HEAP_GROWTH_CHECK_MS).unref()
    : undefined;
  try {
    await Promise.race([pipeline.run(), gaveUp]);
  } finally {
    clearInterval(ticker);
    clearInterval(heapWatch);
    heapGrowth.release();
    live?.terminal.draw(renderLiveView(live.title, { at: Date.now(), flows: pipeline.snapshots() }, undefined));
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Draws the live view now and every second; rates are over the last few seconds' samples. */
function liveView(pipeline: Pipeline, terminal: LiveTerminal, title: string): NodeJS.Timeout {
  const samples: LiveSample[] = [];
  const draw = (): void => {
    const sample: LiveSample = { at: Date.now(), flows: pipeline.snapshots() };
    while (samples.length > 1 && sample.at - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    terminal.draw(renderLiveView(title, sample, samples[0]));
    samples.push(sample);
  };
  draw();
  return setInterval(draw, LIVE_INTERVAL_MS);
}
