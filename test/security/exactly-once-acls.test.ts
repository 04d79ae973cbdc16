/**
 * `delivery: exactly_once` against a secured target (SCRAM over TLS, StandardAuthorizer): the
 * user `mirror` may do anything with topics, groups and the cluster, but a transactional
 * producer also needs the TransactionalId resource. Without an ACL on it the run ends with the
 * authorization exit code (77), naming the cluster, the principal and the missing TransactionalId
 * permission, and nothing is committed on the target; with WRITE and DESCRIBE on the prefix
 * `mirrorflow.<pipeline>.` (as docs/replication.md documents it) the same pipeline copies every record.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes, type Admin } from '../../src/kafka/kafkajs';
import { readLocalPassword } from '../../src/local';
import { distinct, snapshot, type TestRecord } from '../support/kafka-kit';
import { spawnPipeline, writePipelineText } from '../support/pipeline-harness';
import { securedClusters } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';
import { waitFor } from '../support/wait-for';

const secured = securedClusters(['source', 'target'], { users: ['mirror'] });

before(async () => {
  await secured.ready();
  await secured.grantAll('source', 'mirror');
  await secured.grantAll('target', 'mirror');
});

/** WRITE and DESCRIBE for `mirror` on the transactional ids starting with `prefix`, on the target. */
async function grantTransactionalIds(prefix: string): Promise<void> {
  const entry = (operation: AclOperationTypes) => ({
    resourceType: AclResourceTypes.TRANSACTIONAL_ID,
    resourceName: prefix,
    resourcePatternType: ResourcePatternTypes.PREFIXED,
    principal: 'User:mirror',
    host: '*',
    operation,
    permissionType: AclPermissionTypes.ALLOW,
  });
  await targetAcls([entry(AclOperationTypes.WRITE), entry(AclOperationTypes.DESCRIBE)]);
}

/** Creates `acl` on the target as its super user, and waits until the broker answers with them. */
async function targetAcls(acl: Parameters<Admin['createAcls']>[0]['acl']): Promise<void> {
  const s = secured.security('target');
  const kafka = new Kafka({
    brokers: [s.saslSslBootstrap],
    clientId: 'mirrorflow-test-acls',
    ssl: { ca: [readFileSync(s.caFile, 'utf8')] },
    sasl: { mechanism: 'scram-sha-512', username: s.superUser, password: await readLocalPassword(s, s.superUser) },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createAcls({ acl });
    await waitFor(
      async () => {
        const described = await admin.describeAcls({
          resourceType: acl[0]!.resourceType,
          resourcePatternType: ResourcePatternTypes.ANY,
          operation: AclOperationTypes.ANY,
          permissionType: AclPermissionTypes.ANY,
        });
        const found = described.resources.flatMap((r) => r.acls.map((a) => ({ ...a, resourceName: r.resourceName })));
        return acl.every((wanted) =>
          found.some((a) => a.resourceName === wanted.resourceName && a.principal === wanted.principal && a.operation === wanted.operation),
        );
      },
      { what: `ACLs on the target: ${acl.map((a) => `${a.principal} ${a.operation} on ${a.resourceName}`).join(', ')}`, timeoutMs: 30_000 },
    );
  } finally {
    await admin.disconnect();
  }
}

async function pipelineFile(name: string, topic: string): Promise<string> {
  const document = {
    name,
    clusters: {
      source: (await secured.client('source', 'scram-sha-512', 'mirror')).yaml,
      target: (await secured.client('target', 'scram-sha-512', 'mirror')).yaml,
    },
    flows: [
      {
        source: 'source',
        target: 'target',
        topics: [topic],
        delivery: 'exactly_once',
        tasks: 2,
        replicate_heartbeats: false,
        checkpoints: { enabled: false },
        heartbeats: { enabled: false },
        topic_sync: { refresh_interval_ms: 1000, replication_factor: 1, acls: { enabled: false } },
        consumer: { max_wait_ms: 100 },
      },
    ],
  };
  return writePipelineText(stringify(document), `${name}.yaml`);
}

test('exactly-once on a secured target: refused without TransactionalId ACLs (exit 77, naming cluster, principal and permission), copies every record once they are granted', async () => {
  const name = uniqueName('eos-acl');
  const topic = uniqueName('eos-orders');
  const source = await secured.adminKit('source');
  await source.createTopic(topic, 2);
  const records: TestRecord[] = Array.from({ length: 40 }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${i}`),
    value: Buffer.from(`v${i}`),
    headers: [],
    timestamp: Date.now() - 60_000 + i,
  }));
  await source.produce(topic, records);
  const file = await pipelineFile(name, topic);
  const remote = `source.${topic}`;
  const target = await secured.adminKit('target');

  const denied = await spawnPipeline(file).exited;
  assert.equal(denied.code, 77, `exit code; stderr:\n${denied.stderr.slice(-3000)}`);
  assert.match(denied.stderr, /Cluster "target":/);
  assert.match(denied.stderr, /TransactionalId/);
  assert.match(denied.stderr, /User:mirror/);
  assert.match(
    denied.stderr,
    new RegExp(`WRITE and DESCRIBE on the TransactionalId resource, for the ids with the prefix "mirrorflow\\.${name}\\.source-target-"`),
  );
  if ((await target.topics()).has(remote)) assert.equal((await target.readAllFlat(remote)).length, 0, 'nothing committed on the target');

  await grantTransactionalIds(`mirrorflow.${name}.`);
  const run = spawnPipeline(file);
  let exit: number | null | undefined;
  void run.exited.then((result) => (exit = result.code));
  try {
    await waitFor(
      async () => {
        if (exit !== undefined) throw new Error(`the run ended (exit ${exit}):\n${run.stderr().slice(-3000)}`);
        return (await target.topics()).has(remote) && distinct(await target.readAllFlat(remote)).length >= records.length;
      },
      { what: `${records.length} records in ${remote}`, timeoutMs: 90_000 },
    );
    run.kill('SIGTERM');
    const result = await run.exited;
    assert.equal(result.code, 0, `a stopped run exits 0; stderr:\n${result.stderr.slice(-3000)}`);
  } finally {
    run.kill('SIGKILL');
  }
  const written = await target.readAllFlat(remote);
  assert.deepEqual(snapshot(written), snapshot([...records].sort((a, b) => a.partition - b.partition)));
});
