/**
 * MM2 driver files as people write them (issue #4) — the example of KIP-382, a Docker-style file
 * whose brokers come from a mounted secrets file, an active/active pair, SASL_SSL with SCRAM and
 * a file provider for the password — run through the real CLI: each validates, converts to YAML
 * that validates too, and both give the same pipeline; no secret is printed. The Docker-style
 * file then replicates between the test clusters, and its converted YAML carries on where it
 * stopped: the same flows, run either way.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPipeline } from '../../src/pipeline';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { spawnCli } from '../support/pipeline-harness';
import { mirrorflow } from './cli';

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let dir: string;

sharedClusterKits('mirrorflow-mm2-files-', (kits) => ({ clusters, primary, backup, dir } = kits));

const SECRET = 'scram-secret-not-for-printing';

/** Real-world-style files; `p` makes aliases and topics unique on the shared clusters. */
function files(p: string): Record<string, string> {
  const secrets = join(dir, `${p}-secrets.properties`);
  writeFileSync(secrets, `SRC_BROKERS=${clusters.primary}\nDST_BROKERS=${clusters.backup}\nmm2.password=${SECRET}\n`);
  const ca = join(dir, `${p}-ca.pem`);
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  return {
    // KIP-382, "Example: Migration" and the configuration section, word for word where it can be.
    'kip-382': [
      'clusters = primary, backup',
      `primary.bootstrap.servers = ${clusters.primary}`,
      `backup.bootstrap.servers = ${clusters.backup}`,
      'primary->backup.enabled = true',
      'primary->backup.topics = .*',
    ].join('\n'),
    // As Docker images of MM2 are set up: brokers from a mounted file, converters spelt out.
    'docker-mm2': [
      `clusters = src-${p}, dst-${p}`,
      'config.providers = file',
      'config.providers.file.class = org.apache.kafka.common.config.provider.FileConfigProvider',
      `src-${p}.bootstrap.servers = \${file:${secrets}:SRC_BROKERS}`,
      `dst-${p}.bootstrap.servers = \${file:${secrets}:DST_BROKERS}`,
      `src-${p}->dst-${p}.enabled = true`,
      `src-${p}->dst-${p}.topics = ${p}-.*`,
      'emit.heartbeats.enabled = false',
      'heartbeats.replication.enabled = false',
      'key.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
      'replication.factor = 1',
      'offset-syncs.topic.replication.factor = 1',
      'offset.storage.replication.factor = 1',
      'checkpoints.topic.replication.factor = 1',
      `dst-${p}.offset.flush.interval.ms = 500`,
      'sync.topic.acls.enabled = false',
    ].join('\n'),
    'active-active': [
      'clusters = us-west, us-east',
      `us-west.bootstrap.servers = ${clusters.primary}`,
      `us-east.bootstrap.servers = ${clusters.backup}`,
      'us-west->us-east.enabled = true',
      'us-east->us-west.enabled = true',
      'topics = orders.*, payments.*',
      'groups = .*',
      'emit.checkpoints.interval.seconds = 10',
      'sync.group.offsets.enabled = true',
      'us-west.producer.compression.type = zstd',
      'us-east.producer.compression.type = zstd',
      'sync.topic.acls.enabled = false',
    ].join('\n'),
    'sasl-ssl-scram': [
      'clusters = A, B',
      'config.providers = file',
      'config.providers.file.class = org.apache.kafka.common.config.provider.FileConfigProvider',
      `A.bootstrap.servers = ${clusters.primary}`,
      'B.bootstrap.servers = b1.example:9094, b2.example:9094',
      'B.security.protocol = SASL_SSL',
      'B.sasl.mechanism = SCRAM-SHA-512',
      `B.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="\${file:${secrets}:mm2.password}";`,
      'B.ssl.truststore.type = PEM',
      `B.ssl.truststore.location = ${ca}`,
      'A->B.enabled = true',
      'A->B.topics = .*',
      'sync.topic.acls.enabled = false',
    ].join('\n'),
  };
}

describe('MM2 driver files people write', () => {
  test('validate, convert to YAML that validates, and give the same pipeline both ways, printing no secret', async () => {
    const p = uniqueName('mm2files');
    for (const [name, text] of Object.entries(files(p))) {
      const properties = join(dir, `${name}.properties`);
      const yaml = join(dir, `${name}.yaml`);
      writeFileSync(properties, text);
      const validated = await mirrorflow(['validate', properties]);
      assert.equal(validated.code, 0, `${name}: ${validated.stderr}`);
      assert.equal(validated.stdout, `${properties}: ok\n`);
      const converted = await mirrorflow(['convert', properties, '-o', yaml]);
      assert.equal(converted.code, 0, `${name}: ${converted.stderr}`);
      const yamlText = readFileSync(yaml, 'utf8');
      assert.ok(!yamlText.includes(SECRET) && !converted.stderr.includes(SECRET), `${name}: the YAML or the notes hold the password`);
      assert.match(yamlText, /# .*\(line \d+\)/, `${name}: values name the MM2 key they came from`);
      const again = await mirrorflow(['validate', yaml]);
      assert.equal(again.code, 0, `${name}: ${again.stderr}\n${yamlText}`);
      const [fromProperties, fromYaml] = await Promise.all([loadPipeline(properties), loadPipeline(yaml)]);
      assert.deepEqual(fromYaml.config, fromProperties.config, name);
    }
  });

  test('the Docker-style file replicates, and its converted YAML carries on with the same flows', async () => {
    const p = uniqueName('mm2run');
    const text = files(p)['docker-mm2']!;
    const properties = join(dir, `docker-${p}.properties`);
    const yaml = join(dir, `docker-${p}.yaml`);
    writeFileSync(properties, text);
    const topic = `${p}-data`;
    const remote = `src-${p}.${topic}`;
    const batch = (from: number) =>
      Array.from({ length: 50 }, (_, i) => ({
        partition: i % 2,
        key: Buffer.from(`k${from + i}`),
        value: Buffer.from(`v${from + i}`),
        headers: [],
        timestamp: Date.now(),
      }));
    await primary.createTopic(topic, 2);
    await primary.produce(topic, batch(0));

    const runUntil = async (file: string, count: number): Promise<void> => {
      const run = spawnCli(['run', file, '--status-interval', '0', '--http', 'off']);
      await waitFor(async () => (await backup.count(remote)) >= count, { what: `${count} records in ${remote}`, timeoutMs: 60_000 });
      // Progress is flushed every 500 ms; stopping stores the rest.
      run.kill('SIGTERM');
      const exit = await run.exited;
      assert.equal(exit.code, 0, exit.stderr);
    };
    await runUntil(properties, 50);

    const converted = await mirrorflow(['convert', properties, '-o', yaml]);
    assert.equal(converted.code, 0, converted.stderr);
    await primary.produce(topic, batch(50));
    await runUntil(yaml, 100);
    // The YAML resumed from the properties run's progress: nothing was copied twice.
    assert.equal(await backup.count(remote), 100);
    const copied = (await backup.readAllFlat(remote)).map((r) => r.value?.toString()).sort();
    assert.deepEqual(copied, Array.from({ length: 100 }, (_, i) => `v${i}`).sort());
  });
});
