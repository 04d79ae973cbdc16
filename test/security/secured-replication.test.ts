/**
 * Replication between two secured clusters of this file's own (SASL_SSL and mutual TLS listeners,
 * the StandardAuthorizer on both): mirrorflow logs in as `mirror`, an ordinary user with ACLs,
 * never as the super user. Records come from Kafka's Java console producer with its own client
 * properties and from the test's own writer (binary keys, tombstones, repeated and null headers);
 * every one must reach the target byte for byte.
 *
 * - a YAML pipeline: SCRAM-SHA-512 over TLS on the source, a client certificate on the target;
 * - an mm2.properties file as MM2 users write it: the same logins, PEM truststore by location,
 *   the JAAS line, the client certificate and key inline in the file;
 * - the other mechanisms: PLAIN on the source, SCRAM-SHA-256 on the target, and the Java
 *   producer's SCRAM-SHA-256 and mutual TLS logins.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import type { TestRecord } from '../support/kafka-kit';
import { snapshot } from '../support/kafka-kit';
import { scratchDir, startPipeline } from '../support/pipeline-harness';
import { securedClusters, type LocalLogin, SINGLE_BROKER_MM2_LINES, scramSourceLines } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';

const secured = securedClusters(['source', 'target'], { users: ['mirror', 'writer'] });
const FAST_FLOW = {
  topic_sync: { refresh_interval_ms: 1000 },
  progress: { flush_interval_ms: 500 },
  consumer: { max_wait_ms: 100 },
  replicate_heartbeats: false,
};

before(async () => {
  await secured.ready();
  await secured.grantAll('source', 'mirror');
  await secured.grantAll('target', 'mirror');
  await secured.grantAll('source', 'writer');
});

/** Records the Java clients cannot easily write: binary bytes, null key and value, repeated and null headers. */
function ownRecords(count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: i % 2,
    key: i % 5 === 0 ? null : Buffer.from([0, 255, i & 0xff, 10]),
    value: i % 7 === 0 ? null : Buffer.from(`value ${i} \u00e9\u4e2d`, 'utf8'),
    headers: [
      { key: 'h', value: Buffer.from([i & 0xff]) },
      { key: 'h', value: null },
    ],
    timestamp: 1_700_000_000_000 + i,
  }));
}

/** Source topic with 2 partitions: the test's own records, then the Java producer's (as `writer`, with `login`). */
async function prepareSource(topic: string, javaLogin: LocalLogin): Promise<number> {
  const kit = await secured.adminKit('source');
  await kit.createTopic(topic, 2);
  const own = ownRecords(40);
  await kit.produce(topic, own);
  const java = Array.from({ length: 30 }, (_, i) => `trace:${i},trace:again\tk${i}\tjava value ${i}`);
  await secured.produceWithJava('source', javaLogin, 'writer', topic, java, scratchDir());
  const total = await kit.count(topic);
  assert.equal(total, own.length + java.length, 'records on the source');
  return total;
}

async function assertSameRecords(topic: string, remote: string): Promise<void> {
  const [source, target] = await Promise.all([secured.adminKit('source'), secured.adminKit('target')]);
  const [from, to] = await Promise.all([source.readAll(topic), target.readAll(remote)]);
  for (const partition of [0, 1]) {
    assert.deepEqual(snapshot(to.get(partition) ?? []), snapshot(from.get(partition) ?? []), `partition ${partition} of ${remote}`);
  }
}

async function replicate(file: string, remote: string, expected: number): Promise<void> {
  const running = await startPipeline(file);
  const target = await secured.adminKit('target');
  await running.until(async () => (await target.topics()).has(remote) && (await target.count(remote)) >= expected, {
    what: `${expected} records in ${remote}`,
    timeoutMs: 60_000,
  });
  await running.stop();
  assert.ok(
    running.logs.every((line) => line.level !== 'error'),
    running.logs
      .filter((l) => l.level === 'error')
      .map((l) => l.message)
      .join('\n'),
  );
}

test('a YAML pipeline replicates byte for byte from SCRAM-SHA-512 over TLS to mutual TLS, as an ordinary user under ACLs', async () => {
  const topic = uniqueName('scram-to-mtls');
  const total = await prepareSource(topic, 'scram-sha-512');
  const dir = scratchDir();
  const file = join(dir, 'secured.yaml');
  const document = {
    name: uniqueName('secured'),
    clusters: {
      source: (await secured.client('source', 'scram-sha-512', 'mirror')).yaml,
      target: (await secured.client('target', 'mtls', 'mirror')).yaml,
    },
    flows: [{ source: 'source', target: 'target', topics: [topic], checkpoints: { enabled: false }, ...FAST_FLOW }],
  };
  writeFileSync(file, stringify(document));
  await replicate(file, `source.${topic}`, total);
  await assertSameRecords(topic, `source.${topic}`);
});

test('an mm2.properties file with the JAAS line, a PEM truststore file and an inline client certificate replicates byte for byte', async () => {
  const topic = uniqueName('mm2-secured');
  const total = await prepareSource(topic, 'mtls');
  const source = secured.security('source');
  const target = secured.security('target');
  const password = await secured.password('source', 'mirror');
  const certificate = target.clientCertificates['mirror']!;
  // Kafka's docs write inline PEM over several lines, each ended with a backslash.
  const continued = (pem: string): string => pem.trim().split('\n').join(' \\\n    ');
  const dir = scratchDir();
  const file = join(dir, 'mm2.properties');
  writeFileSync(
    file,
    [
      'clusters = source, target',
      ...scramSourceLines(source.saslSslBootstrap, 'mirror', password),
      'source.ssl.truststore.type = PEM',
      `source.ssl.truststore.location = ${source.caFile}`,
      `target.bootstrap.servers = ${target.sslBootstrap}`,
      'target.security.protocol = SSL',
      'target.ssl.truststore.type = PEM',
      `target.ssl.truststore.certificates = ${continued(readFileSync(target.caFile, 'utf8'))}`,
      'target.ssl.keystore.type = PEM',
      `target.ssl.keystore.certificate.chain = ${continued(readFileSync(certificate.certFile, 'utf8'))}`,
      `target.ssl.keystore.key = ${continued(readFileSync(certificate.keyFile, 'utf8'))}`,
      'source->target.enabled = true',
      `source->target.topics = ${topic}`,
      'source->target.emit.checkpoints.enabled = false',
      'source->target.emit.heartbeats.enabled = false',
      ...SINGLE_BROKER_MM2_LINES,
      '',
    ].join('\n'),
  );
  await replicate(file, `source.${topic}`, total);
  await assertSameRecords(topic, `source.${topic}`);
});

test('PLAIN on the source and SCRAM-SHA-256 on the target replicate too', async () => {
  const topic = uniqueName('plain-to-scram256');
  const total = await prepareSource(topic, 'scram-sha-256');
  const file = join(scratchDir(), 'plain.yaml');
  writeFileSync(
    file,
    stringify({
      name: uniqueName('plain'),
      clusters: {
        source: (await secured.client('source', 'plain', 'mirror')).yaml,
        target: (await secured.client('target', 'scram-sha-256', 'mirror')).yaml,
      },
      flows: [{ source: 'source', target: 'target', topics: [topic], checkpoints: { enabled: false }, ...FAST_FLOW }],
    }),
  );
  await replicate(file, `source.${topic}`, total);
  await assertSameRecords(topic, `source.${topic}`);
});
