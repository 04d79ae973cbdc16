/**
 * A target broker lost for good: while Kafka's Java producer writes to the source throughout, the
 * target broker leading the remote topic's first partition is killed with SIGKILL and never
 * started again. Its partitions' leaders move to the two brokers left, which are still enough for
 * acks=all with min.insync.replicas 2; replication goes on, and at the end Kafka's Java consumer
 * finds every source record on the target once, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { exited } from '../support/fault-load';
import { ownClusters } from '../support/own-clusters';
import { httpAddress, spawnPipeline } from '../support/pipeline-harness';
import {
  assertWholeReplica,
  flowState,
  PRODUCTION_CLUSTERS,
  productionPipeline,
  replicationGoesOn,
  seconds,
  startNumberedProducer,
  verifyWhenCaughtUp,
} from '../support/production-load';
import { ReplicaState } from '../support/replica-state';

const clusters = ownClusters(['src', 'dst'], PRODUCTION_CLUSTERS);
const PARTITIONS = 6;
const RATE = 300;

test('a target broker killed for good mid-stream: replication goes on with two of three, every record on the target once, in order', async (t) => {
  const began = Date.now();
  const bootstrap = clusters.bootstrapServers();
  const topic = uniqueName('lost');
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

  const replicas = new ReplicaState(bootstrap.dst);
  t.after(() => replicas.close());
  const victim = (await replicas.partitions([remote])).find((p) => p.partition === 0)!.leader;
  const led = (await replicas.partitions()).filter((p) => p.leader === victim).length;
  const killedAt = Date.now();
  await clusters.node('dst', victim).halt({ signal: 'SIGKILL' });
  // Its partitions get other leaders once the controller fences it (broker.session.timeout.ms).
  await waitFor(async () => (await replicas.partitions()).every((p) => p.leader !== victim && !p.isr.includes(victim)), {
    what: `no partition led by node ${victim}, and none with it in its ISR`,
    timeoutMs: 120_000,
    intervalMs: 500,
  });
  const movedMs = Date.now() - killedAt;
  // Twice five seconds' worth of records: not just a burst that was in flight at the kill.
  await replicationGoesOn(clusters.kit('dst'), remote, { more: 5 * RATE, alive, describe });
  await replicationGoesOn(clusters.kit('dst'), remote, { more: 5 * RATE, alive, describe });
  const flow = await flowState(address);
  assert.equal(flow.state, 'running', 'the flow runs on with two target brokers');

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

  t.diagnostic(`killed dst node ${victim}, which led ${led} partitions; all led elsewhere ${seconds(movedMs)} after the kill`);
  t.diagnostic(`producer: ${produced.acked} acknowledged of ${produced.sent} sent, ${produced.failed} failed, errors ${JSON.stringify(produced.errors)}`);
  t.diagnostic(`target: ${verdict.totals.target} records, missing ${verdict.totals.missing}, duplicates ${verdict.totals.duplicates}`);
  t.diagnostic(`mirrorflow errors retried: ${JSON.stringify(flow.errors)}; file ${seconds(Date.now() - began)}`);
  assertWholeReplica(verdict, produced);
});
