/**
 * Certificates rotated while a pipeline runs, against real secured brokers: the target is
 * reached with mutual TLS from PEM files of the test's own (CA bundle, client certificate and
 * key). Mid-run the target broker restarts with a certificate from a new CA, and trusts only
 * client certificates of that CA: the running pipeline now refuses the broker, and reports it as
 * an outage naming the cluster and the reason, without ending. Then the client's files are
 * replaced on disk (the CA file renamed over, the certificate and key rewritten in place, as a
 * rotation does); the pipeline, never restarted, picks them up on its next connection — it kept
 * nothing of the old files, which the broker would refuse — and every source record written
 * before, during and after the outage reaches the target, in order, none lost.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import { renderProperties } from '../../src/local/broker-properties';
import { createCertificateAuthority, issueCertificate, type CertificateAuthority } from '../../src/local/certificates';
import { distinct, KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { scratchDir, spawnPipeline, writePipelineText, type ChildPipeline } from '../support/pipeline-harness';
import { securedClusters } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';
import { waitFor } from '../support/wait-for';

const secured = securedClusters(['source', 'target'], { users: ['mirror'] });

before(async () => {
  await secured.ready();
  await secured.grantAll('source', 'mirror');
  await secured.grantAll('target', 'mirror');
});

/** Stops the target broker, gives it a certificate of `ca` and makes it trust only `ca`'s client certificates, starts it again. */
async function rotateBrokerCertificate(ca: CertificateAuthority): Promise<void> {
  const broker = secured.broker('target');
  const file = join(broker.cluster.dir, 'server.properties');
  const certificate = issueCertificate(ca, { commonName: 'mirrorflow-broker', hosts: ['127.0.0.1', 'localhost'] });
  const replaced: Record<string, string> = {
    'ssl.keystore.certificate.chain': certificate.certificatePem + ca.certificatePem,
    'ssl.keystore.key': certificate.keyPem,
    'ssl.truststore.certificates': ca.certificatePem,
  };
  await broker.halt();
  const kept = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !Object.keys(replaced).some((key) => line.startsWith(`${key}=`)));
  writeFileSync(file, kept.join('\n') + renderProperties(replaced), { mode: 0o600 });
  await broker.start();
}

interface LogEntry {
  level?: string;
  message?: string;
  cluster?: string;
  error?: string;
}

function logEntries(child: ChildPipeline): LogEntry[] {
  return (child.stderr() + '\n' + child.stdout())
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogEntry);
}

const batch = (from: number, count: number): TestRecord[] =>
  Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % 2,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`v${from + i}`),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: Date.now() - 60_000 + from + i,
  }));

