/**
 * Several `mirrorflow run` processes of one mm2.properties file on one host, as MM2 users scale
 * out, on three-broker clusters: three processes with the default HTTP setting (each serves on a
 * port of its own), then one killed with kill -9, a fourth added, another stopped with SIGTERM,
 * while Kafka's Java producer writes to the source throughout. Nothing is lost, each partition
 * stays in order; at-least-once may copy again what a killed process had not stored (counted),
 * exactly-once shows a read_committed reader every record once.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { exited } from '../support/fault-load';
import { ownClusters } from '../support/own-clusters';
import { httpAddress, scratchDir, spawnCli, writePipelineText, type ChildPipeline } from '../support/pipeline-harness';
import {
  assertWholeReplica,
  PRODUCTION_CLUSTERS,
  replicationGoesOn,
  seconds,
  startNumberedProducer,
  verifyWhenCaughtUp,
  type NumberedProducer,
} from '../support/production-load';

const clusters = ownClusters(['src', 'dst'], PRODUCTION_CLUSTERS);
const PARTITIONS = 6;
const RATE = 300;

interface Running {
  readonly child: ChildPipeline;
  readonly address: string;
}

async function flowOf(address: string): Promise<{ elected: boolean; partitionsAssigned: number; state: string }> {
  const document = (await (await fetch(`${address}/status`)).json()) as { flows: { elected: boolean; partitionsAssigned: number; state: string }[] };
  return document.flows[0]!;
}

/** Waits until, among the running processes, exactly one is elected and every partition is assigned once. */
async function settled(running: readonly Running[]): Promise<void> {
  await waitFor(
    async () => {
      const flows = await Promise.all(running.map((r) => flowOf(r.address).catch(() => undefined)));
      if (flows.some((f) => f === undefined || f.state !== 'running')) return false;
      return flows.filter((f) => f!.elected).length === 1 && flows.reduce((sum, f) => sum + f!.partitionsAssigned, 0) === PARTITIONS;
    },
    { what: `${running.length} processes sharing the ${PARTITIONS} partitions, one elected`, timeoutMs: 120_000, intervalMs: 500 },
  );
}

async function scaleOut(delivery: 'at_least_once' | 'exactly_once', t: { diagnostic(message: string): void }): Promise<void> {
  const began = Date.now();
  const bootstrap = clusters.bootstrapServers();
  // Aliases of its own: each test's progress, election group and transactional ids are its own.
  const s = uniqueName('src');
  const d = uniqueName('dst');
  const topic = uniqueName('host');
  const remote = `${s}.${topic}`;
  await clusters.kit('src').createTopic(topic, PARTITIONS);
  const file = writePipelineText(
    [
      `clusters = ${s}, ${d}`,
      `${s}.bootstrap.servers = ${bootstrap.src}`,
      `${d}.bootstrap.servers = ${bootstrap.dst}`,
      `${s}->${d}.enabled = true`,
      `${s}->${d}.topics = ${topic}`,
      `${d}->${s}.emit.heartbeats.enabled = false`,
      'replication.factor = 3',
      'checkpoints.topic.replication.factor = 3',
      'heartbeats.topic.replication.factor = 3',
      'offset-syncs.topic.replication.factor = 3',
      'offset.storage.replication.factor = 3',
      ...(delivery === 'exactly_once' ? [`${d}.exactly.once.source.support = enabled`, 'tasks.max = 4'] : []),
      '',
    ].join('\n'),
    'mm2.properties',
  );
  const env = { MIRRORFLOW_RUNTIME_DIR: scratchDir('mirrorflow-runtime-') };
  const all: ChildPipeline[] = [];
  const start = async (): Promise<Running> => {
    // The default HTTP setting, as a user runs them: each process finds a port of its own.
    const child = spawnCli(['run', file, '--status-interval', '0', '--log-format', 'json'], { env, defaultHttp: true });
    all.push(child);
    return { child, address: await httpAddress(child, 120_000) };
  };
  let producer: NumberedProducer | undefined;
  try {
    producer = await startNumberedProducer({ bootstrap: bootstrap.src, topic, partitions: PARTITIONS, rate: RATE });
    let running: Running[] = await Promise.all([start(), start(), start()]);
    assert.equal(new Set(running.map((r) => r.address)).size, 3, `each process serves on its own port: ${running.map((r) => r.address).join(', ')}`);
    const alive = (): void => {
      const gone = running.find((r) => exited(r.child));
      assert.ok(gone === undefined, `a process ended:\n${gone?.child.stderr().slice(-3000)}`);
    };
    const load = producer;
    const describe = async (): Promise<string> =>
      `source ${topic}: ${await clusters.kit('src').count(topic)} records; ${load.describe()}\nstatus: ${JSON.stringify(await Promise.all(running.map((r) => flowOf(r.address).catch((e: unknown) => String(e)))))}`;
    const goesOn = (): Promise<void> => replicationGoesOn(clusters.kit('dst'), remote, { more: RATE, alive, describe });
    await settled(running);
    await goesOn();

    running[0]!.child.kill('SIGKILL');
    await running[0]!.child.exited;
    running = running.slice(1);
    await settled(running);
    await goesOn();

    running = [...running, await start()];
    await settled(running);
    await goesOn();

    running[0]!.child.kill('SIGTERM');
    const stopped = await running[0]!.child.exited;
    assert.equal(stopped.code, 0, `a SIGTERM ends a process cleanly; stderr:\n${stopped.stderr.slice(-2000)}`);
    running = running.slice(1);
    await settled(running);
    await goesOn();

    const produced = await producer.stop();
    producer = undefined;
    const verdict = await verifyWhenCaughtUp({
      sourceBootstrap: bootstrap.src,
      sourceTopic: topic,
      targetBootstrap: bootstrap.dst,
      targetTopic: remote,
      partitions: PARTITIONS,
      targetIsolation: delivery === 'exactly_once' ? 'read_committed' : 'read_uncommitted',
      produced,
    });
    for (const r of running) {
      r.child.kill('SIGTERM');
      assert.equal((await r.child.exited).code, 0, 'a SIGTERM ends a process cleanly');
    }
    t.diagnostic(`${delivery}: producer ${produced.acked} acknowledged of ${produced.sent} sent, ${produced.failed} failed`);
    t.diagnostic(
      `${delivery}: target ${verdict.totals.target} records${delivery === 'exactly_once' ? ' (read_committed)' : ''}, missing ${verdict.totals.missing}, duplicates ${verdict.totals.duplicates}, out of order ${verdict.totals.outOfOrder}; ${seconds(Date.now() - began)}`,
    );
    assertWholeReplica(verdict, produced, { duplicatesAllowed: delivery === 'at_least_once' });
  } finally {
    await producer?.stop().catch(() => undefined);
    for (const child of all) child.kill('SIGKILL');
  }
}

describe('processes of one mm2.properties on one host, on three-broker clusters', () => {
  test('at-least-once: three processes, one killed with kill -9, a fourth added, another stopped with SIGTERM: nothing lost, in order, duplicates counted', async (t) => {
    await scaleOut('at_least_once', t);
  });

  test('exactly-once: the same: a read_committed reader sees every record once, in order', async (t) => {
    await scaleOut('exactly_once', t);
  });
});
