/**
 * The Java processes of the benchmark: BenchTool (compiled here from `java/BenchTool.java`
 * against the Kafka jars) for preloading, digests and latency, and Kafka's own
 * ProducerPerformance for the limit. The fault tests on three-broker clusters use BenchTool too
 * (`keep-producing`, `replica-verify`: `java/NumberedLoad.java`).
 *
 * The preloader is Java rather than Node for two reasons: the Kafka Java producer writes these
 * records several times faster than kafkajs can encode them (about 150k records/s against
 * 100k at best on this 2-core machine), and a preloader built on mirrorflow's own
 * writer would tie the yardstick to the thing being measured. ProducerPerformance itself cannot
 * write keys or headers, which bulk needs.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { javaCommand, javaExecutable, type KafkaDistribution } from '../../src/local';

/** `test/bench/java/BenchTool.java`, found from `dist/test/bench` or from `test/bench`. */
export function benchToolSource(): string {
  for (const candidate of [resolve(__dirname, '..', '..', '..', 'test', 'bench', 'java'), resolve(__dirname, 'java')]) {
    const file = join(candidate, 'BenchTool.java');
    if (existsSync(file)) return file;
  }
  throw new Error(`BenchTool.java was not found near ${__dirname}.`);
}

function javacExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env['JAVA_HOME'] ? join(env['JAVA_HOME'], 'bin', 'javac') : 'javac';
}

