/**
 * Rebalances between the processes of one pipeline while Kafka's Java producer writes to 24
 * partitions: three processes, a fourth and a fifth join, one leaves with SIGTERM, one is killed
 * with kill -9. The assignment is sticky: in each rebalance a process that stays keeps what it
 * had as far as balance allows (its "Partitions assigned." line says how many it kept) and reads
 * those on from where it was. Joins copy nothing twice: the processes drain and store their
 * progress before the group moves on, and a newcomer starts where they stopped. At the end every
 * source record is on the target, in order; copies twice only as at-least-once allows (a process
 * leaving or killed while its last records were in flight).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { exited } from '../support/fault-load';
import { httpAddress, spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import {
  assertWholeReplica,
  replicationGoesOn,
  startNumberedProducer,
  verifyReplica,
  verifyWhenCaughtUp,
  type NumberedProducer,
} from '../support/production-load';
import { KafkaKit } from '../support/kafka-kit';
import { useKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary), target: new KafkaKit(clusters.backup) }),
  (kits) => ({ source, target } = kits),
);

const PARTITIONS = 24;
const RATE = 300;

interface Running {
  readonly child: ChildPipeline;
  readonly address: string;
}

interface Assigned {
  readonly generation: number;
  readonly partitions: number;
  readonly kept: number;
}

/** A process's "Partitions assigned." lines (JSON log), oldest first. */
function assignments(child: ChildPipeline): Assigned[] {
  return child
    .stderr()
    .split('\n')
    .filter((line) => line.includes('"Partitions assigned."'))
    .map((line) => JSON.parse(line) as Assigned);
}

async function partitionsOf(address: string): Promise<number | undefined> {
  const document = (await (await fetch(`${address}/status`)).json()) as { flows: { partitionsAssigned: number; state: string }[] };
  const flow = document.flows[0]!;
  return flow.state === 'running' ? flow.partitionsAssigned : undefined;
}

describe('rebalances between the processes of a pipeline', () => {
  test('joins, a SIGTERM and a kill -9 under load: sticky assignments, joins copy nothing twice, nothing is lost', async (t) => {
    const clusters = await testClusters();
    const s = uniqueName('src');
    const d = uniqueName('dst');
    const topic = uniqueName('rebalance');
    const remote = `${s}.${topic}`;
    await source.createTopic(topic, PARTITIONS);
    const { file } = await writePipeline({
      clusters: { [s]: clusters.primary, [d]: clusters.backup },
      flows: [{ source: s, target: d, topics: [topic], consumer: { session_timeout_ms: 6000, heartbeat_interval_ms: 500 } }],
    });
    const all: ChildPipeline[] = [];
    let running: Running[] = [];
    const start = async (): Promise<Running> => {
      const child = spawnPipeline(file, { args: ['--log-format', 'json'] });
      all.push(child);
      return { child, address: await httpAddress(child, 90_000) };
    };
    const alive = (): void => {
      const gone = running.find((r) => exited(r.child));
      assert.ok(gone === undefined, `a process ended:\n${gone?.child.stderr().slice(-3000)}`);
    };
    /** Every running process holds partitions, all of them together once. */
    const settled = async (): Promise<void> => {
      await waitFor(
        async () => {
          alive();
          const counts = await Promise.all(running.map((r) => partitionsOf(r.address).catch(() => undefined)));
          return counts.every((c) => c !== undefined && c > 0) && counts.reduce((a, b) => a! + b!, 0) === PARTITIONS;
        },
        { what: `${running.length} processes sharing the ${PARTITIONS} partitions`, timeoutMs: 90_000, intervalMs: 250 },
      );
    };
    const goesOn = (): Promise<void> => replicationGoesOn(target, remote, { more: RATE, alive });
    /** Each process that stays, after a rebalance: the partitions it has, and how many it kept. */
    const lastAssigned = (): Assigned[] => running.map((r) => assignments(r.child).at(-1)!);
    const verify = () =>
      verifyReplica({ sourceBootstrap: clusters.primary, sourceTopic: topic, targetBootstrap: clusters.backup, targetTopic: remote, partitions: PARTITIONS });

    let producer: NumberedProducer | undefined;
    try {
      producer = await startNumberedProducer({ bootstrap: clusters.primary, topic, partitions: PARTITIONS, rate: RATE });
      running = await Promise.all([start(), start(), start()]);
      await settled();
      await goesOn();

      // Joins: the processes that stay only give partitions up, and keep the rest.
      for (const size of [4, 5]) {
        const before = lastAssigned();
        running = [...running, await start()];
        await settled();
        await goesOn();
        const after = lastAssigned().slice(0, before.length);
        after.forEach((now, i) => {
          assert.ok(now.generation > before[i]!.generation, 'a new generation');
          assert.equal(now.kept, now.partitions, `with ${size} processes, process ${i + 1} kept every partition it was given (${JSON.stringify(now)})`);
          assert.ok(now.partitions <= before[i]!.partitions, 'and was given none of the others');
        });
      }
      const afterJoins = await verify();
      t.diagnostic(`after the joins: target ${afterJoins.totals.target}, duplicates ${afterJoins.totals.duplicates}`);
      assert.equal(afterJoins.totals.duplicates, 0, 'processes joining copy nothing twice');

      // A process leaves cleanly, then one is killed: the others keep what they had and take over its partitions.
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const [leaving, ...staying] = running;
        const before = staying.map((r) => assignments(r.child).at(-1)!);
        leaving!.child.kill(signal);
        const result = await leaving!.child.exited;
        if (signal === 'SIGTERM') assert.equal(result.code, 0, `a SIGTERM ends a process cleanly:\n${result.stderr.slice(-2000)}`);
        running = staying;
        await settled();
        await goesOn();
        lastAssigned().forEach((now, i) => {
          assert.ok(
            now.kept >= before[i]!.partitions,
            `after a ${signal}, process ${i + 2} kept everything it had (${JSON.stringify(now)}, had ${before[i]!.partitions})`,
          );
        });
      }

      const produced = await producer.stop();
      producer = undefined;
      const verdict = await verifyWhenCaughtUp({
        sourceBootstrap: clusters.primary,
        sourceTopic: topic,
        targetBootstrap: clusters.backup,
        targetTopic: remote,
        partitions: PARTITIONS,
        produced,
      });
      t.diagnostic(
        `source ${produced.acked} records; target ${verdict.totals.target}, missing ${verdict.totals.missing}, duplicates ${verdict.totals.duplicates}`,
      );
      assertWholeReplica(verdict, produced, { duplicatesAllowed: true });
    } finally {
      await producer?.stop().catch(() => undefined);
      for (const child of all) child.kill('SIGKILL');
    }
  });
});
