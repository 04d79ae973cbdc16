/**
 * The functions that took the most self time in a V8 `.cpuprofile` (`node --cpu-prof`), e.g. of
 * a mirrorflow benchmark run (`npm run bench -- --cpu-prof DIR`):
 *
 *   node dist/test/bench/cpu-profile-top.js FILE.cpuprofile [--top 15] [--json] [--from S] [--to S]
 *
 * `--from` and `--to` keep the samples of that window, in seconds since the profile started (the
 * process's start, near enough): say, the idle window of a `many` run, which starts at its
 * "caught up s".
 * Self time of a function = the time of the samples whose top frame is that function, summed over
 * every call site; functions are told apart by name, script and line. `(idle)` is time the
 * thread waited for I/O; percentages are of the whole profile and, in the second column, of the
 * time not idle.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  readonly name: string;
  /** `script:line`, shortened to the package or repository path. */
  readonly where: string;
  readonly ms: number;
  readonly percent: number;
  readonly percentBusy: number;
}

function shorten(url: string): string {
  if (url === '') return '';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length);
  return path.startsWith('/') ? relative(process.cwd(), path) : path;
}

/** Seconds since the profile's start: only the samples taken within [fromS, toS). */
export interface ProfileWindow {
  readonly fromS?: number;
  readonly toS?: number;
}

export function topSelfTime(profile: CpuProfile, top: number, window: ProfileWindow = {}): { totalMs: number; idleMs: number; functions: SelfTime[] } {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMicros = new Map<number, number>();
  const from = (window.fromS ?? 0) * 1e6;
  const to = (window.toS ?? Infinity) * 1e6;
  let at = 0;
  // timeDeltas[i] is the time before sample i; charge it to the sample's frame.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const delta = Math.max(0, profile.timeDeltas[i] ?? 0);
    at += delta;
    if (at < from || at >= to) continue;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
  }
  const byFunction = new Map<string, { name: string; where: string; micros: number }>();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byNode.get(id)?.callFrame;
    if (frame === undefined) continue;
    total += micros;
    if (frame.functionName === '(idle)') idle += micros;
    const name = frame.functionName || '(anonymous)';
    const where = frame.url === '' ? '' : `${shorten(frame.url)}:${frame.lineNumber + 1}`;
    const key = `${name}\u0000${where}`;
    const entry = byFunction.get(key) ?? { name, where, micros: 0 };
    entry.micros += micros;
    byFunction.set(key, entry);
  }
  const busy = total - idle;
  const functions = [...byFunction.values()]
    .sort((a, b) => b.micros - a.micros)
    .slice(0, top)
    .map((f) => ({
      name: f.name,
      where: f.where,
      ms: f.micros / 1000,
      percent: total === 0 ? 0 : (100 * f.micros) / total,
      percentBusy: busy === 0 || f.name === '(idle)' ? 0 : (100 * f.micros) / busy,
    }));
  return { totalMs: total / 1000, idleMs: idle / 1000, functions };
}

function main(argv: readonly string[]): number {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { top: { type: 'string', default: '15' }, json: { type: 'boolean', default: false }, from: { type: 'string' }, to: { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined) {
    process.stderr.write('usage: cpu-profile-top FILE.cpuprofile [--top N] [--json] [--from S] [--to S]\n');
    return 2;
  }
  const window: ProfileWindow = {
    ...(values.from === undefined ? {} : { fromS: Number(values.from) }),
    ...(values.to === undefined ? {} : { toS: Number(values.to) }),
  };
  const result = topSelfTime(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(values.top), window);
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(`${file}: ${(result.totalMs / 1000).toFixed(1)} s sampled, ${(result.idleMs / 1000).toFixed(1)} s idle\n`);
  process.stdout.write(`${'self ms'.padStart(9)} ${'%'.padStart(6)} ${'% busy'.padStart(7)}  function  (script:line)\n`);
  for (const f of result.functions) {
    process.stdout.write(
      `${f.ms.toFixed(0).padStart(9)} ${f.percent.toFixed(1).padStart(6)} ${(f.name === '(idle)' ? '' : f.percentBusy.toFixed(1)).padStart(7)}  ${f.name}  ${f.where}\n`,
    );
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
