import { MirrorflowError, formatConfigIssue } from '../../core/errors';
import { createKafkaClients, loadPipeline, toClusterConnection } from '../../pipeline';
import { verified, verifyPipeline, type VerifyProgress, type VerifyReport } from '../../pipeline/tools/verify';
import type { RangeBound } from '../../pipeline/tools/verify-plan';
import { createLogger } from '../../telemetry';
import { textTable } from './text-table';

export interface VerifyOptions {
  readonly file: string;
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly flows: readonly string[];
  readonly topics: readonly string[];
  readonly from?: RangeBound;
  readonly to?: RangeBound;
  readonly window: number;
  /** How long reading a flow's offset syncs to their end may take, ms. */
  readonly timeoutMs?: number;
  readonly json: boolean;
  /** A progress line on stderr, when it is a terminal. */
  readonly progress: boolean;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
}

/** Records were found missing, duplicated or unexpected: exit 1, after the report is printed. */
export class VerificationFailedError extends MirrorflowError {
  override readonly name = 'VerificationFailedError';
  override readonly code = 'VERIFICATION_FAILED';
}

export interface VerifyOutput {
  readonly print: (text: string) => void;
  readonly warn: (line: string) => void;
  /** The terminal the progress line is drawn on; undefined when stderr is not one. */
  readonly terminal?: { readonly columns: number; write(text: string): void };
}

const processOutput = (): VerifyOutput => ({
  print: (text) => process.stdout.write(text),
  warn: (line) => process.stderr.write(`${line}\n`),
  ...(process.stderr.isTTY ? { terminal: { columns: process.stderr.columns, write: (text: string) => process.stderr.write(text) } } : {}),
});

/**
 * `mirrorflow verify FILE`: loads the pipeline as run does, compares every replicated partition
 * of its flows with the copy on the target, prints a table (or `--json`), then exits 0 when
 * nothing is missing, duplicated or unexpected, 1 otherwise; 69 when a cluster cannot be
 * reached, 64 for a flow the file does not have, 78 for a bad file.
 */
export async function verifyAction(options: VerifyOptions, output: VerifyOutput = processOutput()): Promise<void> {
  const { config, registry, warnings } = await loadPipeline(options.file, { set: options.set, pluginDirs: options.pluginDirs });
  for (const warning of warnings) output.warn(formatConfigIssue(warning, 'warning'));
  const logger = createLogger({ level: options.logLevel, format: 'text' });
  const clients = createKafkaClients(Object.values(config.clusters).map(toClusterConnection), logger, `mirrorflow-${config.name}-verify`);
  const terminal = options.progress ? output.terminal : undefined;
  let report: VerifyReport;
  try {
    const involved = new Set(
      config.flows.filter((f) => (options.flows.length > 0 ? options.flows.includes(f.name) : f.enabled)).flatMap((f) => [f.source, f.target]),
    );
    for (const cluster of involved) await clients.checkReachable(cluster);
    report = await verifyPipeline(config, registry, clients, {
      flows: options.flows,
      topics: options.topics,
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.to === undefined ? {} : { to: options.to }),
      window: options.window,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(terminal === undefined ? {} : { progress: progressLine(terminal) }),
    });
  } finally {
    terminal?.write('\r\x1b[K');
    await clients.close();
  }
  output.print(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatVerifyReport(report));
  if (!verified(report)) {
    const { missing, duplicates, unexpected } = report.totals;
    throw new VerificationFailedError(`Verification failed: ${missing} missing, ${duplicates} duplicate and ${unexpected} unexpected records; see above.`);
  }
}

/** Draws the progress on one line of the terminal, at most every 200 ms (`now` for specs). */
export function progressLine(terminal: NonNullable<VerifyOutput['terminal']>, now: () => number = Date.now): (p: VerifyProgress) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (p) => {
    const at = now();
    if (at - last < 200 && p.current !== undefined) return;
    last = at;
    const percent = p.totalOffsets === 0 ? 100 : Math.floor((100 * p.offsets) / p.totalOffsets);
    const current = p.current === undefined ? '' : `  ${p.current.flow} ${p.current.topic}-${p.current.partition} ${Math.floor(100 * p.current.fraction)}%`;
    const line = `verifying: ${p.done}/${p.partitions} partitions, ${p.offsets}/${p.totalOffsets} offsets (${percent}%)${current}`;
    terminal.write(`\r\x1b[K${line.slice(0, Math.max(20, terminal.columns - 1))}`);
  };
}

/** The report as a table, a line per partition, then what a reader should know and the verdict. */
export function formatVerifyReport(report: VerifyReport): string {
  if (report.partitions.length === 0) return 'No replicated partitions to verify.\n';
  const rows = [['FLOW', 'TOPIC', 'PARTITION', 'REMOTE TOPIC', 'MATCHED', 'MISSING', 'DUPLICATES', 'UNEXPECTED', 'BEHIND']];
  const notes: string[] = [];
  for (const p of report.partitions) {
    rows.push([
      p.flow,
      p.topic,
      String(p.partition),
      p.remote_topic,
      String(p.matched),
      String(p.missing),
      String(p.duplicates),
      String(p.unexpected),
      String(p.behind),
    ]);
    const where = `${p.flow} ${p.topic}-${p.partition}`;
    if (p.note !== undefined) notes.push(`${where}: ${p.note}.`);
    if (p.missing > 0) notes.push(`${where}: ${p.missing} missing, the first at source offset ${p.first_missing_offset}.`);
    if (p.duplicates > 0) notes.push(`${where}: ${p.duplicates} duplicates, the first at ${p.remote_topic} offset ${p.first_duplicate_target_offset}.`);
    if (p.unexpected > 0) notes.push(`${where}: ${p.unexpected} unexpected, the first at ${p.remote_topic} offset ${p.first_unexpected_target_offset}.`);
    if (p.expired > 0) notes.push(`${where}: ${p.expired} offsets below the log's start were removed before the flow copied them (progress ${p.progress}).`);
    if (p.compared_by === 'count') notes.push(`${where}: compared by count (the flow changes records in ways that cannot be redone here).`);
  }
  const { missing, duplicates, unexpected, behind, matched } = report.totals;
  const verdict = verified(report)
    ? `Verified: ${matched} records matched in ${report.partitions.length} partition${report.partitions.length === 1 ? '' : 's'}${behind > 0 ? `; ${behind} not copied yet (behind)` : ''}.`
    : `Not verified: ${missing} missing, ${duplicates} duplicates, ${unexpected} unexpected (${matched} matched, ${behind} behind).`;
  return `${textTable(rows)}${notes.length > 0 ? `\n${notes.join('\n')}\n` : ''}\n${verdict}\n`;
}
