/**
 * A real Confluent-compatible Schema Registry for the tests: Apicurio Registry 2.4.2.Final,
 * assembled from Maven Central into ~/.cache/mirrorflow/apicurio and run in-memory (H2) on a free
 * loopback port, its Confluent API at `/apis/ccompat/v7`. Never a mock: tests reach it with the
 * npm client, as users' applications do.
 *
 * Apicurio publishes its server as a plain Quarkus jar (`io.apicurio:apicurio-registry-app`), not
 * a runnable one: a throw-away Maven project unpacks it as its own classes and runs Quarkus'
 * build (2.16.4.Final, Apicurio's). What Maven Central serves decides the rest:
 * - 2.4.2.Final is the newest release whose modules are all there (2.6.x and 3.x lack
 *   `apicurio-registry-schema-util-provider` and siblings; 3.0.9 lacks its parent POM);
 * - its `org.everit.json.schema` 1.14.2 is a JitPack artifact: the same library's Central
 *   coordinates (`com.github.erosb:everit-json-schema`) replace it;
 * - the deployment half of its config-index extension is missing: the extension is left out and
 *   one small producer gives the (empty) list of settings changeable at run time;
 * - its parent POM names other repositories: a mirror sends every request to Maven Central.
 * Its Confluent API has no `/mode`, so it takes no schema with a given id (no IMPORT mode).
 *
 * `node dist/test/support/schema-registry.js --fetch` builds it ahead of the tests; the test runner
 * (run-tests.ts) does the same before the integration tests when a file of the run needs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withFileLock } from '../../src/local/file-lock';
import { findFreePorts } from '../../src/local/free-ports';
import { javaExecutable, summarizeMavenErrors } from '../../src/local/kafka-distribution';
import { mirrorflowCacheDir } from '../../src/local/paths';
import { waitFor } from './wait-for';

export const APICURIO_VERSION = '2.4.2.Final';
/** The Quarkus that Apicurio 2.4.2.Final is built with (its parent POM's quarkus.version). */
const QUARKUS_VERSION = '2.16.4.Final';
const MAVEN_CENTRAL = 'https://repo.maven.apache.org/maven2';
const RUNNER_JAR = 'registry-runner.jar';

