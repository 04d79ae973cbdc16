/**
 * Security per client role against a secured cluster with ACLs (StandardAuthorizer): on the
 * target, `creator` may create topics but is denied WRITE, `writer` may write but is denied
 * CREATE. A pipeline whose target logs in as `creator` with a producer role of its own
 * (`security.roles.producer`, MM2's `target.producer.sasl.jaas.config`) as `writer` creates the
 * remote topic and writes every record: each client used its own user. Without the producer's
 * role the same pipeline is refused the write, which shows the ACLs tell the two users apart.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from '../../src/kafka/kafkajs';
import { readLocalPassword } from '../../src/local';
import type { TestRecord } from '../support/kafka-kit';
import { snapshot } from '../support/kafka-kit';
import { startPipeline, writePipelineText } from '../support/pipeline-harness';
import { securedClusters } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';
import { waitFor } from '../support/wait-for';

const secured = securedClusters(['source', 'target'], { users: ['writer', 'creator'] });

/** ACLs on the target, as its super user: ALLOW ALL on topics and groups (and the cluster for creator), and one DENY each. */
async function targetAcls(): Promise<void> {
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
  const entry = (user: string, resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes, permissionType: AclPermissionTypes) => ({
    resourceType,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal: `User:${user}`,
    host: '*',
    operation,
    permissionType,
  });
  const { ALLOW, DENY } = AclPermissionTypes;
  const acl = [
    entry('writer', AclResourceTypes.TOPIC, '*', AclOperationTypes.ALL, ALLOW),
    entry('writer', AclResourceTypes.GROUP, '*', AclOperationTypes.ALL, ALLOW),
    entry('writer', AclResourceTypes.TOPIC, '*', AclOperationTypes.CREATE, DENY),
    entry('creator', AclResourceTypes.TOPIC, '*', AclOperationTypes.ALL, ALLOW),
    entry('creator', AclResourceTypes.GROUP, '*', AclOperationTypes.ALL, ALLOW),
    entry('creator', AclResourceTypes.CLUSTER, 'kafka-cluster', AclOperationTypes.ALL, ALLOW),
    entry('creator', AclResourceTypes.TOPIC, '*', AclOperationTypes.WRITE, DENY),
  ];
  try {
    await admin.createAcls({ acl });
    await waitFor(
      async () => {
        const described = await admin.describeAcls({
          resourceType: AclResourceTypes.ANY,
          resourcePatternType: ResourcePatternTypes.ANY,
          operation: AclOperationTypes.ANY,
          permissionType: AclPermissionTypes.ANY,
        });
        return described.resources.flatMap((r) => r.acls).length >= acl.length;
      },
      { what: 'the ACLs of writer and creator on the target', timeoutMs: 30_000 },
    );
  } finally {
    await admin.disconnect();
  }
}

before(async () => {
  await secured.ready();
  await targetAcls();
});

/** The target logs in as `login`, and each role of `roles` as its own user. */
async function pipeline(topic: string, login: 'creator' | 'writer', roles: Partial<Record<'producer' | 'admin', 'creator' | 'writer'>>): Promise<string> {
  const target = await secured.client('target', 'scram-sha-512', login);
  const security = target.yaml['security'] as Record<string, unknown>;
  const own: Record<string, unknown> = {};
  for (const [role, user] of Object.entries(roles)) {
    own[role] = { sasl: { mechanism: 'scram-sha-512', username: user, password: await secured.password('target', user) } };
  }
  const document = {
    name: uniqueName('roles'),
    clusters: {
      source: (await secured.client('source', 'scram-sha-512')).yaml,
      target: {
        ...target.yaml,
        security: {
          ...security,
          ...(Object.keys(own).length > 0 && { roles: own }),
        },
      },
    },
    flows: [
      {
        source: 'source',
        target: 'target',
        topics: [topic],
        replicate_heartbeats: false,
        checkpoints: { enabled: false },
        topic_sync: { refresh_interval_ms: 1000, replication_factor: 1, acls: { enabled: false } },
        progress: { flush_interval_ms: 500 },
        consumer: { max_wait_ms: 100 },
        heartbeats: { enabled: false },
      },
    ],
  };
  return writePipelineText(stringify(document), `${document.name}.yaml`);
}

async function sourceTopic(topic: string): Promise<TestRecord[]> {
  const kit = await secured.adminKit('source');
  await kit.createTopic(topic, 2);
  const records: TestRecord[] = Array.from({ length: 30 }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${i}`),
    value: Buffer.from(`v${i}`),
    headers: [],
    timestamp: 1_700_000_000_000 + i,
  }));
  await kit.produce(topic, records);
  return records;
}

test('the admin creates the remote topic as creator and the producer writes as writer: every record arrives', async () => {
  const topic = uniqueName('roles-orders');
  const records = await sourceTopic(topic);
  const run = await startPipeline(await pipeline(topic, 'creator', { producer: 'writer' }));
  const target = await secured.adminKit('target');
  await run.until(async () => (await target.topics()).has(`source.${topic}`) && (await target.count(`source.${topic}`)) >= records.length, {
    what: `${records.length} records in source.${topic}`,
    timeoutMs: 60_000,
  });
  await run.stop();
  assert.deepEqual(snapshot(await target.readAllFlat(`source.${topic}`)), snapshot([...records].sort((a, b) => a.partition - b.partition)));
});

test('without the producer role the producer logs in as creator, and the target refuses the write', async () => {
  const topic = uniqueName('roles-denied');
  await sourceTopic(topic);
  const run = await startPipeline(await pipeline(topic, 'creator', {}));
  const error = await run.done.then(
    () => assert.fail('the run should fail'),
    (e: unknown) => e,
  );
  assert.match(String(error), /TOPIC_AUTHORIZATION_FAILED|not authorized/i);
  assert.match(String(error), /\(as User:creator, SASL SCRAM-SHA-512\)/, "the cluster's own login is named");
  const target = await secured.adminKit('target');
  assert.ok((await target.topics()).has(`source.${topic}`), 'creator, the admin, could create the remote topic');
  assert.equal(await target.count(`source.${topic}`), 0);
});

test("a refusal of a role's own login names that role's principal and the role, not the cluster's", async () => {
  const topic = uniqueName('roles-own-denied');
  await sourceTopic(topic);
  // The cluster's login is writer; the admin and the producer log in as creator, who may not write.
  const run = await startPipeline(await pipeline(topic, 'writer', { admin: 'creator', producer: 'creator' }));
  const error = await run.done.then(
    () => assert.fail('the run should fail'),
    (e: unknown) => e,
  );
  const message = String(error);
  assert.match(message, /Cluster "target": Writing records to .*TOPIC_AUTHORIZATION_FAILED/);
  assert.match(message, /\(as User:creator, SASL SCRAM-SHA-512, the producer role's own login \(security\.roles\.producer\)\)/);
  assert.ok(!message.includes('User:writer'), `the cluster's principal is not named: ${message}`);
  const target = await secured.adminKit('target');
  assert.ok((await target.topics()).has(`source.${topic}`), 'creator, the admin, could create the remote topic');
  assert.equal(await target.count(`source.${topic}`), 0);
});
