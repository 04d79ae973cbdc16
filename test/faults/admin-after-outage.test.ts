/**
 * The admin client once a broker outage is over: what was asked of it while the broker was down
 * leaves nothing behind. kafkajs's admin refreshes, before its calls, the metadata of every topic
 * it was ever asked about (`fetchTopicOffsets`), and keeps one whose refresh failed for any
 * reason but that topic's own error: asked during an outage, a topic that does not exist once
 * the broker is back made every later call fail with "This server does not host this
 * topic-partition" (what the topic config sync answered in two CI runs of the outage tests, as
 * "Describing topic configs failed"). Partition offsets are requests of their own since 701283e,
 * which add no topic to that metadata. The test stops and starts a broker, so it runs on a
 * cluster of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { uniqueName, waitFor } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { memoryLogger, type LogLine } from '../support/pipeline-harness';
import { withBrokerBack } from './outage-support';
import { KafkajsClients } from '../../src/kafka';

const clusters = ownClusters(['dst']);

test('offsets of a missing topic asked while the broker is down: once it is back, the admin describes topics as before', async () => {
  const dst = clusters.kit('dst');
  const topic = uniqueName('admin-after-outage');
  const missing = uniqueName('asked-during-outage');
  await dst.createTopic(topic, 1);
  const lines: LogLine[] = [];
  const clients = new KafkajsClients({
    clusters: [
      {
        alias: 'dst',
        bootstrapServers: clusters.bootstrap('dst').split(','),
        security: { protocol: 'plaintext' },
        connectionTimeoutMs: 3000,
        requestTimeoutMs: 10_000,
      },
    ],
    logger: memoryLogger(lines),
    clientIdPrefix: 'mirrorflow-admin-after-outage-test',
  });
  try {
    const admin = clients.admin('dst');
    assert.ok((await firstValueFrom(admin.describeTopicConfigs([topic]))).has(topic), 'described before the outage');

    await withBrokerBack(clusters.broker('dst'), async () => {
      await clusters.broker('dst').halt();
      await assert.rejects(firstValueFrom(admin.partitionOffsets(missing)), 'offsets cannot be read with the broker down');
    });

    // The broker takes a moment to serve again; an admin that kept the missing topic never does.
    await waitFor(async () => (await firstValueFrom(admin.describeTopicConfigs([topic]))).has(topic), {
      what: "the topic's configs described with the broker back",
      timeoutMs: 60_000,
      intervalMs: 1000,
    });
    assert.deepEqual(
      (await firstValueFrom(admin.listTopics())).map((t) => t.name).filter((name) => name === topic || name === missing),
      [topic],
      'the topic asked about during the outage was not created by asking',
    );
  } finally {
    await clients.close();
  }
});
