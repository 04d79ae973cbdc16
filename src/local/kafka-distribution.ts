import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { LocalKafkaError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import { withFileLock } from './file-lock';
import { DEPENDENCY_PLUGIN, KAFKA_VERSION_PATTERN, loggingBackend, missingSlf4jBinding, renderKafkaPom, type LoggingBackend } from './maven-pom';
import { mirrorflowCacheDir, packageConfigDir } from './paths';
import { DEFAULT_KAFKA_VERSION } from './local-defaults';

export { DEFAULT_KAFKA_VERSION };

/** The official Kafka jars of one version, in a local cache, ready for `java -cp`. */
export interface KafkaDistribution {
  readonly version: string;
  readonly libDir: string;
  /** Value for `java -cp`: every jar of the distribution. */
  readonly classpath: string;
  readonly logging: LoggingBackend;
}

export interface EnsureKafkaDistributionOptions {
  /** Cache root; jars go to `<cacheDir>/kafka/<version>/lib`. Default: see mirrorflowCacheDir(). */
  readonly cacheDir?: string;
  readonly logger?: Logger;
  /** Maven executable. Default `$MIRRORFLOW_MVN` or `mvn`. */
  readonly mavenCommand?: string;
  /** Deadline for Maven, and for waiting on another process that is fetching. Default 15 min. */
  readonly timeoutMs?: number;
}

/**
 * Returns the jars of Kafka `version`, fetching them from Maven Central with Maven the first
 * time. Safe when several processes ask at once: one fetches under a lock file, the others
 * wait; the jars appear by an atomic rename, so a half-fetched folder is never seen and an
 * interrupted fetch leaves nothing behind but a temp folder the next fetch removes.
 */
export async function ensureKafkaDistribution(
  version: string = DEFAULT_KAFKA_VERSION,
  options: EnsureKafkaDistributionOptions = {},
): Promise<KafkaDistribution> {
  if (!KAFKA_VERSION_PATTERN.test(version)) {
    throw new LocalKafkaError(`"${version}" is not a Kafka version; expected a release number such as ${DEFAULT_KAFKA_VERSION}.`);
  }
  const logger = options.logger ?? silentLogger;
  const versionDir = join(options.cacheDir ?? mirrorflowCacheDir(), 'kafka', version);
  const libDir = join(versionDir, 'lib');
  if (existsSync(libDir)) return describe(version, libDir);

  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  await mkdir(versionDir, { recursive: true });
  return withFileLock(
    join(versionDir, '.lock'),
    async () => {
      if (existsSync(libDir)) return describe(version, libDir); // fetched while we waited
      await removeLeftovers(versionDir);
      const staging = await mkdtemp(join(versionDir, '.staging-'));
      try {
        logger.info('Fetching the Kafka jars from Maven Central.', { version, dir: libDir });
        const started = Date.now();
        await fetchJars(version, staging, options.mavenCommand ?? process.env['MIRRORFLOW_MVN'] ?? 'mvn', timeoutMs);
        await writeFile(join(versionDir, 'pom.xml'), renderKafkaPom(version));
        await rename(join(staging, 'lib'), libDir);
        logger.info('Fetched the Kafka jars.', { version, dir: libDir, ms: Date.now() - started });
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
      return describe(version, libDir);
    },
    {
      timeoutMs,
      onWait: (holder) => logger.info('Waiting for another process that is fetching the Kafka jars.', { version, pid: holder.pid }),
    },
  );
}

/** Staging folders of fetches that were killed; only removed while holding the lock. */
async function removeLeftovers(versionDir: string): Promise<void> {
  for (const name of await readdir(versionDir)) {
    if (name.startsWith('.staging-')) await rm(join(versionDir, name), { recursive: true, force: true });
  }
}

async function describe(version: string, libDir: string): Promise<KafkaDistribution> {
  const jars = (await readdir(libDir)).filter((name) => name.endsWith('.jar'));
  return { version, libDir, classpath: join(libDir, '*'), logging: loggingBackend(jars) };
}

async function fetchJars(version: string, staging: string, mvn: string, timeoutMs: number): Promise<void> {
  const pom = join(staging, 'pom.xml');
  const lib = join(staging, 'lib');
  await writeFile(pom, renderKafkaPom(version));
  const common = ['-B', '-q', '-Dstyle.color=never', '-f', pom];
  try {
    await runMaven(mvn, [...common, `${DEPENDENCY_PLUGIN}:copy-dependencies`, `-DoutputDirectory=${lib}`, '-DincludeScope=runtime'], timeoutMs);
  } catch (error) {
    if (error instanceof MavenFailure) {
      throw new LocalKafkaError(`Kafka ${version} could not be fetched from Maven Central (is the version published, is the network up?): ${error.summary}`, {
        cause: error,
      });
    }
    throw error;
  }
  const binding = missingSlf4jBinding(await readdir(lib));
  if (binding !== undefined) {
    const artifact = `${binding.groupId}:${binding.artifactId}:${binding.version}`;
    await runMaven(mvn, [...common, `${DEPENDENCY_PLUGIN}:copy`, `-Dartifact=${artifact}`, `-DoutputDirectory=${lib}`], timeoutMs).catch((error: unknown) => {
      throw new LocalKafkaError(`The logging bridge ${artifact} could not be fetched from Maven Central.`, { cause: error });
    });
  }
}

class MavenFailure extends Error {
  override readonly name = 'MavenFailure';
  constructor(
    readonly summary: string,
    readonly output: string,
  ) {
    super(summary);
  }
}

function runMaven(mvn: string, args: readonly string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(mvn, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-64_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT' ? new LocalKafkaError(`Maven ("${mvn}") was not found; it is needed once to fetch the Kafka jars.`, { cause: error }) : error,
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else if (signal !== null) reject(new MavenFailure(`Maven was stopped by ${signal} (deadline ${timeoutMs} ms).`, output));
      else reject(new MavenFailure(summarizeMavenErrors(output), output));
    });
  });
}

