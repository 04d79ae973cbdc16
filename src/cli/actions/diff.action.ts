import { MirrorflowError, formatConfigIssue } from '../../core/errors';
import { silentLogger } from '../../core/ports/logger';
import { createKafkaClients, diffPipeline, formatDiff, loadPipeline, toClusterConnection } from '../../pipeline';

export interface DiffOptions {
  readonly file: string;
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly json: boolean;
  readonly strict: boolean;
}

/** Drift was found: exit 1, after the report is printed. */
export class DriftFoundError extends MirrorflowError {
  override readonly name = 'DriftFoundError';
  override readonly code = 'DRIFT_FOUND';
}

/**
 * `mirrorflow diff FILE`: loads the pipeline as run does, compares each flow's target with its
 * source read-only, prints the report (text or JSON), then exits 0 when in sync and 1 when drift
 * was found, so it can gate a migration; 69 when a cluster is unreachable, 78 for a bad file.
 */
export async function diffAction(
  options: DiffOptions,
  print: (text: string) => void = (text) => process.stdout.write(text),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const { config, warnings } = await loadPipeline(options.file, { set: options.set, pluginDirs: options.pluginDirs });
  for (const warning of warnings) warn(formatConfigIssue(warning, 'warning'));
  const clients = createKafkaClients(Object.values(config.clusters).map(toClusterConnection), silentLogger, `mirrorflow-${config.name}-diff`);
  let diff;
  try {
    diff = await diffPipeline(config, clients, { strict: options.strict });
  } finally {
    await clients.close();
  }
  print(options.json ? `${JSON.stringify(diff, null, 2)}\n` : formatDiff(diff));
  if (diff.drift > 0) throw new DriftFoundError(`Drift found: ${diff.drift} difference${diff.drift === 1 ? '' : 's'} between sources and targets; see above.`);
}
