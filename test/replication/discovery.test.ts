/**
 * Topic discovery and remote topic creation (issue #2): topics and
 * partitions that appear while a pipeline runs are replicated without a restart, and remote
 * topics get the source's partition count and its non-default, non-excluded configs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, distinct, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const T0 = 1_700_000_000_000;

function records(label: string, count: number, partitions: readonly number[]): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: partitions[i % partitions.length]!,
    key: Buffer.from(`${label}-${i}`),
    value: Buffer.from(`${label} #${i}`),
    headers: [],
    timestamp: T0 + i,
  }));
}

/** Waits until the remote topic of `topic` holds as many records as the source topic. */
async function waitForCopy(run: RunningPipeline, topic: string): Promise<void> {
  const remote = `primary.${topic}`;
  const want = await source.count(topic);
  await run.until(async () => (await target.count(remote)) >= want, { what: `${want} records in ${remote}`, timeoutMs: 30_000 });
}

describe('topic discovery while running', () => {
  test('a topic created while the pipeline runs is replicated, also when it started with none', async () => {
    const p = uniqueName('disc-new');
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    await run.running();

    const first = `${p}-first`;
    await source.createTopic(first, 2);
    const firstRecords = records(first, 100, [0, 1]);
    await source.produce(first, firstRecords);
    await waitForCopy(run, first);

    // A second topic while the first is being consumed: the subscription must grow, not restart from scratch.
    const second = `${p}-second`;
    await source.createTopic(second, 3);
    const secondRecords = records(second, 90, [0, 1, 2]);
    await source.produce(second, secondRecords);
    const moreFirst = records(`${first}-more`, 50, [0, 1]);
    await source.produce(first, moreFirst);
    await waitForCopy(run, second);
    await waitForCopy(run, first);
    await run.stop();

    assert.equal((await target.topics()).get(`primary.${second}`), 3, 'the new remote topic has the source partition count');
    const sortByPartition = (list: TestRecord[]) => [0, 1, 2].flatMap((n) => list.filter((r) => r.partition === n));
    assert.deepEqual(snapshot(distinct(await target.readAllFlat(`primary.${second}`))), snapshot(sortByPartition(secondRecords)));
    assert.deepEqual(snapshot(distinct(await target.readAllFlat(`primary.${first}`))), snapshot(sortByPartition([...firstRecords, ...moreFirst])));
  });

  test('partitions added to a source topic: the remote topic grows and the new partitions are replicated', async () => {
    const p = uniqueName('disc-parts');
    const topic = `${p}-grows`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2);
    const before = records('before', 60, [0, 1]);
    await source.produce(topic, before);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    await waitForCopy(run, topic);
    assert.equal((await target.topics()).get(remote), 2);

    await source.addPartitions(topic, 4);
    await run.until(async () => (await target.topics()).get(remote) === 4, { what: `${remote} to grow to 4 partitions`, timeoutMs: 30_000 });
    const afterGrowth = records('after', 80, [0, 1, 2, 3]);
    await source.produce(topic, afterGrowth);
    await waitForCopy(run, topic);
    await run.stop();

    const onTarget = await target.readAll(remote);
    for (const n of [0, 1, 2, 3]) {
      const want = [...before, ...afterGrowth].filter((r) => r.partition === n);
      assert.deepEqual(snapshot(distinct(onTarget.get(n) ?? [])), snapshot(want), `partition ${n} of ${remote}`);
    }
  });
});

describe('remote topic creation', () => {
  test('with the source partition count and non-default configs, except the excluded ones', async () => {
    const p = uniqueName('disc-cfg');
    const topic = `${p}-configured`;
    const remote = `primary.${topic}`;
    const configs = {
      'retention.ms': '3600000',
      'cleanup.policy': 'compact',
      'max.message.bytes': '2000000',
      'segment.ms': '7200000',
      // Excluded by default (MM2 config.properties.exclude): must not be copied.
      'min.insync.replicas': '1',
      'message.timestamp.type': 'LogAppendTime',
    };
    await source.createTopic(topic, 5, configs);
    const plain = `${p}-plain`;
    await source.createTopic(plain, 1, { 'retention.ms': '-1' });

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    try {
      await run.until(async () => (await target.topics()).has(remote) && (await target.topics()).has(`primary.${plain}`), {
        what: `${remote} and primary.${plain} to be created`,
        timeoutMs: 30_000,
      });
    } finally {
      await run.stop();
    }

    assert.equal((await target.topics()).get(remote), 5, 'same partition count as the source');
    const got = await target.topicConfigs(remote);
    for (const name of ['retention.ms', 'cleanup.policy', 'max.message.bytes', 'segment.ms'] as const) {
      assert.equal(got.get(name)?.value, configs[name], `${name} must be copied`);
      assert.equal(got.get(name)?.source, 'topic', `${name} must be set on the remote topic itself`);
    }
    for (const name of ['min.insync.replicas', 'message.timestamp.type']) {
      assert.notEqual(got.get(name)?.source, 'topic', `${name} is excluded and must not be set on the remote topic`);
    }
    const gotPlain = await target.topicConfigs(`primary.${plain}`);
    assert.equal(gotPlain.get('retention.ms')?.value, '-1');
    assert.notEqual(gotPlain.get('cleanup.policy')?.source, 'topic', 'a default on the source stays a default on the target');
    assert.notEqual(gotPlain.get('max.message.bytes')?.source, 'topic');
  });
});
