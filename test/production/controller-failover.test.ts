/**
 * The active controller killed: on the target, then on the source, the node that leads the
 * KRaft quorum (found with Kafka's `kafka-metadata-quorum describe --status`) is killed with
 * SIGKILL while Kafka's Java producer writes to the source; another node takes over as active
 * controller, replication goes on, the killed node is started again and awaited back in every
 * ISR. At the end every source record is on the target once, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName } from '../support/clusters';
import { exited } from '../support/fault-load';
import { activeController, newActiveController } from '../support/kafka-admin-tools';
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

test('the active controller of the target, then of the source, killed and started again while a Java producer writes: every record on the target once, in order', async (t) => {
  const began = Date.now();
  const bootstrap = clusters.bootstrapServers();
  const topic = uniqueName('controller');
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

  for (const side of ['dst', 'src'] as const) {
    const replicas = new ReplicaState(bootstrap[side]);
    t.after(() => replicas.close());
    const controller = await activeController(bootstrap[side]);
    const node = clusters.node(side, controller);
    const killedAt = Date.now();
    await node.halt({ signal: 'SIGKILL' });
    const successor = await newActiveController(bootstrap[side], controller);
    const tookOverMs = Date.now() - killedAt;
    // Replication goes on while the old controller is down.
    await goesOn();
    await node.start();
    await replicas.waitInSync(controller, { timeoutMs: 180_000 });
    await goesOn();
    t.diagnostic(
      `${side}: active controller ${controller} killed, node ${successor} active ${seconds(tookOverMs)} later; back in every ISR ${seconds(Date.now() - killedAt)} after the kill`,
    );
  }
  const flow = await flowState(address);
  assert.equal(flow.state, 'running', 'the flow runs on');

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
  t.diagnostic(`mirrorflow errors retried: ${JSON.stringify(flow.errors)}; file ${seconds(Date.now() - began)}`);
  assertWholeReplica(verdict, produced);
});
