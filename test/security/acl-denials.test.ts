/**
 * ACL denials against brokers running Kafka's StandardAuthorizer, mirrorflow connecting as the
 * SASL/PLAIN user `mirror` on a listener of its own (the launcher and the test's kits use the
 * PLAINTEXT listener as the super user). A principal that may not read the source topic, or may
 * not create or write the remote topic, ends `mirrorflow run` non-zero with a message naming the
 * cluster, the operation, the topic and the principal, having stored no progress; once the ACL
 * is granted the next run copies every record. A WRITE ACL removed while the flow runs stops it
 * without progress passing what the target holds.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { stringify } from '#yaml';
import { KafkajsClients } from '../../src/kafka';
import type { BrokerAddress } from '../../src/local';
import { findFreePorts } from '../../src/local/free-ports';
import { silentLogger } from '../../src/core/ports/logger';
import type { TopicAcl, TopicAclOperation } from '../../src/core/ports/topic-acl';
import { uniqueName, waitFor } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { runCli, spawnPipeline, startPipeline, writePipeline, writePipelineText } from '../support/pipeline-harness';
import { kafkaAcls } from './kafka-acls';

const PASSWORD = 'mirror-secret';
/**
 * The SASL listener's port of each broker, by the broker's PLAINTEXT port: chosen before the
 * brokers start. A broker that finds a port taken starts again on new ports (up to three times),
 * asking for a SASL port again: the pool holds enough for every attempt of both clusters.
 */
const saslPorts = new Map<number, number>();
let freePorts: number[] = [];
before(async () => {
  freePorts = await findFreePorts(2 * 3);
});
const saslPort = (address: BrokerAddress): number => {
  let port = saslPorts.get(address.brokerPort);
  if (port === undefined) {
    port = freePorts.shift()!;
    saslPorts.set(address.brokerPort, port);
  }
  return port;
};

const clusters = ownClusters(['src', 'dst'] as const, {
  brokerProperties: {
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users': 'User:ANONYMOUS',
    listeners: (a) => `PLAINTEXT://${a.host}:${a.brokerPort},CONTROLLER://${a.host}:${a.controllerPort},SASL://${a.host}:${saslPort(a)}`,
    'advertised.listeners': (a) => `PLAINTEXT://${a.host}:${a.brokerPort},SASL://${a.host}:${saslPort(a)}`,
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL:SASL_PLAINTEXT',
    'sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.sasl.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required user_mirror="${PASSWORD}";`,
  },
});

const RECORDS = 30;

/** The pipeline: src -> dst as user `mirror` over SASL/PLAIN. */
async function denialPipeline(topic: string): Promise<string> {
  const { document, name } = await writePipeline({
    flows: [{ source: 'src', target: 'dst', topics: [topic], checkpoints: { enabled: false }, topic_sync: { acls: { enabled: false } } }],
  });
  const sasl = (alias: 'src' | 'dst') => ({
    bootstrap_servers: [`127.0.0.1:${saslPorts.get(Number(clusters.bootstrap(alias).split(':')[1]))}`],
    security: { protocol: 'sasl_plaintext', sasl: { mechanism: 'plain', username: 'mirror', password: PASSWORD } },
  });
  return writePipelineText(stringify({ ...document, clusters: { src: sasl('src'), dst: sasl('dst') } }), `${name}.yaml`);
}

