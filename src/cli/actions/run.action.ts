import { Pipeline, loadPipeline } from '../../pipeline';
import { createLogger, describeOutages, flowLag, flowName } from '../../telemetry';
import { serveHttp } from './serve-http';
import { MirrorflowError, formatConfigIssue } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';

export interface RunOptions {
  /** A pipeline file, or MM2 connector configs that make one pipeline together. */
  readonly file: string | readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  readonly logFormat?: 'text' | 'json';
  /** How long a stop may take to drain before giving up, ms. */
  readonly shutdownTimeoutMs: number;
  /** How often to log progress, ms; 0 = never. */
  readonly statusIntervalMs: number;
  /** HOST:PORT or `off`; overrides the pipeline's `http.listen`. */
  readonly http?: string;
}

/**
 * `mirrorflow run FILE`: load and check everything, connect, replicate until SIGINT/SIGTERM,
 * then drain, store progress and return (exit 0). Config and plugin problems end the run
 * before any cluster is contacted.
 */
export async function runAction(options: RunOptions): Promise<void> {
  const { config, registry, warnings } = await loadPipeline(options.file, { set: options.set, pluginDirs: options.pluginDirs });
  const logger = createLogger({
    level: options.logLevel ?? config.logging.level,
    format: options.logFormat ?? config.logging.format,
  }).child({ pipeline: config.name });
  for (const warning of warnings) logger.warn('Configuration note.', { note: formatConfigIssue(warning) });

  const pipeline = new Pipeline(config, { logger, registry });
  // Bound before any cluster is contacted: a port in use ends the run before replication starts.
  const http = await serveHttp(pipeline, options.http ?? config.http.listen, logger);
  try {
    await pipeline.prepare();
    await replicate(pipeline, options, logger);
  } finally {
    await http?.close();
  }
}

/** Replicates until SIGINT/SIGTERM (then drains) or a flow fails, logging progress meanwhile. */
async function replicate(pipeline: Pipeline, options: RunOptions, logger: Logger): Promise<void> {
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
  const ticker =
    options.statusIntervalMs > 0
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
  try {
    await Promise.race([pipeline.run(), gaveUp]);
  } finally {
    clearInterval(ticker);
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
