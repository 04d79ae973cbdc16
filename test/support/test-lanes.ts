/**
 * The test runner's lanes. The unit lane runs the specs (`*.spec.js`, no Kafka) first, as many at
 * a time as there are cores, so that a unit failure shows within minutes. The main lane runs
 * every other file but the production suite, several at a time, against the shared clusters; the
 * production lane runs `test/production/` (fault tests on three-broker clusters of their own: six
 * broker JVMs, a Java producer and mirrorflow per file) one file at a time beside it, since two of
 * those at once on a 2-core machine would starve each other. When the production files are done,
 * that lane goes on with the files of `AFTER_PRODUCTION`, long files of the shared clusters that
 * would otherwise end the main lane alone: three files run at a time from start to end instead of
 * three and then two (in CI of 2026-12-06 the main lane's files took 3,600 s at two at a time, the
 * production lane 830 s; moving the benchmark smoke's variants, 530 s, evens the two lanes out).
 * Each lane is its own `node --test` process and TAP report; the runner prints the unit lane's
 * report and then the main lane's as they come, the production lane's after them, and the totals
 * of all last.
 */
import { relative, sep } from 'node:path';

/** Where the production suite's compiled files are, relative to `dist/`. */
export const PRODUCTION_DIR = ['test', 'production'].join('/');

/**
 * Files of the shared clusters (relative to `dist/`) that the production lane runs after its own,
 * one at a time, rather than the main lane.
 */
export const AFTER_PRODUCTION: readonly string[] = ['test/bench/bench-smoke-variants.test.js'];

export interface Lanes {
  readonly unit: readonly string[];
  readonly main: readonly string[];
  /** `test/production/`, on clusters of their own. */
  readonly production: readonly string[];
  /** Run by the production lane after its own files; they use the shared clusters. */
  readonly afterProduction: readonly string[];
}

/** Splits compiled test files (absolute paths under `distDir`) into the three lanes. */
export function splitLanes(files: readonly string[], distDir: string): Lanes {
  const path = (file: string): string => relative(distDir, file).split(sep).join('/');
  const inProduction = (file: string): boolean => path(file).startsWith(`${PRODUCTION_DIR}/`);
  const afterProduction = (file: string): boolean => AFTER_PRODUCTION.includes(path(file));
  const unit = (file: string): boolean => file.endsWith('.spec.js');
  const integration = files.filter((file) => !unit(file));
  return {
    unit: files.filter(unit),
    main: integration.filter((file) => !inProduction(file) && !afterProduction(file)),
    production: integration.filter(inProduction),
    afterProduction: integration.filter(afterProduction),
  };
}

export interface TapTotals {
  readonly tests: number;
  readonly pass: number;
  readonly fail: number;
}

/** The summary of a TAP report from Node's test runner (its last `# tests`, `# pass`, `# fail` lines); undefined when it has none. */
export function tapTotals(report: string): TapTotals | undefined {
  const last = (name: string): number | undefined => {
    const matches = [...report.matchAll(new RegExp(`^# ${name} (\\d+)$`, 'gm'))];
    return matches.length === 0 ? undefined : Number(matches[matches.length - 1]![1]);
  };
  const [tests, pass, fail] = [last('tests'), last('pass'), last('fail')];
  return tests === undefined || pass === undefined || fail === undefined ? undefined : { tests, pass, fail };
}

export interface LaneResult {
  readonly name: string;
  readonly files: number;
  readonly code: number;
  readonly ms: number;
  /** Undefined when the lane's report has no summary (it crashed). */
  readonly totals?: TapTotals;
}

/**
 * TAP comment lines closing the whole run: each lane's totals and time, then `# tests`, `# pass`
 * and `# fail` over all lanes, so that the output still ends with the run's totals. A lane that
 * failed without a summary counts as one failure.
 */
export function lanesSummary(lanes: readonly LaneResult[]): string {
  const lines = ['# lanes'];
  let tests = 0;
  let pass = 0;
  let fail = 0;
  for (const lane of lanes) {
    const totals = lane.totals ?? { tests: 1, pass: 0, fail: lane.code === 0 ? 0 : 1 };
    tests += totals.tests;
    pass += totals.pass;
    fail += Math.max(totals.fail, lane.code !== 0 && totals.fail === 0 ? 1 : 0);
    lines.push(
      `# ${lane.name}: ${lane.files} files, tests ${totals.tests}, pass ${totals.pass}, fail ${totals.fail}, exit code ${lane.code}, ${(lane.ms / 1000).toFixed(0)} s`,
    );
  }
  lines.push(`# tests ${tests}`, `# pass ${pass}`, `# fail ${fail}`);
  return lines.join('\n') + '\n';
}
