/**
 * Partition leadership moved under a running flow, as operators move it: on the source and on the
 * target, every partition of every topic but Kafka's own is reassigned with Kafka's
 * `kafka-reassign-partitions` away from its leader (to the other two replicas), then back to
 * three replicas led by the old leader's copy (copied anew), and Kafka's `kafka-leader-election`
 * makes that preferred replica lead again. Kafka's Java producer writes to the source
 * throughout; at the end every source record is on the target once, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName } from '../support/clusters';
import { exited } from '../support/fault-load';
import { electPreferredLeaders, reassignPartitions } from '../support/kafka-admin-tools';
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
import { ReplicaState, type PartitionReplicas } from '../support/replica-state';
import { waitFor } from '../support/wait-for';

const clusters = ownClusters(['src', 'dst'], PRODUCTION_CLUSTERS);
const PARTITIONS = 6;
const RATE = 300;

/** Every partition of the cluster but those of Kafka's own topics (`__consumer_offsets`, `__transaction_state`). */
async function movable(replicas: ReplicaState): Promise<PartitionReplicas[]> {
  return (await replicas.partitions()).filter((p) => !p.topic.startsWith('__'));
}

const key = (p: { topic: string; partition: number }): string => `${p.topic}-${p.partition}`;

test('leadership moved on source and target by reassignments and a preferred-leader election while a Java producer writes: every record on the target once, in order', async (t) => {
  const began = Date.now();
  const bootstrap = clusters.bootstrapServers();
  const topic = uniqueName('leaders');
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
    const before = await movable(replicas);
    const stepStarted = Date.now();
    // Away from each leader: the two other replicas, so leadership must move.
    await reassignPartitions(
      bootstrap[side],
      before.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas.filter((r) => r !== p.leader) })),
    );
    const away = new Map((await movable(replicas)).map((p) => [key(p), p]));
    for (const p of before) assert.notEqual(away.get(key(p))?.leader, p.leader, `${side} ${key(p)}: led by another broker after the reassignment`);
    await goesOn();

    // Back to three replicas, the old leader first: its copy is made anew, and it is the preferred leader.
    await reassignPartitions(
      bootstrap[side],
      before.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [p.leader, ...p.replicas.filter((r) => r !== p.leader)] })),
    );
    await goesOn();
    // The controller elects; each broker learns it from the metadata log a moment later, so the
    // leaders are awaited as an operator reads them. An election that found a preferred replica
    // not yet caught up leaves its partition as it was: it is asked again, as an operator would.
    let election = await electPreferredLeaders(bootstrap[side]);
    let after = new Map<string, PartitionReplicas>();
    const preferredLead = (): boolean => before.every((p) => after.get(key(p))?.leader === p.leader && after.get(key(p))?.isr.length === 3);
    await waitFor(
      async () => {
        after = new Map((await movable(replicas)).map((p) => [key(p), p]));
        if (!preferredLead()) election = await electPreferredLeaders(bootstrap[side]);
        return preferredLead();
      },
      { what: `${side}: every partition led by its preferred replica, three in sync`, timeoutMs: 60_000, intervalMs: 1000 },
    ).catch(() => undefined);
    for (const p of before) {
      assert.equal(after.get(key(p))?.leader, p.leader, `${side} ${key(p)}: its preferred replica leads again; the last election said:\n${election}`);
      assert.equal(after.get(key(p))?.isr.length, 3, `${side} ${key(p)}: three in sync`);
    }
    await goesOn();
    t.diagnostic(`${side}: ${before.length} partitions moved away from their leaders and back, ${seconds(Date.now() - stepStarted)}`);
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
