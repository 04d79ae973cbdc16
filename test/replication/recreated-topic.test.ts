/**
 * A source topic deleted and created again under the same name (or otherwise cut below the stored
 * position) starts a new log at offset 0. The stored progress then points into the old log: a
 * position past the new end, or one inside the new log that would skip its first records. Either
 * way the flow must notice, warn, count it, and resume where `consumer.auto_offset_reset` says
 * (MM2's `consumer.auto.offset.reset`, earliest), so every record of the new topic arrives.
 * The remote topic is never deleted: the new records are appended after the old copies.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type LogLine, type RunningPipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const RESET_WARNING = 'Source partition restarted below the stored position; resuming from the new log.';

/** `count` records per partition, values `<label>-<partition>-<n>`. */
function records(label: string, partitions: number, count: number): TestRecord[] {
  const out: TestRecord[] = [];
  for (let n = 0; n < count; n++) {
    for (let partition = 0; partition < partitions; partition++) {
      out.push({ partition, key: Buffer.from(`k${n}`), value: Buffer.from(`${label}-${partition}-${n}`), headers: [], timestamp: Date.now() });
    }
  }
  return out;
}

/** Values on the remote topic, per partition, in offset order. */
async function remoteValues(remote: string): Promise<Map<number, string[]>> {
  const byPartition = await target.readAll(remote);
  return new Map([...byPartition].map(([partition, list]) => [partition, list.map((r) => r.value?.toString() ?? '<null>')]));
}

/** Waits until every value of `expected` is on the remote partition, after the old copies. */
async function waitForNewRecords(run: RunningPipeline, remote: string, label: string, partitions: number, count: number, oldCount: number): Promise<void> {
  await run.until(
    async () => {
      const values = await remoteValues(remote);
      for (let p = 0; p < partitions; p++) {
        const after = (values.get(p) ?? []).slice(oldCount);
        for (let n = 0; n < count; n++) if (!after.includes(`${label}-${p}-${n}`)) return false;
      }
      return true;
    },
    { what: `all ${count} records per partition of the recreated topic in ${remote}`, timeoutMs: 60_000 },
  );
}

const resetWarnings = (logs: readonly LogLine[], topic: string): LogLine[] =>
  logs.filter((l) => l.level === 'warn' && l.message === RESET_WARNING && l.meta['topic'] === topic);

async function recreate(topic: string, partitions: number): Promise<void> {
  await source.deleteTopic(topic);
  await source.createTopic(topic, partitions);
}

