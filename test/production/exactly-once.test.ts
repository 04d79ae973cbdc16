/**
 * `delivery: exactly_once` through a rolling restart of the target: each target broker in turn is
 * stopped with SIGTERM, started again and awaited back in every ISR, so the leaders of the remote
 * topic, of the progress topic and of `__transaction_state` (the transaction coordinators of the
 * flow's transactional ids) all move while transactions are open. Kafka's Java producer writes
 * to the source throughout; at the end a read_committed Java consumer of the target sees every
 * source record exactly once, in order.
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

test('exactly-once through a rolling restart of the target (its transaction coordinators move): a read_committed reader sees every source record once, in order', async (t) => {
  const began = Date.now();
  const bootstrap = clusters.bootstrapServers();
  const topic = uniqueName('eos-rolling');
  const remote = `src.${topic}`;
  await clusters.kit('src').createTopic(topic, PARTITIONS);
  const { file } = await productionPipeline(bootstrap, topic, { delivery: 'exactly_once', tasks: 4 });
  const producer = await startNumberedProducer({ bootstrap: bootstrap.src, topic, partitions: PARTITIONS, rate: RATE });
  const mirrorflow = spawnPipeline(file);
  const address = await httpAddress(mirrorflow, 90_000);
  const alive = (): void => assert.ok(!exited(mirrorflow), `mirrorflow ended:\n${mirrorflow.stderr().slice(-3000)}`);
  const describe = async (): Promise<string> =>
    `source ${topic}: ${await clusters.kit('src').count(topic)} records; ${producer.describe()}\nmirrorflow: ${JSON.stringify(await flowState(address))}\n${mirrorflow.stderr().slice(-3000)}`;
  // The target's end offsets count commit markers too: enough to see transactions go on being committed.
  const goesOn = (): Promise<void> => replicationGoesOn(clusters.kit('dst'), remote, { more: RATE, alive, describe });
  await goesOn();

  const replicas = new ReplicaState(bootstrap.dst);
  t.after(() => replicas.close());
  const coordinatorsBefore = await replicas.partitions(['__transaction_state']);
  const steps = await rollingRestart(clusters.nodes('dst'), replicas, goesOn);
  const coordinatorsAfter = await replicas.partitions(['__transaction_state']);
  const flow = await flowState(address);
  assert.equal(flow.state, 'running', 'the flow runs on after the rolling restart');

  const produced = await producer.stop();
  const verdict = await verifyWhenCaughtUp({
    sourceBootstrap: bootstrap.src,
    sourceTopic: topic,
    targetBootstrap: bootstrap.dst,
    targetTopic: remote,
    partitions: PARTITIONS,
    targetIsolation: 'read_committed',
    produced,
  });
  mirrorflow.kill('SIGTERM');
  const end = await mirrorflow.exited;
  assert.equal(end.code, 0, `a SIGTERM ends mirrorflow cleanly; stderr:\n${end.stderr.slice(-2000)}`);

  const leaders = (ps: typeof coordinatorsBefore): string => ps.map((p) => p.leader).join(' ');
  t.diagnostic(`__transaction_state leaders before: ${leaders(coordinatorsBefore)}; after: ${leaders(coordinatorsAfter)}`);
  for (const s of steps)
    t.diagnostic(`dst node ${s.node}: halted in ${seconds(s.haltMs)}, serving in ${seconds(s.startMs)}, in every ISR ${seconds(s.inSyncMs)} later`);
  t.diagnostic(`producer: ${produced.acked} acknowledged of ${produced.sent} sent, ${produced.failed} failed, errors ${JSON.stringify(produced.errors)}`);
  t.diagnostic(`target (read_committed): ${verdict.totals.target} records, missing ${verdict.totals.missing}, duplicates ${verdict.totals.duplicates}`);
  t.diagnostic(`mirrorflow errors retried: ${JSON.stringify(flow.errors)}; file ${seconds(Date.now() - began)}`);
  assertWholeReplica(verdict, produced);
});
