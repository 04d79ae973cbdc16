/**
 * The throw-away Maven project that collects the official Kafka jars. Maven only resolves it
 * (`dependency:copy-dependencies`); nothing is built. Kafka publishes its Gradle
 * `implementation` dependencies as runtime scope, so callers must copy the runtime scope.
 */

/** Kafka artifacts a local distribution holds: broker, command-line tools, MirrorMaker 2. */
export const KAFKA_ARTIFACTS = ['kafka_2.13', 'kafka-tools', 'connect-mirror'] as const;

/** Pinned so every machine resolves the same way, whatever its Maven's default binding is. */
export const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

/** `4.3.1`, `3.9.1`, `4.0.0-rc1`: digits and dots, an optional qualifier. Keeps XML and paths safe. */
export const KAFKA_VERSION_PATTERN = /^\d+\.\d+\.\d+(?:-[A-Za-z0-9.]+)?$/;

export function renderKafkaPom(version: string): string {
  if (!KAFKA_VERSION_PATTERN.test(version)) throw new RangeError(`Not a Kafka version: ${version}`);
  const dependencies = KAFKA_ARTIFACTS.map(
    (artifact) => `    <dependency><groupId>org.apache.kafka</groupId><artifactId>${artifact}</artifactId><version>${version}</version></dependency>`,
  ).join('\n');
  const [pluginGroup, pluginArtifact, pluginVersion] = DEPENDENCY_PLUGIN.split(':');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by mirrorflow (src/local) to fetch the Kafka ${version} jars; safe to delete. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.mirrorflow</groupId>
  <artifactId>kafka-distribution</artifactId>
  <version>${version}</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies}
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin><groupId>${pluginGroup}</groupId><artifactId>${pluginArtifact}</artifactId><version>${pluginVersion}</version></plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
`;
}

export interface MavenArtifact {
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
}

export type LoggingBackend = 'log4j2' | 'log4j1' | 'none';

/** Which logging backend the jars carry: log4j2 (Kafka 4.x), reload4j = log4j 1 (Kafka 3.x), or none. */
export function loggingBackend(jarNames: readonly string[]): LoggingBackend {
  if (jarNames.some((name) => /^log4j-core-.+\.jar$/.test(name))) return 'log4j2';
  if (jarNames.some((name) => /^reload4j-.+\.jar$/.test(name))) return 'log4j1';
  return 'none';
}

const SLF4J_BINDINGS = /^(?:log4j-slf4j2?-impl|slf4j-reload4j|slf4j-log4j12|slf4j-simple|logback-classic)-.+\.jar$/;

/**
 * The SLF4J → log4j2 bridge that is missing from the resolved jars, if one is. Kafka 4.x
 * depends on slf4j-api and log4j-core but ships the bridge only in its tarball, so without it
 * brokers log nothing. The bridge matches both sides: `log4j-slf4j-impl` for slf4j 1.x,
 * `log4j-slf4j2-impl` for slf4j 2.x, at the log4j-core version.
 */
export function missingSlf4jBinding(jarNames: readonly string[]): MavenArtifact | undefined {
  if (jarNames.some((name) => SLF4J_BINDINGS.test(name))) return undefined;
  const log4j = jarNames.map((name) => /^log4j-core-(.+)\.jar$/.exec(name)?.[1]).find((v) => v !== undefined);
  const slf4j = jarNames.map((name) => /^slf4j-api-(\d+)\..+\.jar$/.exec(name)?.[1]).find((v) => v !== undefined);
  if (log4j === undefined || slf4j === undefined) return undefined;
  return {
    groupId: 'org.apache.logging.log4j',
    artifactId: slf4j === '1' ? 'log4j-slf4j-impl' : 'log4j-slf4j2-impl',
    version: log4j,
  };
}
