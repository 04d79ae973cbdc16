/**
 * TLS host name verification against a broker whose certificate (from the trusted CA) names
 * another host: refused by default with a clear message, accepted only when verification is
 * turned off explicitly (an empty `ssl.endpoint.identification.algorithm` in mm2.properties,
 * which maps to `ssl.verify_hostname: false`), and then a warning names the cluster. A cluster of this file's own whose broker certificate names only `broker.invalid`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import { runCli, scratchDir, spawnPipeline } from '../support/pipeline-harness';
import { securedClusters } from '../support/secured-clusters';
import { KafkaKit } from '../support/kafka-kit';
import { waitFor } from '../support/wait-for';
import { uniqueName } from '../support/unique-name';

const secured = securedClusters(['misnamed'], { users: ['mirror'], brokerHosts: ['broker.invalid'] });

before(async () => {
  await secured.ready();
});

async function pipelineFile(verifyHostname: boolean | undefined, topic: string): Promise<string> {
  const security = secured.security('misnamed');
  const password = await secured.password('misnamed', security.superUser);
  const ssl = { ca_file: security.caFile, ...(verifyHostname !== undefined && { verify_hostname: verifyHostname }) };
  const cluster = {
    bootstrap_servers: [security.saslSslBootstrap],
    security: { protocol: 'sasl_ssl', sasl: { mechanism: 'scram-sha-512', username: security.superUser, password }, ssl },
  };
  const file = join(scratchDir(), 'hostname.yaml');
  writeFileSync(
    file,
    stringify({
      name: uniqueName('hostname'),
      clusters: { source: cluster, target: cluster },
      flows: [{ source: 'source', target: 'target', topics: [topic], checkpoints: { enabled: false }, topic_sync: { refresh_interval_ms: 1000 } }],
      logging: { format: 'json' },
    }),
  );
  return file;
}

test('a broker certificate that does not name the host is refused by default, saying so and how to turn the check off', async () => {
  const file = await pipelineFile(undefined, uniqueName('refused'));
  const result = await runCli(['run', file, '--status-interval', '0'], 90_000);
  assert.equal(result.code, 69, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, /Cluster "(source|target)": TLS verification failed: the broker's certificate does not name the host it was reached at/);
  assert.match(result.stderr, /127\.0\.0\.1/);
  assert.match(result.stderr, /verify_hostname: false/);
});

test('with the check turned off (an empty ssl.endpoint.identification.algorithm in mm2.properties) the broker is used, with a warning per cluster', async () => {
  const security = secured.security('misnamed');
  const password = await secured.password('misnamed', security.superUser);
  const kit = new KafkaKit(security.saslSslBootstrap, {
    protocol: 'sasl_ssl',
    sasl: { mechanism: 'scram-sha-512', username: security.superUser, password },
    ssl: { caFile: security.caFile, verifyHostname: false, rejectUnauthorized: true },
  });
  try {
    const topic = uniqueName('accepted');
    await kit.createTopic(topic, 1);
    await kit.produce(topic, [{ partition: 0, key: Buffer.from('k'), value: Buffer.from('v'), headers: [], timestamp: Date.now() }]);
    const file = join(scratchDir(), 'mm2.properties');
    const cluster = (alias: string): string[] => [
      `${alias}.bootstrap.servers = ${security.saslSslBootstrap}`,
      `${alias}.security.protocol = SASL_SSL`,
      `${alias}.sasl.mechanism = SCRAM-SHA-512`,
      `${alias}.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="${security.superUser}" password="${password}";`,
      `${alias}.ssl.truststore.type = PEM`,
      `${alias}.ssl.truststore.location = ${security.caFile}`,
      `${alias}.ssl.endpoint.identification.algorithm =`,
    ];
    writeFileSync(
      file,
      [
        'clusters = source, target',
        ...cluster('source'),
        ...cluster('target'),
        'source->target.enabled = true',
        `source->target.topics = ${topic}`,
        'emit.checkpoints.enabled = false',
        'refresh.topics.interval.seconds = 1',
        'replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        'offset.storage.replication.factor = 1',
        'checkpoints.topic.replication.factor = 1',
        'heartbeats.topic.replication.factor = 1',
        '',
      ].join('\n'),
    );
    const child = spawnPipeline(file);
    await waitFor(async () => (await kit.topics()).has(`source.${topic}`) && (await kit.count(`source.${topic}`)) >= 1, {
      what: `the record in source.${topic}`,
      timeoutMs: 60_000,
    });
    const warnings = (child.stderr() + child.stdout()).split('\n').filter((line) => line.includes('TLS host name verification is off'));
    for (const alias of ['source', 'target']) {
      assert.ok(
        warnings.some((line) => new RegExp(`cluster"?[=:]"?${alias}\\b`).test(line)),
        `no warning for ${alias}:\n${warnings.join('\n')}\n${child.stderr().slice(-2000)}`,
      );
    }
    child.kill('SIGTERM');
    const result = await child.exited;
    assert.equal(result.code, 0, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  } finally {
    await kit.close();
  }
});

test("a role's own ssl block that turns verification off is warned about once, naming the cluster and the role", async () => {
  const security = secured.security('misnamed');
  const password = await secured.password('misnamed', security.superUser);
  const sasl = { mechanism: 'scram-sha-512', username: security.superUser, password };
  const cluster = (roles: Record<string, unknown> | undefined) => ({
    bootstrap_servers: [security.saslSslBootstrap],
    security: { protocol: 'sasl_ssl', sasl, ssl: { ca_file: security.caFile, verify_hostname: false }, ...(roles !== undefined && { roles }) },
  });
  const topic = uniqueName('role-unverified');
  const kit = new KafkaKit(security.saslSslBootstrap, {
    protocol: 'sasl_ssl',
    sasl: { mechanism: 'scram-sha-512', username: security.superUser, password },
    ssl: { caFile: security.caFile, verifyHostname: false, rejectUnauthorized: true },
  });
  try {
    await kit.createTopic(topic, 1);
    await kit.produce(topic, [{ partition: 0, key: Buffer.from('k'), value: Buffer.from('v'), headers: [], timestamp: Date.now() }]);
    const file = join(scratchDir(), 'role-unverified.yaml');
    writeFileSync(
      file,
      stringify({
        name: uniqueName('role-unverified'),
        // The target's producers verify nothing at all; the source's roles use the cluster's block.
        clusters: {
          source: cluster({ consumer: { sasl } }),
          target: cluster({ producer: { ssl: { ca_file: security.caFile, verify_hostname: false, reject_unauthorized: false } } }),
        },
        flows: [{ source: 'source', target: 'target', topics: [topic], checkpoints: { enabled: false }, topic_sync: { refresh_interval_ms: 1000 } }],
        logging: { format: 'json' },
      }),
    );
    const child = spawnPipeline(file);
    await waitFor(async () => (await kit.topics()).has(`source.${topic}`) && (await kit.count(`source.${topic}`)) >= 1, {
      what: `the record in source.${topic}`,
      timeoutMs: 60_000,
    });
    child.kill('SIGTERM');
    const result = await child.exited;
    assert.equal(result.code, 0, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
    const warnings = (result.stderr + '\n' + result.stdout)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level?: string; message?: string; cluster?: string; role?: string })
      .filter((entry) => entry.level === 'warn' && /verification is off/.test(entry.message ?? ''))
      .map((entry) => [entry.cluster, entry.role ?? null, /certificate verification is off/.test(entry.message!) ? 'all' : 'hostname']);
    assert.deepEqual(
      warnings.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [
        ['source', null, 'hostname'],
        ['target', 'producer', 'all'],
        ['target', null, 'hostname'],
      ],
    );
  } finally {
    await kit.close();
  }
});
