/**
 * A zombie after the slot count changed, on real brokers. A process of an exactly-once flow with
 * `tasks: 8` holds the records it fetched in its batcher when it is stopped with SIGSTOP; the
 * group moves on without it, and a process with `tasks: 6` takes the partitions and copies
 * those records. The topic is chosen so that the zombie's transactional ids are below the new
 * count and belong to no partition under it: no member claims them, so only the fencing of the
 * ids nobody holds keeps the zombie from committing. Resumed with SIGCONT, it writes: its
 * transactions must be fenced, and a read_committed consumer of the target sees every source
 * record once.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { numbered } from '../support/fault-load';
import { useKits } from '../support/use-kits';
import { slotOf } from '../../src/flow/replication/slots';

const OLD_TASKS = 8;
const NEW_TASKS = 6;
const PARTITIONS = 2;

let source: KafkaKit;
let target: KafkaKit;
let clusters: TestClusters;

useKits(
  (c) => ({ source: new KafkaKit(c.primary), target: new KafkaKit(c.backup) }),
  (kits) => ({ source, target } = kits),
);

before(async () => {
  clusters = await testClusters();
});

/** A topic whose partitions' slots under the old count are below the new count and are none of their slots under it. */
function zombieTopic(): { topic: string; oldSlots: number[]; newSlots: number[] } {
  const base = uniqueName('zombie');
  for (let i = 0; ; i++) {
    const topic = `${base}-${i}`;
    const slots = (count: number): number[] => Array.from({ length: PARTITIONS }, (_, partition) => slotOf({ topic, partition }, count));
    const oldSlots = slots(OLD_TASKS);
    const newSlots = slots(NEW_TASKS);
    if (oldSlots.every((s) => s < NEW_TASKS && !newSlots.includes(s))) return { topic, oldSlots, newSlots };
  }
}

/** Per partition, the values a read_committed consumer reads. */
async function committedValues(kit: KafkaKit, topic: string): Promise<string[][]> {
  const all = await kit.readAll(topic);
  return Array.from({ length: PARTITIONS }, (_, p) => (all.get(p) ?? []).map((r) => r.value?.toString('utf8') ?? '<null>'));
}

/** A process's flow: partitions assigned, each partition's high watermark as last fetched, bytes fetched and not yet acknowledged. */
async function flowOf(address: string): Promise<{ assigned: number; fetchedTo: number[]; inFlightBytes: number }> {
  const response = await fetch(`${address}/status`);
  const flow = (
    (await response.json()) as {
      flows: { partitionsAssigned: number; partitions: { partition: number; highWatermark: number }[]; buffer: { bytes: number } | null }[];
    }
  ).flows[0]!;
  const fetchedTo = Array.from({ length: PARTITIONS }, (_, p) => flow.partitions.find((x) => x.partition === p)?.highWatermark ?? 0);
  return { assigned: flow.partitionsAssigned, fetchedTo, inFlightBytes: flow.buffer?.bytes ?? 0 };
}

