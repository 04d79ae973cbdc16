/**
 * JKS and PKCS12 stores, made as MM2 users make them with Java 17's keytool, used against two
 * secured clusters of this file's own (SCRAM over TLS on the source, mutual TLS on the target):
 *
 * - an mm2.properties file: a JKS truststore (`keytool -importcert -storetype JKS`) with SCRAM on
 *   the source; on the target a PKCS12 keystore (`keytool -importkeystore` from the PKCS12 file
 *   openssl makes of the client certificate and key) and a PKCS12 truststore without
 *   `ssl.truststore.type` (Kafka's default type is JKS; Java reads the file by its content);
 * - a YAML pipeline: a PKCS12 truststore with SCRAM on the source, a JKS keystore and truststore
 *   on the target;
 * - a wrong store password ends the run with exit 78, naming the cluster and the file, never the
 *   password.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import { snapshot } from '../support/kafka-kit';
import { runCli, scratchDir, startPipeline } from '../support/pipeline-harness';
import { securedClusters, SINGLE_BROKER_MM2_LINES, scramSourceLines } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';

const secured = securedClusters(['source', 'target'], { users: ['mirror'] });
const TRUST_PASSWORD = 'trust-pass-5e1b';
const KEY_PASSWORD = 'key-pass-90c4';

interface Stores {
  readonly sourceTrustJks: string;
  readonly sourceTrustP12: string;
  readonly targetTrustJks: string;
  readonly targetTrustP12: string;
  readonly targetKeyJks: string;
  readonly targetKeyP12: string;
}
let stores: Stores;

function keytool(...args: string[]): void {
  execFileSync('keytool', args, { stdio: 'pipe' });
}

function truststore(dir: string, name: string, caFile: string, type: 'JKS' | 'PKCS12'): string {
  const file = join(dir, name);
  keytool('-importcert', '-noprompt', '-alias', 'local-ca', '-file', caFile, '-keystore', file, '-storetype', type, '-storepass', TRUST_PASSWORD);
  return file;
}

before(async () => {
  await secured.ready();
  await secured.grantAll('source', 'mirror');
  await secured.grantAll('target', 'mirror');
  const dir = scratchDir();
  const source = secured.security('source');
  const target = secured.security('target');
  const client = target.clientCertificates['mirror']!;
  const openssl = join(dir, 'mirror.p12');
  execFileSync('openssl', [
    'pkcs12',
    '-export',
    '-in',
    client.certFile,
    '-inkey',
    client.keyFile,
    '-name',
    'mirror',
    '-out',
    openssl,
    '-passout',
    `pass:${KEY_PASSWORD}`,
  ]);
  const keystore = (name: string, type: 'JKS' | 'PKCS12'): string => {
    const file = join(dir, name);
    keytool(
      '-importkeystore',
      ...['-srckeystore', openssl, '-srcstoretype', 'PKCS12', '-srcstorepass', KEY_PASSWORD],
      ...['-destkeystore', file, '-deststoretype', type, '-deststorepass', KEY_PASSWORD],
    );
    return file;
  };
  stores = {
    sourceTrustJks: truststore(dir, 'source-truststore.jks', source.caFile, 'JKS'),
    sourceTrustP12: truststore(dir, 'source-truststore.p12', source.caFile, 'PKCS12'),
    targetTrustJks: truststore(dir, 'target-truststore.jks', target.caFile, 'JKS'),
    targetTrustP12: truststore(dir, 'target-truststore.p12', target.caFile, 'PKCS12'),
    targetKeyJks: keystore('target-keystore.jks', 'JKS'),
    targetKeyP12: keystore('target-keystore.p12', 'PKCS12'),
  };
});

async function prepareSource(topic: string): Promise<number> {
  const kit = await secured.adminKit('source');
  await kit.createTopic(topic, 2);
  await kit.produce(
    topic,
    Array.from({ length: 30 }, (_, i) => ({
      partition: i % 2,
      key: i % 4 === 0 ? null : Buffer.from([0, 255, i]),
      value: Buffer.from(`value ${i} \u00e9`, 'utf8'),
      headers: [{ key: 'h', value: Buffer.from([i]) }],
      timestamp: 1_700_000_000_000 + i,
    })),
  );
  return kit.count(topic);
}

async function replicate(file: string, topic: string, total: number): Promise<void> {
  const remote = `source.${topic}`;
  const running = await startPipeline(file);
  const target = await secured.adminKit('target');
  await running.until(async () => (await target.topics()).has(remote) && (await target.count(remote)) >= total, {
    what: `${total} records in ${remote}`,
    timeoutMs: 60_000,
  });
  await running.stop();
  const errors = running.logs.filter((line) => line.level === 'error').map((line) => line.message);
  assert.deepEqual(errors, []);
  const [from, to] = await Promise.all([(await secured.adminKit('source')).readAll(topic), target.readAll(remote)]);
  for (const partition of [0, 1]) {
    assert.deepEqual(snapshot(to.get(partition) ?? []), snapshot(from.get(partition) ?? []), `partition ${partition} of ${remote}`);
  }
}

async function mm2File(topic: string, overrides: { sourceTruststorePassword?: string } = {}): Promise<string> {
  const source = secured.security('source');
  const target = secured.security('target');
  const password = await secured.password('source', 'mirror');
  const file = join(scratchDir(), 'mm2.properties');
  writeFileSync(
    file,
    [
      'clusters = source, target',
      ...scramSourceLines(source.saslSslBootstrap, 'mirror', password),
      'source.ssl.truststore.type = JKS',
      `source.ssl.truststore.location = ${stores.sourceTrustJks}`,
      `source.ssl.truststore.password = ${overrides.sourceTruststorePassword ?? TRUST_PASSWORD}`,
      `target.bootstrap.servers = ${target.sslBootstrap}`,
      'target.security.protocol = SSL',
      // No ssl.truststore.type: Kafka's default (JKS), and the file is a PKCS12 store keytool made.
      `target.ssl.truststore.location = ${stores.targetTrustP12}`,
      `target.ssl.truststore.password = ${TRUST_PASSWORD}`,
      'target.ssl.keystore.type = PKCS12',
      `target.ssl.keystore.location = ${stores.targetKeyP12}`,
      `target.ssl.keystore.password = ${KEY_PASSWORD}`,
      `target.ssl.key.password = ${KEY_PASSWORD}`,
      'source->target.enabled = true',
      `source->target.topics = ${topic}`,
      'source->target.emit.checkpoints.enabled = false',
      'source->target.emit.heartbeats.enabled = false',
      ...SINGLE_BROKER_MM2_LINES,
      '',
    ].join('\n'),
  );
  return file;
}

test('an mm2.properties file with a JKS truststore and SCRAM on one side, a PKCS12 keystore (mTLS) on the other, replicates byte for byte', async () => {
  const topic = uniqueName('mm2-keystores');
  const total = await prepareSource(topic);
  await replicate(await mm2File(topic), topic, total);
});

test('a YAML pipeline with a PKCS12 truststore and SCRAM on one side, a JKS keystore and truststore on the other, replicates byte for byte', async () => {
  const topic = uniqueName('yaml-keystores');
  const total = await prepareSource(topic);
  const source = secured.security('source');
  const target = secured.security('target');
  const file = join(scratchDir(), 'keystores.yaml');
  writeFileSync(
    file,
    stringify({
      name: uniqueName('keystores'),
      clusters: {
        source: {
          bootstrap_servers: [source.saslSslBootstrap],
          security: {
            protocol: 'sasl_ssl',
            sasl: { mechanism: 'scram-sha-512', username: 'mirror', password: await secured.password('source', 'mirror') },
            ssl: { truststore_file: stores.sourceTrustP12, truststore_password: TRUST_PASSWORD },
          },
        },
        target: {
          bootstrap_servers: [target.sslBootstrap],
          security: {
            protocol: 'ssl',
            ssl: {
              truststore_file: stores.targetTrustJks,
              truststore_password: TRUST_PASSWORD,
              keystore_file: stores.targetKeyJks,
              keystore_password: KEY_PASSWORD,
            },
          },
        },
      },
      flows: [
        {
          source: 'source',
          target: 'target',
          topics: [topic],
          checkpoints: { enabled: false },
          replicate_heartbeats: false,
          topic_sync: { refresh_interval_ms: 1000 },
          progress: { flush_interval_ms: 500 },
        },
      ],
    }),
  );
  await replicate(file, topic, total);
});

test('a wrong truststore password ends the run with exit 78, naming the cluster and the file, never the password', async () => {
  const wrong = 'wrong-trust-pass-77d2';
  const result = await runCli(['run', await mm2File(uniqueName('never'), { sourceTruststorePassword: wrong }), '--status-interval', '0'], 90_000);
  const output = result.stdout + result.stderr;
  assert.equal(result.code, 78, `exit code; output:\n${output.slice(-3000)}`);
  assert.match(
    output,
    /mm2\.properties:\d+:\d+: source\.ssl\.truststore\.password: the truststore \S*source-truststore\.jks cannot be read: .*password is wrong/,
  );
  assert.match(output, /ssl\.truststore\.password/);
  for (const secret of [wrong, TRUST_PASSWORD, KEY_PASSWORD]) assert.ok(!output.includes(secret), `a password was printed:\n${output.slice(-3000)}`);
});