export interface SchemaRegistry {
  /** The Confluent-compatible API: `http://127.0.0.1:<port>/apis/ccompat/v7`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** The built registry's folder (its runner jar and lib/), built with Maven the first time. */
export async function ensureSchemaRegistryApp(options: { readonly cacheDir?: string; readonly timeoutMs?: number } = {}): Promise<string> {
  const versionDir = join(options.cacheDir ?? mirrorflowCacheDir(), 'apicurio', APICURIO_VERSION);
  const appDir = join(versionDir, 'app');
  if (existsSync(appDir)) return appDir;
  const timeoutMs = options.timeoutMs ?? 20 * 60_000;
  await mkdir(versionDir, { recursive: true });
  return withFileLock(
    join(versionDir, '.lock'),
    async () => {
      if (existsSync(appDir)) return appDir; // built while we waited
      for (const name of await readdir(versionDir)) {
        if (name.startsWith('.staging-')) await rm(join(versionDir, name), { recursive: true, force: true });
      }
      await rm(appDir + '.new', { recursive: true, force: true });
      const staging = await mkdtemp(join(versionDir, '.staging-'));
      try {
        await writeFile(join(staging, 'pom.xml'), renderRegistryPom());
        await writeFile(join(staging, 'settings.xml'), CENTRAL_ONLY_SETTINGS);
        const sources = join(staging, 'src', 'main', 'java', 'local', 'mirrorflow', 'registry');
        await mkdir(sources, { recursive: true });
        await writeFile(join(sources, 'DynamicConfigProperties.java'), DYNAMIC_CONFIG_PRODUCER);
        const mvn = process.env['MIRRORFLOW_MVN'] ?? 'mvn';
        await run(mvn, ['-B', '-q', '-Dstyle.color=never', '-Dmaven.artifact.threads=8', '-s', 'settings.xml', 'package'], staging, timeoutMs);
        // Quarkus 2's legacy jar, as Apicurio's settings ask: the runner jar and lib/ beside it.
        await mkdir(appDir + '.new');
        await rename(join(staging, 'target', 'lib'), join(appDir + '.new', 'lib'));
        await rename(join(staging, 'target', `schema-registry-${APICURIO_VERSION}-runner.jar`), join(appDir + '.new', RUNNER_JAR));
        await rename(appDir + '.new', appDir);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
      return appDir;
    },
    { timeoutMs },
  );
}

/** Starts an empty registry on a free loopback port; resolves once its Confluent API answers. */
export async function startSchemaRegistry(): Promise<SchemaRegistry> {
  const appDir = await ensureSchemaRegistryApp();
  const [port] = await findFreePorts(1);
  const child = spawn(
    javaExecutable(),
    [
      '-Xms64m',
      '-Xmx384m',
      '-XX:+UseSerialGC',
      // The quick compiler only: it starts in a fraction of the time on a busy machine, and the tests ask little.
      '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true',
      '-Dquarkus.http.host=127.0.0.1',
      `-Dquarkus.http.port=${port}`,
      '-Dquarkus.log.level=WARN',
      '-jar',
      join(appDir, RUNNER_JAR),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const url = `http://127.0.0.1:${port}/apis/ccompat/v7`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the registry exited with ${child.exitCode}: ${stderr.trim()}`);
        const response = await fetch(`${url}/subjects`);
        return response.ok;
      },
      { what: `Apicurio Registry ${APICURIO_VERSION} to answer on ${url}`, timeoutMs: 360_000, intervalMs: 500 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

export function renderRegistryPom(): string {
  const app = `<groupId>io.apicurio</groupId><artifactId>apicurio-registry-app</artifactId><version>${APICURIO_VERSION}</version>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by mirrorflow's tests (test/support/schema-registry.ts) to build Apicurio Registry; safe to delete. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.mirrorflow</groupId>
  <artifactId>schema-registry</artifactId>
  <version>${APICURIO_VERSION}</version>
  <packaging>jar</packaging>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <quarkus.native.builder-image>none</quarkus.native.builder-image>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency><groupId>io.quarkus</groupId><artifactId>quarkus-bom</artifactId><version>${QUARKUS_VERSION}</version><type>pom</type><scope>import</scope></dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      ${app}
      <exclusions>
        <exclusion><groupId>io.apicurio</groupId><artifactId>apicurio-common-app-components-config-index</artifactId></exclusion>
        <exclusion><groupId>com.github.everit-org.json-schema</groupId><artifactId>org.everit.json.schema</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency><groupId>com.github.erosb</groupId><artifactId>everit-json-schema</artifactId><version>1.14.2</version></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version>
        <executions><execution><id>unpack-app</id><phase>process-resources</phase><goals><goal>unpack</goal></goals>
          <configuration><artifactItems><artifactItem>${app}<outputDirectory>\${project.build.outputDirectory}</outputDirectory><excludes>META-INF/MANIFEST.MF,META-INF/maven/**</excludes></artifactItem></artifactItems></configuration>
        </execution></executions>
      </plugin>
      <plugin>
        <groupId>io.quarkus</groupId><artifactId>quarkus-maven-plugin</artifactId><version>${QUARKUS_VERSION}</version>
        <executions><execution><goals><goal>build</goal></goals></execution></executions>
      </plugin>
    </plugins>
  </build>
</project>
`;
}

/**
 * The list of Apicurio's settings changeable at run time is made at build time by the deployment
 * half of its config-index Quarkus extension, which Maven Central lacks: without the extension,
 * this gives the list, empty (the registry then takes its settings from its start only).
 */
const DYNAMIC_CONFIG_PRODUCER = `package local.mirrorflow.registry;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.context.ApplicationScoped;
import javax.enterprise.inject.Produces;

public class DynamicConfigProperties {
  @Produces
  @ApplicationScoped
  DynamicConfigPropertyList properties() {
    return new DynamicConfigPropertyList(List.of());
  }
}
`;

const CENTRAL_ONLY_SETTINGS = `<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
  <mirrors>
    <mirror><id>central-only</id><mirrorOf>*</mirrorOf><url>${MAVEN_CENTRAL}</url></mirror>
  </mirrors>
</settings>
`;

function run(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer): void => void (output = (output + chunk.toString('utf8')).slice(-64_000));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`Maven ("${command}") could not be run to build Apicurio Registry: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `Apicurio Registry ${APICURIO_VERSION} could not be built from Maven Central (${signal ?? `exit ${code}`}): ${summarizeMavenErrors(output)}`,
          ),
        );
    });
  });
}

if (require.main === module && process.argv.includes('--fetch')) {
  ensureSchemaRegistryApp().then(
    (dir) => console.log(`Apicurio Registry ${APICURIO_VERSION}: ${dir}`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