/** ACLs through the PLAINTEXT listener (super user). */
function aclAdmin(alias: 'src' | 'dst') {
  const clients = new KafkajsClients({
    clusters: [
      { alias, bootstrapServers: [clusters.bootstrap(alias)], security: { protocol: 'plaintext' }, connectionTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
    ],
    logger: silentLogger,
    clientIdPrefix: 'mirrorflow-test-acls',
  });
  return clients;
}

const allow = (name: string, patternType: TopicAcl['patternType'], ...operations: TopicAclOperation[]): TopicAcl[] =>
  operations.map((operation) => ({ name, patternType, principal: 'User:mirror', host: '*', operation, permission: 'ALLOW' }));

/**
 * What `mirror` needs besides the replicated topics: its internal topics on both clusters
 * (offset syncs on src, progress and heartbeats on dst), and consumer groups. Group ACLs go
 * through kafka-acls, as the port has topic ACLs only.
 */
async function grantBase(): Promise<void> {
  await Promise.all(
    (['src', 'dst'] as const).map(async (alias) => {
      const clients = aclAdmin(alias);
      try {
        await firstValueFrom(clients.admin(alias).createTopicAcls([...allow('mm2-', 'PREFIXED', 'ALL'), ...allow('heartbeats', 'LITERAL', 'ALL')]));
      } finally {
        await clients.close();
      }
    }),
  );
  for (const alias of ['src', 'dst'] as const) {
    await kafkaAcls(clusters.bootstrap(alias), ['--add', '--allow-principal', 'User:mirror', '--operation', 'All', '--group', '*']);
  }
}

async function grant(alias: 'src' | 'dst', acls: readonly TopicAcl[]): Promise<void> {
  const clients = aclAdmin(alias);
  try {
    const results = await firstValueFrom(clients.admin(alias).createTopicAcls(acls));
    assert.deepEqual(
      results.filter((r) => r.error !== undefined),
      [],
    );
  } finally {
    await clients.close();
  }
}

/** Source offsets stored as progress for `topic` (Connect offsets records on dst), by partition. */
async function storedProgress(topic: string): Promise<Map<number, number>> {
  const stored = new Map<number, number>();
  const records = await clusters
    .kit('dst')
    .readAllFlat('mm2-offsets.src.internal')
    .catch(() => []);
  for (const r of records) {
    if (r.key === null || r.value === null) continue;
    const key = JSON.parse(r.key.toString()) as [string, { topic: string; partition: number }];
    if (key[1].topic !== topic) continue;
    stored.set(key[1].partition, (JSON.parse(r.value.toString()) as { offset: number }).offset);
  }
  return stored;
}

async function produce(topic: string, from: number, count: number): Promise<void> {
  await clusters.kit('src').produce(
    topic,
    Array.from({ length: count }, (_, i) => ({ partition: 0, key: null, value: Buffer.from(`v${from + i}`), headers: [], timestamp: Date.now() })),
  );
}

/** Runs the pipeline in this process until every record is on the target, then stops it. */
async function replicateAll(file: string, remote: string, expected: number): Promise<void> {
  const run = await startPipeline(file);
  await run.until(
    async () =>
      (await clusters
        .kit('dst')
        .count(remote)
        .catch(() => 0)) >= expected,
    {
      what: `${expected} records on ${remote}`,
      timeoutMs: 90_000,
    },
  );
  await run.stop();
  const values = (await clusters.kit('dst').readAllFlat(remote)).map((r) => r.value!.toString());
  assert.equal(new Set(values).size, expected, 'every record, none lost');
}

/** The run's last words: `mirrorflow: <why it ended>`. */
function finalMessage(stderr: string): string {
  const line = stderr
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('mirrorflow: '));
  assert.ok(line !== undefined, `a final message; stderr:\n${stderr.slice(-3000)}`);
  return line;
}

/** sysexits' EX_NOPERM: a cluster refused an operation to mirrorflow's principal. */
const NO_PERMISSION = 77;

let based = false;
async function setUp(prefix: string): Promise<{ topic: string; remote: string; file: string }> {
  if (!based) {
    await grantBase();
    based = true;
  }
  const topic = uniqueName(prefix);
  await clusters.kit('src').createTopic(topic, 1);
  await produce(topic, 0, RECORDS);
  return { topic, remote: `src.${topic}`, file: await denialPipeline(topic) };
}

