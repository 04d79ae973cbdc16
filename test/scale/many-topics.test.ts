/**
 * A start with many topics (issue 42, many partitions): 200 topics of 5 partitions, each partition
 * holding records before the pipeline starts. Every partition's records must reach the target
 * once: a start that reads each topic's offsets on its own took so long with 1,000 topics that
 * the group dropped the member, which rejoined and copied partitions a second time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaKit, distinct, keyedRecords, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const TOPICS = 200;
const PARTITIONS = 5;
const RECORDS_PER_PARTITION = 3;
/** Topics written at once. */
const AT_ONCE = 20;

async function inGroups<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += AT_ONCE) await Promise.all(items.slice(i, i + AT_ONCE).map(each));
}

test('a start with 200 topics of 5 partitions copies every partition, each record once', async () => {
  const p = uniqueName('many-topics');
  const topics = Array.from({ length: TOPICS }, (_, i) => `${p}-${String(i).padStart(3, '0')}`);
  const remotes = topics.map((topic) => `primary.${topic}`);
  const written = new Map<string, TestRecord[]>();
  try {
    await source.createTopics(topics, PARTITIONS);
    await inGroups(topics, async (topic) => {
      const records = keyedRecords(PARTITIONS * RECORDS_PER_PARTITION, PARTITIONS).map((r) => ({ ...r, value: Buffer.from(`${topic} ${String(r.value)}`) }));
      await source.produce(topic, records);
      written.set(topic, records);
    });
    const onSource = await source.endOffsetsOf(topics);
    assert.equal(onSource.size, TOPICS);
    for (const [topic, ends] of onSource) assert.deepEqual(ends, Array(PARTITIONS).fill(RECORDS_PER_PARTITION), `${topic} holds the records written`);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = await startPipeline(file);
    try {
      await run.until(async () => (await target.topicsContaining(p)).length === TOPICS, { what: `the ${TOPICS} remote topics`, timeoutMs: 60_000 });
      await run.until(
        async () => {
          const ends = await target.endOffsetsOf(remotes);
          return remotes.every((remote) => ends.get(remote)?.every((end) => end >= RECORDS_PER_PARTITION) === true);
        },
        { what: `${RECORDS_PER_PARTITION} records in each of the ${TOPICS * PARTITIONS} remote partitions`, timeoutMs: 60_000, intervalMs: 250 },
      );
      // One assignment, never a rejoin: a rejoin after a start that outlasted the group's timeouts copied partitions again.
      assert.equal(run.logs.filter((line) => line.message === 'Partitions assigned.').length, 1, 'the partitions were assigned once');
    } finally {
      await run.stop();
    }

    const onTarget = await target.endOffsetsOf(remotes);
    const twice = remotes.filter((remote) => onTarget.get(remote)?.some((end) => end !== RECORDS_PER_PARTITION) !== false);
    assert.deepEqual(twice, [], 'every remote partition holds exactly the records of its source partition');
    // The records themselves, of every tenth topic: the right ones in each partition, in order.
    for (let i = 0; i < TOPICS; i += 10) {
      const inPartitionOrder = [...written.get(topics[i]!)!].sort((a, b) => a.partition - b.partition);
      const copied = await target.readAllFlat(remotes[i]!);
      assert.equal(distinct(copied).length, copied.length, `${remotes[i]} holds no record twice`);
      assert.deepEqual(snapshot(copied), snapshot(inPartitionOrder), `${remotes[i]} holds the source records`);
    }
  } finally {
    // 2,000 partitions less on the shared clusters for the files after this one.
    const created = await source.topicsContaining(p);
    if (created.length > 0) await source.deleteTopics(created);
    const copied = await target.topicsContaining(p);
    if (copied.length > 0) await target.deleteTopics(copied);
  }
});
