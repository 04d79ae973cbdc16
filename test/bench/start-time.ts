/**
 * How long `mirrorflow run` takes from spawn to its first request to a broker (issue 42 item 9):
 *
 *   node dist/test/bench/start-time.js [--runs 10] [--baseline DIR] [--out FILE] [--cold]
 *
 * Two TCP listeners stand for the source and target brokers of a one-flow pipeline; the clock
 * stops when the first bytes of a request reach either of them, and the process's CPU (user +
 * system, /proc) is read at that moment, then it is killed. With `--baseline DIR` (a built
 * checkout) every round starts the baseline and this build one after the other, alternating
 * which goes first, so drift on a shared machine hits both alike. Medians per build, the
 * load average before and after, and each run go to stdout and, with `--out`, a JSON file.
 *
 * The CLI keeps compiled code in a cache (src/cli/compile-cache.ts), written when a process has
 * run a few seconds or exits, so the timed starts are the second and later ones: each build is
 * first started once, in a cache folder of this run, until its first request, then stopped with
 * SIGTERM and awaited. `--cold` times first starts instead: each start gets an empty folder.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { median } from './bench-report';
import { processCpuSeconds } from './process-meter';

interface StartRun {
  readonly build: string;
  readonly round: number;
  /** Spawn → first bytes of a request at a listener, ms. */
  readonly firstRequestMs: number;
  /** CPU of the process at that moment, ms (clock-tick resolution). */
  readonly cpuMs: number;
}

/** Resolves with the listener once it listens on a free loopback port; `onBytes` hears every chunk. */
async function listener(onBytes: () => void): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('data', onBytes);
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

async function startOnce(
  main: string,
  pipeline: string,
  brokers: { firstBytes: Promise<void> },
  cacheDir: string,
  stop: 'SIGKILL' | 'SIGTERM' = 'SIGKILL',
): Promise<{ firstRequestMs: number; cpuMs: number }> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [main, 'run', pipeline, '--http', 'off', '--no-watch', '--status-interval', '0'], {
    stdio: 'ignore',
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir },
  });
  const exited = new Promise<void>((done) => child.on('close', () => done()));
  const outcome = await Promise.race([brokers.firstBytes.then(() => 'request' as const), exited.then(() => 'exit' as const)]);
  const firstRequestMs = performance.now() - spawnedAt;
  const cpuMs = processCpuSeconds(child.pid!) * 1000;
  child.kill(stop);
  // A graceful stop (the warm-up's, which writes the cache at exit) gets a deadline.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(deadline);
  if (outcome === 'exit') throw new Error(`${main} ended before its first request`);
  return { firstRequestMs, cpuMs };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '10' }, baseline: { type: 'string' }, out: { type: 'string' }, cold: { type: 'boolean', default: false } },
  });
  const cold = values.cold;
  const runs = Number(values.runs);
  const builds: Record<string, string> = { this: join(__dirname, '..', '..', 'src', 'cli', 'main.js') };
  if (values.baseline !== undefined) builds['baseline'] = join(resolve(values.baseline), 'dist', 'src', 'cli', 'main.js');

  let heard: () => void = () => {};
  const onBytes = (): void => heard();
  const servers = [await listener(onBytes), await listener(onBytes)];
  const [source, target] = servers.map((s) => `127.0.0.1:${(s.address() as AddressInfo).port}`);
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-start-'));
  const pipeline = join(dir, 'pipeline.yaml');
  writeFileSync(
    pipeline,
    `name: start-time\nclusters:\n  a: { bootstrap_servers: "${source}" }\n  b: { bootstrap_servers: "${target}" }\nflows:\n  - { source: a, target: b }\n`,
  );
  const cacheOf = (build: string): string => join(dir, `cache-${build}`);
  let coldStarts = 0;
  const loadBefore = loadavg();
  const results: StartRun[] = [];
  try {
    if (!cold) {
      for (const build of Object.keys(builds)) {
        const firstBytes = new Promise<void>((done) => (heard = done));
        await startOnce(builds[build]!, pipeline, { firstBytes }, cacheOf(build), 'SIGTERM');
        process.stderr.write(`[start] ${build}: warmed its compile cache\n`);
      }
    }
    for (let round = 1; round <= runs; round++) {
      const order = Object.keys(builds);
      if (round % 2 === 0) order.reverse();
      for (const build of order) {
        const firstBytes = new Promise<void>((done) => (heard = done));
        const run = await startOnce(builds[build]!, pipeline, { firstBytes }, cold ? join(dir, `cold-${++coldStarts}`) : cacheOf(build));
        results.push({ build, round, ...run });
        process.stderr.write(`[start] round ${round} ${build}: first request at ${Math.round(run.firstRequestMs)} ms, CPU ${Math.round(run.cpuMs)} ms\n`);
      }
    }
  } finally {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg();
  const summary = Object.fromEntries(
    Object.keys(builds).map((build) => {
      const mine = results.filter((r) => r.build === build);
      return [build, { firstRequestMs: median(mine.map((r) => r.firstRequestMs)), cpuMs: median(mine.map((r) => r.cpuMs)) }];
    }),
  );
  const cache = cold ? 'cold: an empty compile cache each start' : 'warm: each build started once before';
  const report = { date: new Date().toISOString(), node: process.version, runs, cache, loadBefore, loadAfter, builds, summary, results };
  process.stdout.write(`${JSON.stringify({ cache, loadBefore, loadAfter, summary }, undefined, 2)}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(report, undefined, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
