/**
 * Rolling restarts, as an operator upgrades a cluster: while Kafka's Java producer writes to the
 * source throughout, every broker of the target in turn is stopped (SIGTERM: controlled shutdown,
 * its leaderships and the group and transaction coordinators it held move), started again and
 * awaited back in the ISR of every partition before the next; then the same on the source. A
 * `mirrorflow run` replicates throughout; at the end Kafka's Java consumer finds every source
 * record on the target once, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName } from '../support/clusters';
import { exited } from '../support/fault-load';
import { ownClusters } from '../support/own-clusters';
import { httpAddress, spawnPipeline } from '../support/pipeline-harness';
import {
  assertWholeReplica,
  flowState,
  PRODUCTION_CLUSTERS,
  productionPipeline,
  replicationGoesOn,
  rollingRestart,
  seconds,
  startNumberedProducer,
  verifyWhenCaughtUp,
} from '../support/production-load';
import { ReplicaState } from '../support/replica-state';

const clusters = ownClusters(['src', 'dst'], PRODUCTION_CLUSTERS);
const PARTITIONS = 6;
const RATE = 300;

test('rolling restarts of the target, then of the source, while a Java producer writes: every record on the target once, in order', async (t) => {
  const began = Date.now();
  const bootstrap = clusters.bootstrapServers();
  const topic = uniqueName('rolling');
  const remote = `src.${topic}`;
  await clusters.kit('src').createTopic(topic, PARTITIONS);
  const { file } = await productionPipeline(bootstrap, topic);
  const producer = await startNumberedProducer({ bootstrap: bootstrap.src, topic, partitions: PARTITIONS, rate: RATE });
  const mirrorflow = spawnPipeline(file);
  const address = await httpAddress(mirrorflow, 90_000);
  const alive = (): void => assert.ok(!exited(mirrorflow), `mirrorflow ended:\n${mirrorflow.stderr().slice(-3000)}`);
  const describe = async (): Promise<string> =>
    `source ${topic}: ${await clusters.kit('src').count(topic)} records; ${producer.describe()}\nmirrorflow: ${JSON.stringify(await flowState(address))}\n${mirrorflow.stderr().slice(-3000)}`;
  const goesOn = (): Promise<void> => replicationGoesOn(clusters.kit('dst'), remote, { more: RATE, alive, describe });
  await goesOn();

  const replicas = { src: new ReplicaState(bootstrap.src), dst: new ReplicaState(bootstrap.dst) };
  t.after(() => Promise.all([replicas.src.close(), replicas.dst.close()]));
  const targetSteps = await rollingRestart(clusters.nodes('dst'), replicas.dst, goesOn);
  const sourceSteps = await rollingRestart(clusters.nodes('src'), replicas.src, goesOn);
  const flow = await flowState(address);
  assert.equal(flow.state, 'running', 'the flow runs on after both rolling restarts');

  const produced = await producer.stop();
  const verdict = await verifyWhenCaughtUp({
    sourceBootstrap: bootstrap.src,
    sourceTopic: topic,
    targetBootstrap: bootstrap.dst,
    targetTopic: remote,
    partitions: PARTITIONS,
    produced,
  });
  mirrorflow.kill('SIGTERM');
  const end = await mirrorflow.exited;
  assert.equal(end.code, 0, `a SIGTERM ends mirrorflow cleanly; stderr:\n${end.stderr.slice(-2000)}`);

  t.diagnostic(`producer: ${produced.acked} acknowledged of ${produced.sent} sent, ${produced.failed} failed, errors ${JSON.stringify(produced.errors)}`);
  t.diagnostic(`target: ${verdict.totals.target} records, missing ${verdict.totals.missing}, duplicates ${verdict.totals.duplicates}`);
  for (const [side, steps] of [['dst', targetSteps] as const, ['src', sourceSteps] as const]) {
    for (const s of steps)
      t.diagnostic(`${side} node ${s.node}: halted in ${seconds(s.haltMs)}, serving in ${seconds(s.startMs)}, in every ISR ${seconds(s.inSyncMs)} later`);
  }
  t.diagnostic(`mirrorflow errors retried: ${JSON.stringify(flow.errors)}; file ${seconds(Date.now() - began)}`);
  assertWholeReplica(verdict, produced);
});
