import { Pipeline, loadPipeline } from '../../pipeline';
import { createLogger } from '../../telemetry';
import { MirrorflowError, formatConfigIssue } from '../../core/errors';

export interface RunOptions {
  readonly file: string;
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  readonly logFormat?: 'text' | 'json';
  /** How long a stop may take to drain before giving up, ms. */
  readonly shutdownTimeoutMs: number;
  /** How often to log progress, ms; 0 = never. */
  readonly statusIntervalMs: number;
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
  await pipeline.prepare();

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
      () => giveUp(new MirrorflowError(`Stopping took longer than ${options.shutdownTimeoutMs} ms; unacknowledged records will be replicated again on the next start.`)),
      options.shutdownTimeoutMs,
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const ticker =
    options.statusIntervalMs > 0
      ? setInterval(() => {
          for (const s of pipeline.statuses) {
            logger.info('Progress.', {
              flow: `${s.source}->${s.target}`,
              state: s.state,
              topics: s.topics,
              records: s.recordsReplicated,
              batchesForwarded: s.recordBatchesForwarded,
              lag: s.lag,
              bufferedBytes: s.bufferedBytes,
              latencyMs: s.lastReplicationLatencyMs,
              checkpoints: s.checkpoints.state,
              // Clusters failing operations right now and for how long; absent when all is well.
              outages: s.outages.describe(Date.now()),
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
