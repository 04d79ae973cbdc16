/**
 * Line coverage of the unit lane, reported at its end (not a gate): Node writes each test
 * process's V8 coverage into `coverage/v8` (NODE_V8_COVERAGE), and c8 maps it through the
 * compiled files' source maps onto `src/` and `plugins/`. Every file of those counts, loaded by a
 * spec or not. The full table is left in `coverage/coverage.txt`; the run prints the totals, the
 * hot path's folders, and each hot-path file under HOT_PATH_TARGET. Measured when the whole
 * lane runs (no filter given); MIRRORFLOW_TEST_COVERAGE=0 turns it off.
 *
 * The hot path is what every replicated record goes through: the flow's graph and its parts
 * (src/flow/replication, src/flow/operators) and the Kafka client ends it reads and writes with
 * (src/kafka/consumer, src/kafka/producer), but for two consumers no record of a flow passes
 * through: the leader election's (kafkajs-election.ts) and the reader of mirrorflow's own topics
 * (kafkajs-reader.ts), proven on real brokers by the integration tests. Transactions, the admin
 * side and the wire shims are off it too, or proven there.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const HOT_PATH = ['src/flow/replication/', 'src/flow/operators/', 'src/kafka/consumer/', 'src/kafka/producer/'] as const;
/** Files of those folders off the hot path (see above). */
export const OFF_HOT_PATH: readonly string[] = ['src/kafka/consumer/kafkajs-election.ts', 'src/kafka/consumer/kafkajs-reader.ts'];
/** Lines covered, in percent, that each hot-path file should reach. */
export const HOT_PATH_TARGET = 90;

export interface LineCount {
  readonly total: number;
  readonly covered: number;
}

/** c8's json-summary: per file (absolute path), and `total`. */
type Summary = Record<string, { readonly lines: LineCount }>;

export function coverageEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['MIRRORFLOW_TEST_COVERAGE'] !== '0';
}

/** Where the lane's processes write their V8 coverage; emptied first. */
export function prepareCoverage(root: string): string {
  const dir = join(root, 'coverage', 'v8');
  rmSync(dir, { recursive: true, force: true });
  return dir;
}

/** Runs c8 over what the lane wrote; resolves with the report's lines, or a line saying why there is none. */
export async function reportCoverage(root: string): Promise<string[]> {
  const out = join(root, 'coverage');
  const c8 = join(root, 'node_modules', 'c8', 'bin', 'c8.js');
  if (!existsSync(c8)) return ['no coverage report: c8 is not installed (npm ci)'];
  const args = [
    c8,
    'report',
    `--temp-directory=${join(out, 'v8')}`,
    `--reports-dir=${out}`,
    '--reporter=json-summary',
    '--reporter=text',
    '--all',
    '--src=dist/src',
    '--src=dist/plugins',
    '--include=dist/src/**/*.js',
    '--include=dist/plugins/**/*.js',
    '--exclude=**/*.spec.js',
  ];
  const text = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let kept = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (kept += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(kept) : reject(new Error(`c8 report exited with code ${code}`))));
  });
  writeFileSync(join(out, 'coverage.txt'), text);
  const summary = JSON.parse(readFileSync(join(out, 'coverage-summary.json'), 'utf8')) as Summary;
  return coverageLines(summary, root);
}

const percent = ({ total, covered }: LineCount): number => (total === 0 ? 100 : (100 * covered) / total);
const shown = (count: LineCount): string => `${percent(count).toFixed(1)} % of ${count.total} lines`;

/** The printed report: totals, each hot-path folder, and each hot-path file below the target. */
export function coverageLines(summary: Summary, root: string): string[] {
  const files = Object.entries(summary)
    .filter(([path]) => path !== 'total')
    .map(([path, entry]) => ({ path: relative(root, path).split(sep).join('/'), lines: entry.lines }));
  const sum = (list: readonly { lines: LineCount }[]): LineCount => ({
    total: list.reduce((n, f) => n + f.lines.total, 0),
    covered: list.reduce((n, f) => n + f.lines.covered, 0),
  });
  const lines = [
    `line coverage of the unit lane (reported, not a gate; table in coverage/coverage.txt): src ${shown(sum(files.filter((f) => f.path.startsWith('src/'))))}, plugins ${shown(sum(files.filter((f) => f.path.startsWith('plugins/'))))}`,
  ];
  for (const folder of HOT_PATH) {
    const inFolder = files.filter((f) => f.path.startsWith(folder) && !OFF_HOT_PATH.includes(f.path));
    const below = inFolder.filter((f) => percent(f.lines) < HOT_PATH_TARGET);
    lines.push(`  hot path ${folder}: ${shown(sum(inFolder))}${below.length === 0 ? `, every file at ${HOT_PATH_TARGET} % or more` : ''}`);
    for (const file of below) lines.push(`    below ${HOT_PATH_TARGET} %: ${file.path} ${shown(file.lines)}`);
  }
  return lines;
}
