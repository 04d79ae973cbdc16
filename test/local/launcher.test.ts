import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import { LocalKafkaError } from '../../src/core/errors';
import { defaultKafkaVersion, ensureKafkaDistribution, isProcessAlive, startLocalClusters, type LocalCluster, type LocalClusters } from '../../src/local';
import { uniqueName, waitFor } from '../support/clusters';

const fixtures = join(__dirname, 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'mirrorflow-launcher-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Pids of live processes whose command line mentions `text` (Linux /proc). */
function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text) && isProcessAlive(pid);
      } catch {
        return false;
      }
    });
}

function admin(cluster: LocalCluster) {
  return new Kafka({ clientId: 'launcher-test', brokers: [cluster.bootstrapServers], logLevel: logLevel.NOTHING }).admin();
}

describe('startLocalClusters', () => {
  let clusters: LocalClusters;
  before(async () => {
    clusters = await startLocalClusters({ aliases: ['left', 'right'], workDir: scratch });
  });
  after(() => clusters?.stop());

  test('starts each alias as its own cluster on its own ports, and each serves Kafka clients', async () => {
    const left = clusters.clusters['left']!;
    const right = clusters.clusters['right']!;
    const ports = [left.port, left.controllerPort, right.port, right.controllerPort];
    assert.equal(new Set(ports).size, 4, `ports must not be shared: ${ports.join(', ')}`);
    assert.notEqual(left.clusterId, right.clusterId);
    assert.deepEqual(clusters.bootstrapServers(), { left: left.bootstrapServers, right: right.bootstrapServers });

    for (const cluster of [left, right]) {
      const client = admin(cluster);
      await client.connect();
      try {
        const description = await client.describeCluster();
        assert.equal(description.clusterId, cluster.clusterId);
        assert.deepEqual(
          description.brokers.map((broker) => broker.port),
          [cluster.port],
        );
        const topic = uniqueName('launcher');
        assert.equal(await client.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true }), true);
        assert.ok((await client.listTopics()).includes(topic));
      } finally {
        await client.disconnect();
      }
    }
  });

  test('brokers log to a file in their work dir', () => {
    const log = readFileSync(clusters.clusters['left']!.logFile, 'utf8');
    assert.match(log, /Kafka Server started/);
  });

  test('stop() leaves no broker process and no temp dir behind', async () => {
    const started = Object.values(clusters.clusters);
    await clusters.stop();
    for (const cluster of started) {
      assert.equal(isProcessAlive(cluster.pid), false, `broker ${cluster.alias} (pid ${cluster.pid}) still runs`);
      assert.deepEqual(processesMentioning(cluster.dir), [], `a process still uses ${cluster.dir}`);
      assert.equal(existsSync(cluster.dir), false, `${cluster.dir} still exists`);
    }
  });
});

test('a cluster does not outlive its owner process when that process is killed with SIGKILL', async () => {
  const child = spawn(process.execPath, [join(fixtures, 'hold-cluster.js'), scratch], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await waitFor(() => stdout.split('\n')[0] || (child.exitCode !== null ? Promise.reject(new Error(stderr)) : undefined), {
    what: 'the child process to report its started cluster',
    timeoutMs: 120_000,
  });
  const cluster = JSON.parse(line) as LocalCluster;
  assert.equal(isProcessAlive(cluster.pid), true);

  child.kill('SIGKILL');
  await waitFor(() => !isProcessAlive(cluster.pid) && !existsSync(cluster.dir) && processesMentioning(cluster.dir).length === 0, {
    what: `the broker (pid ${cluster.pid}) of the killed process to stop and ${cluster.dir} to be deleted`,
    timeoutMs: 30_000,
  });
});

test('two processes asking for the same Kafka version at once share one download', async () => {
  const cacheDir = join(scratch, 'cache');
  const run = () =>
    new Promise<{ libDir: string; fetched: boolean; waited: boolean }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(fixtures, 'fetch-distribution.js'), cacheDir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}: ${err}`))));
    });
  const [a, b] = await Promise.all([run(), run()]);
  assert.equal(a.libDir, b.libDir);
  assert.equal(Number(a.fetched) + Number(b.fetched), 1, 'exactly one process runs Maven');
  assert.ok(a.waited || b.waited, 'the other one waits for it');
  const jars = readdirSync(a.libDir);
  assert.ok(jars.includes(`kafka_2.13-${defaultKafkaVersion()}.jar`));
  assert.ok(jars.some((jar) => jar.startsWith('connect-mirror-')));
  const versionDir = join(a.libDir, '..');
  assert.deepEqual(readdirSync(versionDir).sort(), ['lib', 'pom.xml'], 'no lock file or staging dir is left');
});

test('an older Kafka line can be selected: 3.9.1 starts, serves clients and logs through log4j 1', async () => {
  const clusters = await startLocalClusters({ aliases: ['old'], version: '3.9.1', workDir: scratch });
  try {
    const cluster = clusters.clusters['old']!;
    assert.equal(clusters.distribution.logging, 'log4j1');
    const client = admin(cluster);
    await client.connect();
    try {
      assert.equal((await client.describeCluster()).clusterId, cluster.clusterId);
    } finally {
      await client.disconnect();
    }
    assert.match(readFileSync(cluster.logFile, 'utf8'), /Kafka Server started/);
  } finally {
    await clusters.stop();
  }
});

test('an unknown Kafka version fails with a LocalKafkaError that names it', async () => {
  const cacheDir = join(scratch, 'bad-version-cache');
  await assert.rejects(ensureKafkaDistribution('0.0.1', { cacheDir }), (error: unknown) => {
    assert.ok(error instanceof LocalKafkaError, `expected LocalKafkaError, got ${String(error)}`);
    assert.match(error.message, /Kafka 0\.0\.1 could not be fetched from Maven Central/);
    assert.match(error.message, /kafka_2\.13/, 'the message quotes the artifact Maven could not find');
    return true;
  });
  assert.deepEqual(readdirSync(join(cacheDir, 'kafka', '0.0.1')), [], 'nothing half-fetched is left');
  await assert.rejects(ensureKafkaDistribution('latest', { cacheDir }), LocalKafkaError);
});