describe('recreated source topic', () => {
  test('deleted and recreated with fewer records while running: every new record arrives, a warning names the offsets, one reset counted', async () => {
    const p = uniqueName('rt-fewer');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1);
    await source.produce(topic, records('old', 1, 10));
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    await run.running();
    await run.until(async () => (await target.count(remote)) >= 10, { what: `10 records in ${remote}` });

    await recreate(topic, 1);
    await source.produce(topic, records('new', 1, 3));

    await waitForNewRecords(run, remote, 'new', 1, 3, 10);
    const values = (await remoteValues(remote)).get(0) ?? [];
    assert.deepEqual(
      values.slice(0, 10),
      records('old', 1, 10).map((r) => r.value!.toString()),
      'the old copies stay on the remote topic',
    );

    const warnings = await run.until(() => (resetWarnings(run.logs, topic).length > 0 ? resetWarnings(run.logs, topic) : undefined), {
      what: 'the reset warning',
    });
    assert.equal(warnings.length, 1, `one reset is logged: ${JSON.stringify(warnings)}`);
    assert.deepEqual(
      { partition: warnings[0]!.meta['partition'], storedOffset: warnings[0]!.meta['storedOffset'], resumeAt: warnings[0]!.meta['resumeAt'] },
      { partition: 0, storedOffset: 10, resumeAt: 0 },
      'the warning names the partition, the stored offset and where it resumes',
    );
    // The new log's end when the restart was noticed: before the new records were written (a
    // topic refresh or fetch between the topic's creation and the write) or after.
    assert.ok([0, 3].includes(warnings[0]!.meta['logEnd'] as number), `the warning names the new log end: ${String(warnings[0]!.meta['logEnd'])}`);
    assert.equal(run.statuses()[0]!.sourceResets, 1, 'the flow status counts one reset');
    await run.stop();
  });

  test('recreated with more records than were copied: the changed topic id is noticed and none of the first records is skipped', async () => {
    const p = uniqueName('rt-more');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2);
    await source.produce(topic, records('old', 2, 5));
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    await run.running();
    await run.until(async () => (await target.count(remote)) >= 10, { what: `10 records in ${remote}` });

    await recreate(topic, 2);
    await source.produce(topic, records('new', 2, 12));

    await waitForNewRecords(run, remote, 'new', 2, 12, 5);
    const warnings = await run.until(() => (resetWarnings(run.logs, topic).length >= 2 ? resetWarnings(run.logs, topic) : undefined), {
      what: 'a reset warning per partition',
    });
    assert.deepEqual(warnings.map((w) => w.meta['partition']).sort(), [0, 1], `each partition is reset once: ${JSON.stringify(warnings.map((w) => w.meta))}`);
    for (const w of warnings) {
      assert.notEqual(w.meta['previousTopicId'], undefined, 'the warning names the old topic id');
      assert.notEqual(w.meta['previousTopicId'], w.meta['topicId'], 'and the new one');
    }
    assert.equal(run.statuses()[0]!.sourceResets, 2);
    await run.stop();
  });

  test('a topic deleted for a while does not stop the flow: other topics go on, and it is picked up again when it comes back', async () => {
    const p = uniqueName('rt-gone');
    const gone = `${p}-gone`;
    const keep = `${p}-keep`;
    await source.createTopic(gone, 1);
    await source.createTopic(keep, 1);
    await source.produce(gone, records('old', 1, 5));
    await source.produce(keep, records('first', 1, 5));
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    await run.running();
    await run.until(async () => (await target.count(`primary.${gone}`)) >= 5 && (await target.count(`primary.${keep}`)) >= 5, { what: 'both topics copied' });

    await source.deleteTopic(gone);
    // A refresh without the topic: the subscription no longer has it.
    await run.until(() => run.statuses()[0]!.topics === 1, { what: 'the flow to replicate one topic' });
    await source.produce(keep, records('second', 1, 5));
    await waitForNewRecords(run, `primary.${keep}`, 'second', 1, 5, 5);
    assert.equal(run.statuses()[0]!.state, 'running');

    await source.createTopic(gone, 1);
    await source.produce(gone, records('back', 1, 4));
    await waitForNewRecords(run, `primary.${gone}`, 'back', 1, 4, 5);
    assert.equal((await remoteValues(`primary.${gone}`)).get(0)?.length, 9, 'the old copies, then the new records once');
    await run.stop();
  });

  test('recreated shorter while the pipeline was stopped: the restarted pipeline detects it and replicates from the new start', async () => {
    const p = uniqueName('rt-restart');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2);
    await source.produce(topic, records('old', 2, 10));
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const first = await startPipeline(file);
    await first.running();
    await first.until(async () => (await target.count(remote)) >= 20, { what: `20 records in ${remote}` });
    await first.stop();

    await recreate(topic, 2);
    await source.produce(topic, records('new', 2, 4));

    const second = await startPipeline(file);
    await second.running();
    await waitForNewRecords(second, remote, 'new', 2, 4, 10);
    const warnings = resetWarnings(second.logs, topic);
    assert.deepEqual(
      warnings
        .map((w) => ({ partition: w.meta['partition'], storedOffset: w.meta['storedOffset'], logEnd: w.meta['logEnd'], resumeAt: w.meta['resumeAt'] }))
        .sort((a, b) => Number(a.partition) - Number(b.partition)),
      [
        { partition: 0, storedOffset: 10, logEnd: 4, resumeAt: 0 },
        { partition: 1, storedOffset: 10, logEnd: 4, resumeAt: 0 },
      ],
    );
    assert.equal(second.statuses()[0]!.sourceResets, 2);
    await second.stop();
  });
});