function run(command: string, args: readonly string[], timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 << 20, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${command} ${args.slice(-12).join(' ')} failed: ${error.message}\n${stderr.slice(-4000)}`, { cause: error }));
      } else {
        resolveRun({ stdout, stderr });
      }
    });
  });
}

/** Per topic, per partition (as text): the count and content hash of its records (`JavaTools.digest`). */
export type TopicDigests = Record<string, Record<string, { count: number; hash: string }>>;

export class JavaTools {
  private constructor(
    readonly distribution: KafkaDistribution,
    /** Classpath with BenchTool's classes first. */
    private readonly toolClasspath: string,
  ) {}

  /**
   * Compiles BenchTool and the other Java files beside it (JsonValues, LiveLatency) once per
   * source version and Kafka version into `cacheDir`; a second call
   * finds the classes there. The classes appear by an atomic rename, so concurrent callers never
   * see half a compile.
   */
  static async prepare(distribution: KafkaDistribution, cacheDir: string): Promise<JavaTools> {
    const folder = dirname(benchToolSource());
    const sources = (await readdir(folder))
      .filter((name) => name.endsWith('.java'))
      .sort()
      .map((name) => join(folder, name));
    const sha = createHash('sha256');
    for (const file of sources) sha.update(file.slice(folder.length)).update(await readFile(file));
    const hash = sha.update(distribution.version).digest('hex').slice(0, 16);
    const classes = join(cacheDir, 'bench-java', hash);
    if (!existsSync(join(classes, 'BenchTool.class'))) {
      const staging = `${classes}.${process.pid}.tmp`;
      await rm(staging, { recursive: true, force: true });
      await mkdir(staging, { recursive: true });
      await run(javacExecutable(), ['-nowarn', '-cp', distribution.classpath, '-d', staging, ...sources], 120_000);
      await rename(staging, classes).catch(async (error: NodeJS.ErrnoException) => {
        // Another process compiled the same source meanwhile: use theirs.
        await rm(staging, { recursive: true, force: true });
        if (!existsSync(join(classes, 'BenchTool.class'))) throw error;
      });
    }
    return new JavaTools(distribution, `${classes}${delimiter}${distribution.classpath}`);
  }

  /** The command line of a BenchTool command, to spawn it as a measured process (the ceiling). */
  benchToolCommand(args: readonly string[], heapMb = 1024, profile: 'server' | 'tool' = 'server'): { command: string; args: readonly string[] } {
    return javaCommand({ ...this.distribution, classpath: this.toolClasspath }, { mainClass: 'BenchTool', args, heapMb, logDir: undefined, profile });
  }

  /**
   * Runs a BenchTool command to completion and parses the JSON line it prints. `profile: 'tool'`
   * (the fault tests' verifier) runs it with the quick compiler only, which starts cheaper.
   */
  async benchToolJson<T>(args: readonly string[], timeoutMs: number, heapMb?: number, profile?: 'server' | 'tool'): Promise<T> {
    const java = this.benchToolCommand(args, heapMb, profile);
    const { stdout } = await run(java.command, java.args, timeoutMs);
    const line = stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop();
    if (line === undefined) throw new Error(`BenchTool ${args[0]} printed no result: ${stdout.slice(-2000)}`);
    return JSON.parse(line) as T;
  }

  /**
   * Writes `records` records with Kafka's Java producer (BenchTool `produce`), record i to partition
   * i % `partitions`: keys and values of the given sizes (different for every record), `headers`
   * headers each, and the producer settings in `producer` (`compression.type=lz4`, say).
   */
  async produce(options: {
    readonly bootstrap: string;
    readonly topic: string;
    readonly partitions: number;
    readonly records: number;
    readonly keyBytes: number;
    readonly valueBytes: number;
    readonly headers: number;
    readonly producer?: readonly string[];
    readonly timeoutMs: number;
  }): Promise<void> {
    const args = ['produce', '--bootstrap', options.bootstrap, '--topics', options.topic, '--partitions', String(options.partitions)];
    args.push('--records', String(options.records), '--key-bytes', String(options.keyBytes), '--value-bytes', String(options.valueBytes));
    args.push('--headers', String(options.headers), ...(options.producer ?? []).flatMap((setting) => ['--producer', setting]));
    await this.benchToolJson(args, options.timeoutMs);
  }

  /**
   * BenchTool `digest`: each partition's record count and content hash (timestamp, key, value,
   * headers in offset order) of `topics`, read_uncommitted unless `isolation` says otherwise.
   */
  digest(
    bootstrap: string,
    topics: readonly string[],
    options: { readonly isolation?: 'read_committed'; readonly timeoutMs?: number } = {},
  ): Promise<TopicDigests> {
    const args = [
      'digest',
      '--bootstrap',
      bootstrap,
      '--topics',
      topics.join(','),
      ...(options.isolation === undefined ? [] : ['--isolation', options.isolation]),
    ];
    return this.benchToolJson<TopicDigests>(args, options.timeoutMs ?? 120_000);
  }

  /**
   * Starts a BenchTool command without waiting (the latency workload's paced producer; the fault
   * tests' `keep-producing`, which `stdin: 'pipe'` lets stop by closing its stdin).
   */
  spawnBenchTool(args: readonly string[], options: { heapMb?: number; stdin?: 'ignore' | 'pipe'; profile?: 'server' | 'tool' } = {}): ChildProcess {
    const java = this.benchToolCommand(args, options.heapMb, options.profile);
    return spawn(java.command, java.args, { stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  }

  /** `ProducerPerformance` with the shipped logging (warnings on stderr, report on stdout). */
  producerPerformance(args: readonly string[], logDir: string): { command: string; args: readonly string[] } {
    // kafka-producer-perf-test.sh runs it with a 512 MiB heap and Kafka's JVM performance options.
    return javaCommand(this.distribution, {
      mainClass: 'org.apache.kafka.tools.ProducerPerformance',
      args,
      heapMb: 512,
      logDir,
      profile: 'server',
    });
  }

  javaVersion(): Promise<string> {
    return run(javaExecutable(), ['-version'], 30_000).then(({ stderr }) => stderr.split('\n')[0]?.trim() ?? 'unknown');
  }
}

/** The final summary line of ProducerPerformance, parsed. */
export interface ProducerPerformanceSummary {
  readonly records: number;
  readonly recordsPerSec: number;
  readonly mbPerSec: number;
  readonly avgLatencyMs: number;
  readonly maxLatencyMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * "2000000 records sent, 369480.9 records/sec (107.12 MB/sec), 86.92 ms avg latency,
 *  387.00 ms max latency, 53 ms 50th, 243 ms 95th, 317 ms 99th, 343 ms 99.9th."
 */
export function parseProducerPerformance(stdout: string): ProducerPerformanceSummary | undefined {
  const line = stdout
    .split('\n')
    .filter((l) => /records sent, .* 50th/.test(l))
    .pop();
  if (line === undefined) return undefined;
  const num = (pattern: RegExp): number => Number(pattern.exec(line)?.[1] ?? NaN);
  return {
    records: num(/^(\d+) records sent/),
    recordsPerSec: num(/([\d.]+) records\/sec/),
    mbPerSec: num(/\(([\d.]+) MB\/sec\)/),
    avgLatencyMs: num(/([\d.]+) ms avg latency/),
    maxLatencyMs: num(/([\d.]+) ms max latency/),
    p50Ms: num(/(\d+) ms 50th/),
    p99Ms: num(/(\d+) ms 99th/),
  };
}
