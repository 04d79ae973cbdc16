/**
 * Periodic topic config sync on real brokers, the cases of MM2's own integration tests
 * (MirrorConnectorsIntegrationBaseTest: testSyncTopicConfigs, testReplicateSourceDefault,
 * testReplicateTargetDefault) with their settings: configs synced every second,
 * `delete.retention.*` excluded. Configs are changed as users change them, with Kafka's
 * kafka-configs.sh.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import { alterTopicConfig } from '../support/kafka-configs';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

/** MM2's test settings: sync every second, `delete.retention.*` never synced. */
const topicSync = (more: Record<string, unknown> = {}) => ({ configs_interval_ms: 1000, configs_exclude: ['delete\\.retention\\..*'], ...more });

async function value(kit: KafkaKit, topic: string, name: string): Promise<string | null | undefined> {
  return (await kit.topicConfigs(topic)).get(name)?.value;
}

/** Starts a pipeline replicating `topic` and waits for its remote topic. */
async function replicate(topic: string, sync: Record<string, unknown>): Promise<RunningPipeline> {
  const { file } = await writePipeline({ flows: [{ topics: [topic], topic_sync: sync }] });
  const run = await startPipeline(file);
  await run.until(async () => (await target.topics()).has(`primary.${topic}`), { what: `primary.${topic} to be created`, timeoutMs: 30_000 });
  return run;
}

/** Waits until the flow's config sync has made `count` more passes than now. */
async function morePasses(run: RunningPipeline, count: number): Promise<void> {
  const passes = () => run.statuses()[0]!.configSync.passes;
  const want = passes() + count;
  await run.until(() => passes() >= want, { what: `${count} more config sync passes`, timeoutMs: 30_000 });
}

describe('topic config sync', () => {
  test('a source change reaches the target, a target change is undone, an excluded config is never synced (testSyncTopicConfigs)', async () => {
    const clusters = await testClusters();
    const topic = `${uniqueName('cfg-sync')}-with-config`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2, { 'delete.retention.ms': '1000', 'retention.bytes': '1000' });
    const run = await replicate(topic, topicSync());
    try {
      assert.equal(await value(target, remote, 'retention.bytes'), '1000', 'copied when the remote topic was created');
      assert.notEqual(await value(target, remote, 'delete.retention.ms'), '1000', 'excluded: not copied at creation');

      await alterTopicConfig(clusters.backup, remote, { set: { 'delete.retention.ms': '2000', 'retention.bytes': '2000' } });
      await run.until(async () => (await value(target, remote, 'retention.bytes')) === '1000', {
        what: `retention.bytes of ${remote} back to the source's 1000`,
        timeoutMs: 30_000,
      });

      await alterTopicConfig(clusters.primary, topic, { set: { 'retention.ms': '3600000', 'delete.retention.ms': '5000' } });
      await run.until(async () => (await value(target, remote, 'retention.ms')) === '3600000', {
        what: `retention.ms of ${remote} to follow the source`,
        timeoutMs: 30_000,
      });
      await morePasses(run, 2);
      assert.equal(await value(target, remote, 'delete.retention.ms'), '2000', "the excluded config keeps the target's own value");
      const status = run.statuses()[0]!.configSync;
      assert.ok(status.changesApplied >= 2, `changes applied: ${status.changesApplied}`);
      assert.equal(status.changesRefused, 0);
    } finally {
      await run.stop();
    }
  });

  test("use_defaults_from source: the source's default replaces a target override, excluded configs still stay (testReplicateSourceDefault)", async () => {
    const clusters = await testClusters();
    const topic = `${uniqueName('cfg-srcdef')}-with-config`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1);
    const run = await replicate(topic, topicSync({ use_defaults_from: 'source' }));
    try {
      await alterTopicConfig(clusters.backup, remote, { set: { 'delete.retention.ms': '2000', 'retention.bytes': '2000' } });
      await run.until(async () => (await value(target, remote, 'retention.bytes')) === '-1', {
        what: `retention.bytes of ${remote} set to the source's default -1`,
        timeoutMs: 30_000,
      });
      assert.equal((await target.topicConfigs(remote)).get('retention.bytes')?.source, 'topic', "the source's default is set on the remote topic itself");
      await morePasses(run, 2);
      assert.equal(await value(target, remote, 'delete.retention.ms'), '2000', 'excluded: the target override stays');
      assert.equal(run.statuses()[0]!.configSync.changesRefused, 0, JSON.stringify(run.statuses()[0]!.configSync.refused));
    } finally {
      await run.stop();
    }
  });

  test('use_defaults_from target: an override removed on the source is removed on the target, which falls back to its default (testReplicateTargetDefault)', async () => {
    const clusters = await testClusters();
    const topic = `${uniqueName('cfg-tgtdef')}-with-config`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1, { 'retention.bytes': '1000' });
    const run = await replicate(topic, topicSync());
    try {
      assert.equal(await value(target, remote, 'retention.bytes'), '1000');
      await alterTopicConfig(clusters.primary, topic, { delete: ['retention.bytes'] });
      await run.until(async () => (await target.topicConfigs(remote)).get('retention.bytes')?.source !== 'topic', {
        what: `the retention.bytes override of ${remote} to be removed`,
        timeoutMs: 30_000,
      });
      assert.equal(await value(target, remote, 'retention.bytes'), '-1', "the target's default");
    } finally {
      await run.stop();
    }
  });
});
