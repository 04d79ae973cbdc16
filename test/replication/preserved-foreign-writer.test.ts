/**
 * `offsets: preserve` when another program writes to a preserved target partition while the
 * flow's process is not there to see it. The state a crash leaves behind — a partition marked
 * preserved, its target ending past the stored progress because of records that are not the
 * source's, the fallback never stored — is made here for real: the flow stops with its progress
 * stored, a producer writes to the remote partition, the source gets more records, and the flow
 * starts again. A restart that trusted the mark would resume at the target's end and never copy
 * as many source records as the other program wrote; it must see the foreign records, fall back
 * at its progress with the reason, and copy every source record.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

const T0 = 1_700_000_000_000;

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

function numbered(label: string, from: number, count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: 0,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${from + i}`),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: T0 + from + i,
  }));
}

async function caughtUp(run: RunningPipeline, topic: string): Promise<void> {
  const [end] = await source.endOffsets(topic);
  await run.until(() => [...(run.statuses()[0]?.partitions.values() ?? [])].some((p) => p.topic === topic && p.nextOffset >= end!), {
    what: `${topic} read to its end (${end})`,
    timeoutMs: 90_000,
  });
}

describe('offsets: preserve and a writer besides the flow', () => {
  test('records another program wrote past the stored progress make the restart fall back there; no source record is skipped', async () => {
    const topic = `${uniqueName('keep-foreign')}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1);
    await source.produce(topic, numbered('a', 0, 100));
    const { file } = await writePipeline({ flows: [{ topics: [topic], offsets: 'preserve' }] });

    const first = await startPipeline(file);
    try {
      await caughtUp(first, topic);
    } finally {
      await first.stop();
    }
    assert.equal((first.statuses()[0]?.preservation?.values() ?? []).filter((p) => p.preserved).length, 1, 'the partition was preserved in the first run');
    assert.deepEqual(await target.endOffsets(remote), [100]);

    // Another program writes to the remote partition; then the source gets more records.
    await target.produce(
      remote,
      Array.from({ length: 5 }, (_, i) => ({
        partition: 0,
        key: Buffer.from(`foreign-${i}`),
        value: Buffer.from('not from the source'),
        headers: [],
        timestamp: T0,
      })),
    );
    await source.produce(topic, numbered('b', 100, 50));

    const second = await startPipeline(file);
    try {
      await caughtUp(second, topic);
    } finally {
      await second.stop();
    }
    const [state] = second.statuses()[0]?.preservation?.values() ?? [];
    assert.ok(state !== undefined && !state.preserved, `the partition fell back: ${JSON.stringify(state)}`);
    assert.equal(state.fromOffset, 100, 'from the stored progress');
    assert.match(state.reason, /record at offset 100 is not the source's .*another program wrote to the target partition/);
    assert.ok(
      second.logs.some((l) => l.level === 'warn' && l.message.startsWith('Offsets no longer preserved')),
      'the fallback is a warning',
    );

    const onTarget = (await target.readAll(remote)).get(0) ?? [];
    const fromSource = (await source.readAll(topic)).get(0) ?? [];
    const copies = onTarget.filter((r) => !r.key?.toString().startsWith('foreign-'));
    assert.deepEqual(snapshot(copies), snapshot(fromSource), 'every source record is on the target, in order, once');
    assert.equal(onTarget.length, 155, '150 source records and the other program’s 5');
  });
});