describe('exactly-once: a zombie holding an id below a smaller slot count that no partition maps to', () => {
  test('stopped with its records unwritten, resumed after a process with fewer slots took over: fenced, every record once', async () => {
    const s = uniqueName('src');
    const t = uniqueName('tgt');
    const { topic, oldSlots, newSlots } = zombieTopic();
    await source.createTopic(topic, PARTITIONS);
    const remote = `${s}.${topic}`;
    const name = uniqueName('zombie');
    const flow = { source: s, target: t, topics: [topic], delivery: 'exactly_once' };
    const pipelineClusters = { [s]: clusters.primary, [t]: clusters.backup };
    // The first waiting record waits 20 s for more while the target is idle: long enough to
    // stop the process with records fetched and not yet written.
    const old = await writePipeline({
      name,
      clusters: pipelineClusters,
      flows: [{ ...flow, tasks: OLD_TASKS, batching: { max_wait_ms: 20_000, max_records: 100_000 } }],
    });
    const next = await writePipeline({ name, clusters: pipelineClusters, flows: [{ ...flow, tasks: NEW_TASKS }] });
    const children: ChildPipeline[] = [];
    try {
      await source.produce(topic, numbered('a', 0, 20, [0, 1]));
      const zombie = spawnPipeline(old.file);
      children.push(zombie);
      const zombieAddress = await httpAddress(zombie, 90_000);
      await waitFor(async () => (await committedValues(target, remote).catch(() => [])).flat().length === 20, {
        what: 'the first 20 records copied by the tasks: 8 process',
        timeoutMs: 90_000,
      });

      const endBefore = await target.endOffsets(remote);
      await source.produce(topic, numbered('b', 20, 20, [0, 1]));
      await waitFor(
        async () => {
          const zombieFlow = await flowOf(zombieAddress);
          return zombieFlow.fetchedTo.every((n) => n === 20) && zombieFlow.inFlightBytes > 0;
        },
        {
          what: 'the tasks: 8 process to fetch the next 20 records',
          timeoutMs: 30_000,
        },
      );
      process.kill(zombie.pid, 'SIGSTOP');
      assert.deepEqual(await target.endOffsets(remote), endBefore, 'stopped before it wrote anything of the next 20 (they wait in its batcher)');

      const successor = spawnPipeline(next.file);
      children.push(successor);
      const successorAddress = await httpAddress(successor, 90_000);
      await waitFor(async () => (await flowOf(successorAddress)).assigned === PARTITIONS, {
        what: 'the tasks: 6 process to own both partitions (once the stopped one left the group)',
        timeoutMs: 90_000,
      });
      await waitFor(async () => (await committedValues(target, remote)).flat().length >= 40, {
        what: 'the tasks: 6 process to copy the 20 records the stopped one held',
        timeoutMs: 60_000,
      });

      process.kill(zombie.pid, 'SIGCONT');
      // It writes what it held: fenced, it loses its slots; not fenced, its copies are committed.
      await waitFor(async () => /Slot lost/.test(zombie.stderr() + zombie.stdout()) || (await committedValues(target, remote)).flat().length > 40, {
        what: 'the resumed process to write what it held',
        timeoutMs: 90_000,
      });
      // What it wrote before it found out is aborted; one more record shows the target goes on.
      await source.produce(topic, numbered('c', 40, 2, [0, 1]));
      const expected = [0, 1].map((p) =>
        [...numbered('a', 0, 20, [0, 1]), ...numbered('b', 20, 20, [0, 1]), ...numbered('c', 40, 2, [0, 1])]
          .filter((r) => r.partition === p)
          .map((r) => r.value!.toString('utf8')),
      );
      await waitFor(async () => (await committedValues(target, remote)).flat().length >= 42, { what: 'the last 2 records', timeoutMs: 60_000 });
      assert.deepEqual(await committedValues(target, remote), expected, 'every source record once, in order, for a read_committed consumer');

      assert.match(zombie.stderr() + zombie.stdout(), /Slot lost/, 'the resumed process found its transactions fenced');
      assert.match(successor.stderr() + successor.stdout(), /transactional ids no process holds now are fenced/);
      console.log(`zombie fenced: its ids ${oldSlots.join(', ')} of ${OLD_TASKS} slots, the partitions' slots now ${newSlots.join(', ')} of ${NEW_TASKS}`);
      for (const child of children) {
        child.kill('SIGTERM');
        assert.equal((await child.exited).code, 0, `a SIGTERM ends the process cleanly; stderr:\n${child.stderr().slice(-2000)}`);
      }
    } finally {
      for (const child of children) {
        if (child.child.exitCode === null && child.child.signalCode === null) process.kill(child.pid, 'SIGCONT');
        child.kill('SIGKILL');
      }
    }
  });
});
