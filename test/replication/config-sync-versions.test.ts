/**
 * Config sync between Kafka versions: IncrementalAlterConfigs v0 against a Kafka 3.9 broker, and
 * a config a newer target refuses. A cluster of the older version is started for this file; the
 * shared test clusters run the tests' own version (4.3.1 by default).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testClusters, uniqueName } from '../support/clusters';
import { KafkaKit } from '../support/kafka-kit';
import { ownClusters } from '../support/own-clusters';
import { startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import { alterTopicConfig } from '../support/kafka-configs';
import { useKits } from '../support/use-kits';
import { statusDocument } from '../../src/telemetry/status-document';

const OLD_VERSION = '3.9.1';
const own = ownClusters(['old'], { version: OLD_VERSION });

let primary: KafkaKit;
let backup: KafkaKit;
useKits(
  (clusters) => ({ primary: new KafkaKit(clusters.primary), backup: new KafkaKit(clusters.backup) }),
  (kits) => ({ primary, backup } = kits),
);

async function value(kit: KafkaKit, topic: string, name: string): Promise<string | null | undefined> {
  return (await kit.topicConfigs(topic)).get(name)?.value;
}

async function replicate(flow: { source: string; target: string; topic: string }, targetKit: KafkaKit): Promise<RunningPipeline> {
  const { file } = await writePipeline({
    clusters: { old: own.bootstrap('old') },
    flows: [{ source: flow.source, target: flow.target, topics: [flow.topic], topic_sync: { configs_interval_ms: 1000 } }],
  });
  const run = await startPipeline(file);
  const remote = `${flow.source}.${flow.topic}`;
  await run.until(async () => (await targetKit.topics()).has(remote), { what: `${remote} to be created`, timeoutMs: 30_000 });
  return run;
}

describe(`config sync with Kafka ${OLD_VERSION}`, () => {
  test(`a source change reaches a Kafka ${OLD_VERSION} target`, async () => {
    const clusters = await testClusters();
    const topic = uniqueName('cfg-old-target');
    await primary.createTopic(topic, 1, { 'retention.bytes': '1000' });
    const old = own.kit('old');
    const run = await replicate({ source: 'primary', target: 'old', topic }, old);
    const remote = `primary.${topic}`;
    try {
      assert.equal(await value(old, remote, 'retention.bytes'), '1000');
      await alterTopicConfig(clusters.primary, topic, { set: { 'retention.bytes': '2000', 'cleanup.policy': 'compact' } });
      await run.until(async () => (await value(old, remote, 'retention.bytes')) === '2000' && (await value(old, remote, 'cleanup.policy')) === 'compact', {
        what: `${remote} on Kafka ${OLD_VERSION} to follow the source`,
        timeoutMs: 30_000,
      });
      assert.equal(run.statuses()[0]!.configSync.changesRefused, 0);
    } finally {
      await run.stop();
    }
  });

  test('a config the newer target refuses is logged with its reason and counted; the topic still gets the others', async () => {
    const topic = uniqueName('cfg-old-source');
    const old = own.kit('old');
    await old.createTopic(topic, 1);
    const run = await replicate({ source: 'old', target: 'backup', topic }, backup);
    const remote = `old.${topic}`;
    try {
      // Valid on Kafka 3.9 (at least 14 bytes), below the 1 MiB that Kafka 4 requires.
      await alterTopicConfig(own.bootstrap('old'), topic, { set: { 'segment.bytes': '500000', 'retention.bytes': '3000' } }, OLD_VERSION);
      await run.until(async () => (await value(backup, remote, 'retention.bytes')) === '3000', {
        what: `retention.bytes of ${remote} to follow`,
        timeoutMs: 30_000,
      });
      // Refused at every pass, counted each time: three passes' worth.
      const status = await run.until(() => (run.statuses()[0]!.configSync.changesRefused >= 3 ? run.statuses()[0]!.configSync : undefined), {
        what: 'the refused change to be counted at three passes',
        timeoutMs: 30_000,
      });
      assert.deepEqual(
        status.refused.map((r) => [r.topic, r.name, r.error]),
        [[remote, 'segment.bytes', 'INVALID_CONFIG']],
      );
      assert.match(status.refused[0]!.message, /segment\.bytes/);
      assert.notEqual(await value(backup, remote, 'segment.bytes'), '500000');
      const warnings = run.logs.filter((l) => l.level === 'warn' && l.message.startsWith('The target refused a topic config change'));
      assert.equal(warnings.length, 1, 'warned once, not at every pass');
      assert.equal(warnings[0]!.meta['topic'], remote);
      assert.equal(warnings[0]!.meta['change'], 'segment.bytes=500000');
      assert.match(String(warnings[0]!.meta['reason']), /segment\.bytes/);
      // What /status shows of it.
      const shown = statusDocument('p', run.pipeline.snapshots()).flows[0]!.configSync;
      assert.deepEqual(
        shown?.lastRefused.map((r) => [r.topic, r.name, r.error]),
        [[remote, 'segment.bytes', 'INVALID_CONFIG']],
      );
      assert.ok((shown?.refused ?? 0) >= 3);
    } finally {
      await run.stop();
    }
  });
});