test('no READ on the source topic: run ends non-zero naming src, the read, the topic and the user; nothing stored; granted, every record follows', async () => {
  const { topic, remote, file } = await setUp('deny-read');
  await grant('src', allow(topic, 'LITERAL', 'DESCRIBE', 'DESCRIBE_CONFIGS'));
  await grant('dst', allow(remote, 'LITERAL', 'ALL'));
  const result = await runCli(['run', file, '--status-interval', '0'], 120_000);
  assert.equal(result.code, NO_PERMISSION, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  const tail = finalMessage(result.stderr);
  assert.match(tail, /Cluster "src": Reading records of topic ".*" failed: .*\(TOPIC_AUTHORIZATION_FAILED\) \(as User:mirror, SASL PLAIN\)$/);
  assert.ok(tail.includes(`"${topic}"`), tail);
  assert.equal((await storedProgress(topic)).size, 0, 'no progress stored');
  await grant('src', allow(topic, 'LITERAL', 'READ'));
  await replicateAll(file, remote, RECORDS);
});

test('no CREATE on the target: run ends non-zero naming dst, the topic creation, the topic and the user; granted, every record follows', async () => {
  const { topic, remote, file } = await setUp('deny-create');
  await grant('src', allow(topic, 'LITERAL', 'READ', 'DESCRIBE', 'DESCRIBE_CONFIGS'));
  await grant('dst', allow(remote, 'LITERAL', 'DESCRIBE', 'WRITE'));
  const result = await runCli(['run', file, '--status-interval', '0'], 120_000);
  assert.equal(result.code, NO_PERMISSION, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  const tail = finalMessage(result.stderr);
  assert.match(tail, /Cluster "dst": Creating topics failed for ".*": .*\(TOPIC_AUTHORIZATION_FAILED\) \(as User:mirror, SASL PLAIN\)$/);
  assert.ok(tail.includes(`"${remote}"`), tail);
  assert.equal((await storedProgress(topic)).size, 0, 'no progress stored');
  await grant('dst', allow(remote, 'LITERAL', 'CREATE'));
  await replicateAll(file, remote, RECORDS);
});

test('no WRITE on the remote topic: run ends non-zero naming dst, the write, the topic and the user; nothing stored; granted, every record follows', async () => {
  const { topic, remote, file } = await setUp('deny-write');
  await grant('src', allow(topic, 'LITERAL', 'READ', 'DESCRIBE', 'DESCRIBE_CONFIGS'));
  await grant('dst', allow(remote, 'LITERAL', 'CREATE', 'DESCRIBE', 'DESCRIBE_CONFIGS'));
  const result = await runCli(['run', file, '--status-interval', '0'], 120_000);
  assert.equal(result.code, NO_PERMISSION, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  const tail = finalMessage(result.stderr);
  assert.match(tail, /Cluster "dst": Writing records to topic ".*" failed: .*\(TOPIC_AUTHORIZATION_FAILED\) \(as User:mirror, SASL PLAIN\)$/);
  assert.ok(tail.includes(`"${remote}"`), tail);
  assert.equal((await storedProgress(topic)).size, 0, 'no progress stored');
  assert.equal(await clusters.kit('dst').count(remote), 0);
  await grant('dst', allow(remote, 'LITERAL', 'WRITE'));
  await replicateAll(file, remote, RECORDS);
});

test('WRITE removed on the target while the flow runs: the run stops non-zero, stored progress never passes what the target holds', async () => {
  const { topic, remote, file } = await setUp('revoke-write');
  await grant('src', allow(topic, 'LITERAL', 'READ', 'DESCRIBE', 'DESCRIBE_CONFIGS'));
  await grant('dst', allow(remote, 'LITERAL', 'ALL'));
  const child = spawnPipeline(file);
  const dst = clusters.kit('dst');
  await child.waitForOutput(/Replicating topics/, 60_000);
  // The first records are through: the flow works with the ACLs it has.
  await waitFor(async () => (await dst.count(remote).catch(() => 0)) >= RECORDS, { what: 'the first records on dst', timeoutMs: 60_000 });
  await kafkaAcls(clusters.bootstrap('dst'), ['--remove', '--force', '--allow-principal', 'User:mirror', '--operation', 'All', '--topic', remote]);
  // Records written after the ACL went away cannot reach the target.
  await produce(topic, RECORDS, RECORDS);
  const result = await child.exited;
  assert.equal(result.code, NO_PERMISSION, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  assert.match(finalMessage(result.stderr), /Cluster "dst": .*TOPIC_AUTHORIZATION_FAILED.*\(as User:mirror, SASL PLAIN\)$/);
  const held = await dst.count(remote);
  const progress = await storedProgress(topic);
  // Connect's offset is the last record replicated: the next run starts after it.
  assert.ok((progress.get(0) ?? -1) + 1 <= held, `stored progress ${progress.get(0)} within the ${held} records on dst`);
  await grant('dst', allow(remote, 'LITERAL', 'ALL'));
  await replicateAll(file, remote, 2 * RECORDS);
});
