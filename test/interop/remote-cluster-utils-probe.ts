/**
 * Runs MM2's own RemoteClusterUtils (connect-mirror-client, from the Kafka jars the launcher
 * fetched) through `java/RemoteClusterUtilsProbe.java`, compiled once per test process into a
 * temp folder (class files never land in the repository).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { javacExecutable, runProcess } from './java-programs';
import { defaultKafkaVersion, ensureKafkaDistribution, javaExecutable, loggingJvmOptions, type KafkaDistribution } from '../../src/local';

/** `test/interop/java`, from `dist/test/interop`. */
const JAVA_SOURCES = resolve(__dirname, '..', '..', '..', 'test', 'interop', 'java');

export interface JavaOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata: string;
}

export type JavaOffsetsOrError = readonly JavaOffset[] | { readonly error: string };

export interface ProbeAnswers {
  readonly heartbeatTopics: readonly string[];
  readonly checkpointTopics: readonly string[];
  readonly upstreamClusters: readonly string[];
  readonly replicationHops: Readonly<Record<string, number>>;
  /** RemoteClusterUtils.translateOffsets(props, remote, group, timeout), per group asked. */
  readonly translateOffsets: Readonly<Record<string, JavaOffsetsOrError>>;
  /** RemoteClusterUtils.translateOffsets(props, remote, Pattern, timeout), per pattern asked. */
  readonly translateOffsetsPattern: Readonly<Record<string, Readonly<Record<string, readonly JavaOffset[]>> | { readonly error: string }>>;
}

export interface ProbeRequest {
  readonly bootstrap: string;
  readonly remote: string;
  readonly groups?: readonly string[];
  readonly patterns?: readonly string[];
  readonly hops?: readonly string[];
  readonly separator?: string;
  /** `identity`: the client reads topic names with MM2's IdentityReplicationPolicy (default: DefaultReplicationPolicy). */
  readonly policy?: 'identity';
  readonly timeoutMs?: number;
}

export class RemoteClusterUtilsProbe {
  private constructor(
    private readonly distribution: KafkaDistribution,
    private readonly classesDir: string,
  ) {}

  /** Fetches (or finds) the Kafka jars and compiles the probe against them. */
  static async compile(): Promise<RemoteClusterUtilsProbe> {
    const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
    const classesDir = mkdtempSync(join(tmpdir(), 'mirrorflow-rcu-probe-'));
    await runProcess(javacExecutable(), ['-d', classesDir, '-cp', distribution.classpath, join(JAVA_SOURCES, 'RemoteClusterUtilsProbe.java')], '', 120_000);
    return new RemoteClusterUtilsProbe(distribution, classesDir);
  }

  async ask(request: ProbeRequest): Promise<ProbeAnswers> {
    const args = [
      `bootstrap=${request.bootstrap}`,
      `remote=${request.remote}`,
      `timeoutMs=${request.timeoutMs ?? 30_000}`,
      ...(request.separator !== undefined ? [`separator=${request.separator}`] : []),
      ...(request.policy !== undefined ? [`policy=${request.policy}`] : []),
      ...(request.groups ?? []).map((g) => `group=${g}`),
      ...(request.patterns ?? []).map((p) => `pattern=${p}`),
      ...(request.hops ?? []).map((h) => `hops=${h}`),
    ];
    const { stdout } = await runProcess(
      javaExecutable(),
      [
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        ...loggingJvmOptions(this.distribution, undefined),
        '-cp',
        `${this.classesDir}${delimiter}${this.distribution.classpath}`,
        'RemoteClusterUtilsProbe',
        ...args,
      ],
      '',
      180_000,
    );
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) throw new Error(`RemoteClusterUtilsProbe printed no RESULT line; stdout:\n${stdout}`);
    return JSON.parse(line.slice('RESULT '.length)) as ProbeAnswers;
  }

  dispose(): void {
    rmSync(this.classesDir, { recursive: true, force: true });
  }
}
