/**
 * Partition offsets and record deletion through the admin port, many at once on one client, as
 * a flow assigned many topics asks: each made by a Metadata request of its own, then at each
 * leader (src/kafka/admin/partition-offsets.ts). kafkajs's own calls took a topic's partitions
 * from the admin's shared metadata, and CI once met the TypeError they then fail with when that
 * metadata lacks the topic ("Cannot destructure property 'partitions' of 'high.pop(...)'"), as an
 * active-active flow ending at start. This file proves the requests that replace them against a
 * real broker; the shared-metadata race itself was not reproduced on demand. And topics described
 * by name (one Metadata request naming them), which a flow's migration watch asks every 5 s.
 */
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import { after, before, test } from 'node:test';
import { KafkaKit, keyedRecords } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { memoryLogger, type LogLine } from '../support/pipeline-harness';
import { KafkajsClients } from '../../src/kafka';
import type { ClusterAdmin } from '../../src/core/ports/cluster-admin';

let kit: KafkaKit;
let clients: KafkajsClients;
let admin: ClusterAdmin;
const lines: LogLine[] = [];

before(async () => {
  const bootstrap = (await testClusters()).primary;
  kit = new KafkaKit(bootstrap);
  clients = new KafkajsClients({
    clusters: [
      { alias: 'source', bootstrapServers: bootstrap.split(','), security: { protocol: 'plaintext' }, connectionTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
    ],
    logger: memoryLogger(lines),
    clientIdPrefix: 'mirrorflow-admin-offsets-test',
  });
  admin = clients.admin('source');
});

after(async () => {
  await clients?.close();
  await kit?.close();
});

test('offsets of many topics asked for one by one at once: each topic its own partitions, none failing', async () => {
  const prefix = uniqueName('admin-offsets');
  const topics = Array.from({ length: 40 }, (_, i) => `${prefix}.t${i}`);
  await kit.createTopics(topics, 3);
  for (const [i, topic] of topics.entries()) if (i % 5 > 0) await kit.produce(topic, keyedRecords(i % 5, 3));

  const answers = await Promise.all(topics.map((topic) => firstValueFrom(admin.partitionOffsets(topic))));

  for (const [i, offsets] of answers.entries()) {
    assert.deepEqual(
      offsets.map((o) => o.partition),
      [0, 1, 2],
      `${topics[i]}: every partition, in order`,
    );
    assert.equal(
      offsets.reduce((sum, o) => sum + o.latest - o.earliest, 0),
      i % 5,
      `${topics[i]}: the records produced to it`,
    );
  }
});

test('records deleted through the port while other topics are read: the log start moves, nothing else', async () => {
  const prefix = uniqueName('admin-delete');
  const topics = Array.from({ length: 20 }, (_, i) => `${prefix}.t${i}`);
  await kit.createTopics(topics, 2);
  for (const topic of topics) await kit.produce(topic, keyedRecords(10, 2));

  await Promise.all(
    topics.map(async (topic, i) => {
      if (i % 2 === 0) await firstValueFrom(admin.deleteRecords(topic, 1, 3), { defaultValue: undefined });
      else await firstValueFrom(admin.partitionOffsets(topic));
    }),
  );

  for (const [i, topic] of topics.entries()) {
    const offsets = await firstValueFrom(admin.partitionOffsets(topic));
    assert.deepEqual(
      offsets,
      [
        { partition: 0, earliest: 0, latest: 5 },
        { partition: 1, earliest: i % 2 === 0 ? 3 : 0, latest: 5 },
      ],
      `${topic}: ${i % 2 === 0 ? 'records before 3 of partition 1 deleted' : 'untouched'}`,
    );
  }
});

test('topics described by name: those that exist as the listing gives them, a missing one left out and not created', async () => {
  const prefix = uniqueName('admin-describe');
  const [present, missing] = [`${prefix}.present`, `${prefix}.missing`];
  await kit.createTopics([present], 3);

  const described = await firstValueFrom(admin.describeTopics([missing, present]));
  const listed = (await firstValueFrom(admin.listTopics())).find((t) => t.name === present);

  assert.deepEqual(described, [listed], 'the present topic, described as listTopics describes it (partitions, id)');
  assert.equal(described[0]?.partitions, 3);
  assert.ok(described[0]?.topicId !== undefined, 'with its topic id');
  assert.equal(
    (await firstValueFrom(admin.listTopics())).some((t) => t.name === missing),
    false,
    'asking about a topic does not create it',
  );
  assert.deepEqual(await firstValueFrom(admin.describeTopics([])), []);
});
