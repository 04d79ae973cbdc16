/**
 * Java programs of `test/interop/java` compiled against the Kafka jars the launcher fetched, once
 * per test process into a temp folder (class files never land in the repository), and run with
 * those jars: Kafka's own clients, converters and transformations as a user's systems run them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { defaultKafkaVersion, ensureKafkaDistribution, javaExecutable, loggingJvmOptions, type KafkaDistribution } from '../../src/local';
import { waitFor } from '../support/wait-for';

/** `test/interop/java`, from `dist/test/interop`. */
export const JAVA_SOURCES = resolve(__dirname, '..', '..', '..', 'test', 'interop', 'java');

export class JavaPrograms {
  /** Members started by `member` and not stopped yet: killed by `dispose`. */
  private readonly members = new Set<ChildProcessWithoutNullStreams>();

  private constructor(
    private readonly distribution: KafkaDistribution,
    private readonly classesDir: string,
  ) {}

  /** Fetches (or finds) the Kafka jars and compiles these files of test/interop/java against them. */
  static async compile(...sources: readonly string[]): Promise<JavaPrograms> {
    const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
    const classesDir = mkdtempSync(join(tmpdir(), 'mirrorflow-java-programs-'));
    const javac = javacExecutable();
    try {
      await runProcess(javac, ['-nowarn', '-d', classesDir, '-cp', distribution.classpath, ...sources.map((s) => join(JAVA_SOURCES, s))], '', 120_000);
    } catch (error) {
      rmSync(classesDir, { recursive: true, force: true });
      throw error;
    }
    return new JavaPrograms(distribution, classesDir);
  }

  /** Runs `mainClass` with `args`, `stdin` as its input, to its end; resolves with its stdout. */
  async run(mainClass: string, args: readonly string[], stdin = '', timeoutMs = 180_000): Promise<string> {
    const { stdout } = await runProcess(javaExecutable(), [...this.jvmArgs(), mainClass, ...args], stdin, timeoutMs);
    return stdout;
  }

  /** Starts `mainClass` with `args` without waiting; closing its stdin is how programs that watch it are told to stop. */
  start(mainClass: string, args: readonly string[]): ChildProcessWithoutNullStreams {
    return spawn(javaExecutable(), [...this.jvmArgs(), mainClass, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /**
   * Starts `mainClass` as an application that stays in its group until told to stop (closing its
   * stdin), and resolves once it printed `{"joined":true}`. `stop()` resolves with all it printed.
   * `what` names it in messages ("a Java consumer of g").
   */
  async member(mainClass: string, args: readonly string[], what: string): Promise<{ stop(): Promise<string> }> {
    const child = this.start(mainClass, args);
    this.members.add(child);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = once(child, 'close');
    let ended = false;
    void exited.then(() => (ended = true));
    await waitFor(
      () => {
        if (ended) throw new Error(`${what} exited before joining:\n${err.slice(-3000)}`);
        return out.includes('{"joined":true}');
      },
      { what: `${what} to join`, timeoutMs: 60_000 },
    );
    return {
      stop: async () => {
        child.stdin.end();
        await exited;
        this.members.delete(child);
        return out;
      },
    };
  }

  private jvmArgs(): string[] {
    return [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      ...loggingJvmOptions(this.distribution, undefined),
      '-cp',
      `${this.classesDir}${delimiter}${this.distribution.classpath}`,
    ];
  }

  dispose(): void {
    for (const child of this.members) child.kill('SIGKILL');
    rmSync(this.classesDir, { recursive: true, force: true });
  }
}

/**
 * What a consumer program printed: one `{"record": …}` line per record it processed, then one
 * `{"result": …}` line; fails naming `program` when the result line is missing.
 */
export function parseConsumerRun<Record, Result>(stdout: string, program: string): Result & { readonly records: readonly Record[] } {
  const records: Record[] = [];
  let result: Result | undefined;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('{"record":')) records.push((JSON.parse(line) as { record: Record }).record);
    else if (line.startsWith('{"result":')) result = (JSON.parse(line) as { result: Result }).result;
  }
  if (result === undefined) throw new Error(`${program} printed no result:\n${stdout.slice(-2000)}`);
  return { ...result, records };
}

/** `javac` of JAVA_HOME, or the one on the PATH. */
export function javacExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env['JAVA_HOME'] ? join(env['JAVA_HOME'], 'bin', 'javac') : 'javac';
}

/** Runs a program with `stdin` as its input; rejects with the end of its output unless it exits 0 within `timeoutMs`. */
export function runProcess(command: string, args: readonly string[], stdin: string, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not start: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolveRun({ stdout, stderr });
      else reject(new Error(`${command} ${args.slice(-3).join(' ')} failed (${signal ?? `exit ${code}`}):\n${stderr.slice(-4000)}\n${stdout.slice(-2000)}`));
    });
    child.stdin.end(stdin);
  });
}