test('a broker certificate rotated to a new CA is an outage naming the cluster and the reason; client files replaced on disk are used on reconnect, nothing lost', async () => {
  const target = secured.security('target');
  const dir = scratchDir();
  const caFile = join(dir, 'target-ca.pem');
  const certFile = join(dir, 'mirror.pem');
  const keyFile = join(dir, 'mirror.key');
  copyFileSync(target.caFile, caFile);
  copyFileSync(target.clientCertificates['mirror']!.certFile, certFile);
  copyFileSync(target.clientCertificates['mirror']!.keyFile, keyFile);

  const next = createCertificateAuthority('mirrorflow rotated CA');
  // The test's own view of the target trusts both CAs, before and after the rotation.
  const bothCas = join(dir, 'both-cas.pem');
  writeFileSync(bothCas, readFileSync(target.caFile, 'utf8') + next.certificatePem);
  const targetKit = new KafkaKit(target.saslSslBootstrap, {
    protocol: 'sasl_ssl',
    sasl: { mechanism: 'scram-sha-512', username: target.superUser, password: await secured.password('target', target.superUser) },
    ssl: { caFile: bothCas, verifyHostname: true, rejectUnauthorized: true },
  });
  const sourceKit = await secured.adminKit('source');
  const topic = uniqueName('rotated');
  await sourceKit.createTopic(topic, 2);
  const records = [...batch(0, 30), ...batch(30, 30), ...batch(60, 30)];
  await sourceKit.produce(topic, records.slice(0, 30));

  const name = uniqueName('rotation');
  const file = writePipelineText(
    stringify({
      name,
      clusters: {
        source: (await secured.client('source', 'scram-sha-512', 'mirror')).yaml,
        target: { bootstrap_servers: [target.sslBootstrap], security: { protocol: 'ssl', ssl: { ca_file: caFile, cert_file: certFile, key_file: keyFile } } },
      },
      flows: [
        {
          source: 'source',
          target: 'target',
          topics: [topic],
          replicate_heartbeats: false,
          checkpoints: { enabled: false },
          heartbeats: { enabled: false },
          topic_sync: { refresh_interval_ms: 1000, replication_factor: 1, acls: { enabled: false } },
          progress: { flush_interval_ms: 500 },
          consumer: { max_wait_ms: 100 },
        },
      ],
      logging: { format: 'json' },
    }),
    `${name}.yaml`,
  );
  const remote = `source.${topic}`;
  const child = spawnPipeline(file);
  let exit: number | null | undefined;
  void child.exited.then((result) => (exit = result.code));
  const copied = async (count: number): Promise<boolean> => {
    if (exit !== undefined) throw new Error(`the run ended (exit ${exit}):\n${child.stderr().slice(-3000)}`);
    return (await targetKit.topics().catch(() => new Set<string>())).has(remote) && distinct(await targetKit.readAllFlat(remote)).length >= count;
  };
  try {
    await waitFor(() => copied(30), { what: `the first 30 records in ${remote}`, timeoutMs: 90_000 });

    await rotateBrokerCertificate(next);
    await sourceKit.produce(topic, records.slice(30, 60));
    const refused = await waitFor(
      () =>
        logEntries(child).find(
          (e) => e.level === 'warn' && e.cluster === 'target' && /keeps failing/.test(e.message ?? '') && /TLS verification failed/.test(e.error ?? ''),
        ),
      { what: 'an outage warning naming the target and the TLS reason', timeoutMs: 120_000 },
    );
    assert.match(refused.error!, /TLS verification failed: the broker's certificate is not trusted \(.+\); trusted CAs come from .*target-ca\.pem/);
    assert.equal(exit, undefined, 'the run goes on through the outage');
    assert.equal((await targetKit.readAllFlat(remote)).length >= 30, true);

    // The rotation reaches the client: CA bundle renamed over the old one, certificate and key rewritten in place.
    const client = issueCertificate(next, { commonName: 'mirror' });
    writeFileSync(join(dir, 'target-ca.pem.new'), next.certificatePem);
    renameSync(join(dir, 'target-ca.pem.new'), caFile);
    writeFileSync(certFile, client.certificatePem);
    writeFileSync(keyFile, client.keyPem);
    await sourceKit.produce(topic, records.slice(60));

    await waitFor(() => copied(records.length), { what: `all ${records.length} records in ${remote} after the rotation`, timeoutMs: 120_000 });
    await waitFor(() => logEntries(child).some((e) => e.cluster === 'target' && /works again after an outage/.test(e.message ?? '')), {
      what: 'the outage reported as ended',
      timeoutMs: 30_000,
    });
    child.kill('SIGTERM');
    const result = await child.exited;
    assert.equal(result.code, 0, `a stopped run exits 0; stderr:\n${result.stderr.slice(-3000)}`);

    // Once or more, and in order per partition: without repeats, each partition is the source's.
    const written = await targetKit.readAllFlat(remote);
    for (const partition of [0, 1]) {
      assert.deepEqual(
        snapshot(distinct(written.filter((r) => r.partition === partition))),
        snapshot(records.filter((r) => r.partition === partition)),
        `partition ${partition}`,
      );
    }
  } finally {
    child.kill('SIGKILL');
    await targetKit.close();
  }
});
