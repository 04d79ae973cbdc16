/**
 * What retrying cannot fix still ends the run: outages are waited for, but a record larger than
 * the target takes stops `mirrorflow run` (with `errors.tolerance: none`, the default) with the
 * reason and the exit code of a failed record, instead of being retried forever. On the shared
 * clusters: nothing here hurts them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, writePipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

test('a record larger than the target topic takes ends the run with exit 65, naming the record, the topic and the limit', async () => {
  const topic = uniqueName('too-large');
  const remote = `primary.${topic}`;
  await source.createTopic(topic, 1);
  await target.createTopic(remote, 1, { 'max.message.bytes': '1024' });
  await source.produce(topic, [{ partition: 0, key: null, value: Buffer.alloc(8000, 1), headers: [], timestamp: Date.now() }]);
  // The remote topic's smaller limit is the target's own: config sync would remove the override,
  // as MM2's does for a config at its default on the source (use.defaults.from = target).
  const { file } = await writePipeline({ flows: [{ topics: [topic], checkpoints: { enabled: false }, topic_sync: { sync_configs: false } }] });
  // Fails the test if mirrorflow does not end by itself.
  const result = await runCli(['run', file, '--status-interval', '0'], 90_000);
  assert.equal(result.code, 65, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, new RegExp(`record at topic "${topic}" partition 0 offset 0 failed in the write to the target`));
  assert.match(result.stderr, new RegExp(`larger than ${remote.replace(/\./g, '\\.')}-0 takes \\(the target topic's max\\.message\\.bytes`));
});
