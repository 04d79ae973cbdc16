/**
 * Kerberos (SASL GSSAPI) as on-premises MM2 users run it: a real MIT KDC on loopback (Debian's
 * krb5-kdc), two Kafka clusters with a SASL_PLAINTEXT listener that takes only GSSAPI (the
 * brokers log in from their own keytab, Java's Krb5LoginModule), records written by Kafka's Java
 * console producer logged in with Kerberos too, and mirrorflow logging in from a keytab:
 *
 * - an mm2.properties file as MM2 users write it (Krb5LoginModule in sasl.jaas.config, the
 *   krb5.conf from the environment) replicates byte for byte;
 * - a YAML pipeline whose principal's tickets live 20 seconds, on brokers that make clients log
 *   in again every 15: replication goes on across several ticket lifetimes, the tickets taken
 *   again from the keytab;
 * - a keytab whose key the KDC no longer has ends the run with exit 69 and says so.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { stringify } from '#yaml';
import { javaCommand } from '../../src/local/kafka-distribution';
import { snapshot } from '../support/kafka-kit';
import { startKdc, type Kdc } from '../support/kerberos-kdc';
import { ownClusters } from '../support/own-clusters';
import { runCli, scratchDir, spawnCli, spawnPipeline } from '../support/pipeline-harness';
import { SINGLE_BROKER_MM2_LINES } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';
import { waitFor } from '../support/wait-for';

const REALM = 'MIRRORFLOW.TEST';
const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-kerberos-'));
const brokerKeytab = join(dir, 'kafka.keytab');
const KRB5_MODULE = 'com.sun.security.auth.module.Krb5LoginModule';
let kdc: Kdc | undefined;
/** Keytab files by principal name. */
const principals = new Map<string, string>();
const kdcStarted = (): Kdc => {
  if (kdc === undefined) throw new Error('The KDC did not start.');
  return kdc;
};

/** Each broker has a KERBEROS listener (SASL_PLAINTEXT, GSSAPI only) on its one reserved port. */
const clusters = ownClusters(['src', 'dst'], {
  extraPorts: 1,
  jvmOptions: [`-Djava.security.krb5.conf=${join(dir, 'kdc', 'krb5.conf')}`],
  // Before the brokers start: their principal and keytab, and the clients' principals.
  prepare: async () => {
    kdc = await startKdc(join(dir, 'kdc'), REALM);
    await kdc.addPrincipal('kafka/localhost', { keytab: brokerKeytab });
    for (const name of ['mirrorflow', 'writer', 'rotated']) principals.set(name, await kdc.addPrincipal(name));
    principals.set('shortlived', await kdc.addPrincipal('shortlived', { maxLife: '20 seconds' }));
  },
  brokerProperties: {
    listeners: (a) => `PLAINTEXT://${a.host}:${a.brokerPort},CONTROLLER://${a.host}:${a.controllerPort},KERBEROS://${a.host}:${a.extraPorts[0]}`,
    'advertised.listeners': (a) => `PLAINTEXT://${a.host}:${a.brokerPort},KERBEROS://${a.host}:${a.extraPorts[0]}`,
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,KERBEROS:SASL_PLAINTEXT',
    'listener.name.kerberos.sasl.enabled.mechanisms': 'GSSAPI',
    'sasl.kerberos.service.name': 'kafka',
    'listener.name.kerberos.gssapi.sasl.jaas.config': `${KRB5_MODULE} required useKeyTab=true storeKey=true keyTab="${brokerKeytab}" principal="kafka/localhost@${REALM}";`,
    // Clients log in again every 15 s, so that a ticket's end is met within a test.
    'connections.max.reauth.ms': '15000',
  },
});

after(async () => {
  await kdc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const kerberosBootstrap = (alias: 'src' | 'dst'): string => `127.0.0.1:${clusters.cluster(alias).extraPorts[0]![0]}`;
const keytab = (name: string): string => principals.get(name)!;

/** Writes `lines` (key TAB value) with Kafka's Java console producer, logged in as `writer` with Kerberos. */
async function produceWithJava(topic: string, lines: readonly string[]): Promise<void> {
  const config = join(scratchDir(), 'writer.properties');
  writeFileSync(
    config,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=GSSAPI',
      'sasl.kerberos.service.name=kafka',
      `sasl.jaas.config=${KRB5_MODULE} required useKeyTab=true storeKey=true keyTab="${keytab('writer')}" principal="writer@${REALM}";`,
      'compression.type=lz4',
      'linger.ms=5',
      '',
    ].join('\n'),
  );
  const java = javaCommand(clusters.distribution(), {
    mainClass: 'org.apache.kafka.tools.ConsoleProducer',
    profile: 'tool',
    logDir: undefined,
    jvmOptions: [`-Djava.security.krb5.conf=${kdcStarted().krb5Config}`],
    args: ['--bootstrap-server', kerberosBootstrap('src'), '--topic', topic, '--command-config', config, '--property', 'parse.key=true'],
  });
  await new Promise<void>((resolve, reject) => {
    const child = execFile(java.command, java.args, { timeout: 120_000, killSignal: 'SIGKILL' }, (error, _stdout, stderr) =>
      error ? reject(new Error(`The Java console producer failed: ${error.message}\n${stderr.slice(-3000)}`, { cause: error })) : resolve(),
    );
    child.stdin!.end(lines.map((line) => `${line}\n`).join(''));
  });
}

const javaLines = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `k${from + i}\tkerberos value ${from + i}`);

async function assertSameRecords(topic: string): Promise<void> {
  const [from, to] = await Promise.all([clusters.kit('src').readAll(topic), clusters.kit('dst').readAll(`src.${topic}`)]);
  for (const partition of [0, 1]) {
    assert.deepEqual(snapshot(to.get(partition) ?? []), snapshot(from.get(partition) ?? []), `partition ${partition} of src.${topic}`);
  }
}