/** The first `[ERROR]` line of Maven's output, which names the missing artifact, or the tail. */
export function summarizeMavenErrors(output: string): string {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const errors = plain
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('[ERROR]') && line.length > '[ERROR]'.length + 1);
  if (errors.length > 0) return errors[0]!.slice('[ERROR] '.length);
  return plain.trim().split('\n').slice(-5).join(' ') || 'Maven failed without output.';
}

export interface JavaCommandOptions {
  readonly mainClass: string;
  readonly args?: readonly string[];
  /** Maximum heap in MiB. */
  readonly heapMb?: number;
  /** Folder for the process's log file (`server.log`); without it, logging is off. */
  readonly logDir?: string;
  /** Extra JVM options, placed after the defaults so they win. */
  readonly jvmOptions?: readonly string[];
  /** Folders or jars put on the classpath before the distribution's (e.g. a test's broker plugins). */
  readonly classpath?: readonly string[];
  /**
   * `server` (default): G1 with short pauses, as Kafka's own scripts run brokers and MM2.
   * `tool`: a short-lived command; serial GC and the quick compiler start it faster.
   */
  readonly profile?: 'server' | 'tool';
}

export interface JavaCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** The Java executable: `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` on PATH. */
export function javaExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env['JAVA_HOME'] ? join(env['JAVA_HOME'], 'bin', 'java') : 'java';
}

/**
 * The command line that runs `mainClass` from the distribution, e.g. `kafka.Kafka`,
 * `org.apache.kafka.connect.mirror.MirrorMaker`, `org.apache.kafka.tools.ProducerPerformance`,
 * with logging sent to `<logDir>/server.log` using the shipped config.
 */
export function javaCommand(distribution: KafkaDistribution, options: JavaCommandOptions): JavaCommand {
  const tool = options.profile === 'tool';
  const heapMb = options.heapMb ?? (tool ? 256 : 512);
  const args = [
    `-Xms${Math.min(heapMb, tool ? 64 : 256)}m`,
    `-Xmx${heapMb}m`,
    ...(tool ? ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'] : ['-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20']),
    '-Djava.awt.headless=true',
    ...loggingJvmOptions(distribution, options.logDir),
    ...(options.jvmOptions ?? []),
    '-cp',
    [...(options.classpath ?? []), distribution.classpath].join(delimiter),
    options.mainClass,
    ...(options.args ?? []),
  ];
  return { command: javaExecutable(), args };
}

/**
 * JVM system properties that point the distribution's logging backend at the shipped config:
 * INFO to `<logDir>/server.log` with noisy packages at WARN, or, without a log dir, warnings
 * only on stderr (what tools such as ProducerPerformance want: their report is on stdout).
 */
export function loggingJvmOptions(distribution: KafkaDistribution, logDir: string | undefined): string[] {
  const config = packageConfigDir();
  const dirOption = logDir === undefined ? [] : [`-Dkafka.logs.dir=${logDir}`];
  switch (distribution.logging) {
    case 'log4j2': {
      const file = logDir === undefined ? 'log4j2-local-kafka-console.properties' : 'log4j2-local-kafka.properties';
      return [`-Dlog4j2.configurationFile=${join(config, file)}`, ...dirOption];
    }
    case 'log4j1': {
      const file = logDir === undefined ? 'local-kafka-log4j-console.properties' : 'local-kafka-log4j.properties';
      return [`-Dlog4j.configuration=file:${join(config, file)}`, ...dirOption];
    }
    case 'none':
      return [];
  }
}