async function targetHas(topic: string, count: number): Promise<boolean> {
  const kit = clusters.kit('dst');
  return (await kit.topics()).has(`src.${topic}`) && (await kit.count(`src.${topic}`)) >= count;
}

test('an mm2.properties file with Krb5LoginModule and a keytab replicates byte for byte between Kerberized clusters', async () => {
  const topic = uniqueName('krb-mm2');
  await clusters.kit('src').createTopic(topic, 2);
  await produceWithJava(topic, javaLines(0, 200));
  const jaas = `${KRB5_MODULE} required useKeyTab=true storeKey=true keyTab="${keytab('mirrorflow')}" principal="mirrorflow@${REALM}";`;
  const file = join(scratchDir(), 'mm2.properties');
  writeFileSync(
    file,
    [
      'clusters = src, dst',
      ...(['src', 'dst'] as const).flatMap((alias) => [
        `${alias}.bootstrap.servers = ${kerberosBootstrap(alias)}`,
        `${alias}.security.protocol = SASL_PLAINTEXT`,
        `${alias}.sasl.mechanism = GSSAPI`,
        `${alias}.sasl.kerberos.service.name = kafka`,
        `${alias}.sasl.jaas.config = ${jaas}`,
      ]),
      'src->dst.enabled = true',
      `src->dst.topics = ${topic}`,
      'src->dst.emit.checkpoints.enabled = false',
      ...SINGLE_BROKER_MM2_LINES,
      '',
    ].join('\n'),
  );
  // MM2 reads krb5.conf through -Djava.security.krb5.conf; MIT Kerberos through KRB5_CONFIG.
  const run = spawnCli(['run', file, '--status-interval', '0'], { env: { KRB5_CONFIG: kdcStarted().krb5Config } });
  await waitFor(() => targetHas(topic, 200), { what: `200 records in src.${topic}`, timeoutMs: 90_000 });
  run.kill('SIGTERM');
  const result = await run.exited;
  assert.equal(result.code, 0, result.stderr.slice(-3000));
  await assertSameRecords(topic);
});

test('tickets that expire are taken again from the keytab while replication goes on', async () => {
  const topic = uniqueName('krb-renew');
  await clusters.kit('src').createTopic(topic, 2);
  const file = join(scratchDir(), 'kerberos.yaml');
  const cluster = (alias: 'src' | 'dst'): object => ({
    bootstrap_servers: [kerberosBootstrap(alias)],
    security: {
      protocol: 'sasl_plaintext',
      sasl: {
        mechanism: 'gssapi',
        kerberos: { service_name: 'kafka', principal: `shortlived@${REALM}`, keytab: keytab('shortlived'), krb5_config: kdcStarted().krb5Config },
      },
    },
  });
  writeFileSync(
    file,
    stringify({
      name: uniqueName('kerberos'),
      clusters: { src: cluster('src'), dst: cluster('dst') },
      flows: [{ source: 'src', target: 'dst', topics: [topic], checkpoints: { enabled: false }, replicate_heartbeats: false, consumer: { max_wait_ms: 100 } }],
    }),
  );
  const run = spawnPipeline(file);
  const k = kdcStarted();
  /** Seconds between the principal's first ticket and its latest one. */
  const ticketSpan = async (): Promise<number> => {
    const times = await k.initialTicketTimes('shortlived');
    return times.length === 0 ? -1 : Math.max(...times) - Math.min(...times);
  };
  let written = 0;
  // Three rounds: after the first login, after a ticket taken once the first had expired (20 s), and after another.
  for (const [round, span] of [
    [1, 0],
    [2, 25],
    [3, 45],
  ] as const) {
    await waitFor(async () => (await ticketSpan()) >= span, { what: `a ticket of shortlived ${span} s after its first`, timeoutMs: 120_000 });
    await produceWithJava(topic, javaLines(written, 100));
    written += 100;
    await waitFor(() => targetHas(topic, written), { what: `${written} records in src.${topic} (round ${round})`, timeoutMs: 90_000 });
  }
  run.kill('SIGTERM');
  const result = await run.exited;
  assert.equal(result.code, 0, result.stderr.slice(-3000));
  await assertSameRecords(topic);
});

test('a keytab whose key the KDC no longer has ends the run with exit 69, naming the principal and the keytab', async () => {
  await kdcStarted().rekey('rotated');
  const file = join(scratchDir(), 'rotated.yaml');
  writeFileSync(
    file,
    stringify({
      name: uniqueName('rotated'),
      clusters: {
        src: {
          bootstrap_servers: [kerberosBootstrap('src')],
          security: {
            protocol: 'sasl_plaintext',
            sasl: {
              mechanism: 'gssapi',
              kerberos: { service_name: 'kafka', principal: `rotated@${REALM}`, keytab: keytab('rotated'), krb5_config: kdcStarted().krb5Config },
            },
          },
        },
        dst: { bootstrap_servers: [clusters.bootstrap('dst')] },
      },
      flows: [{ source: 'src', target: 'dst', topics: [uniqueName('nothing')], checkpoints: { enabled: false } }],
    }),
  );
  const result = await runCli(['run', file, '--status-interval', '0'], 90_000);
  const output = result.stdout + result.stderr;
  assert.equal(result.code, 69, output.slice(-3000));
  assert.match(output, new RegExp(`Kerberos login as rotated@${REALM} \\(keytab ${keytab('rotated').replace(/[.]/g, '\\.')}\\) failed`));
  assert.match(output, /keytab's key does not match the KDC's/);
});
