/**
 * `mirrorflow clusters upstream` against a real cluster: upstream clusters and hops
 * from the heartbeats topics, as MM2's RemoteClusterUtils counts them, with the time of the
 * newest heartbeat on each path. Aliases contain the test's unique name and only those are
 * looked at, because the cluster is shared with other test files.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeHeartbeatKey, encodeHeartbeatValue } from '../../src/formats';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

let backup: KafkaKit;

useKits(
  (clusters) => ({ backup: new KafkaKit(clusters.backup) }),
  (kits) => ({ backup } = kits),
);

interface Report {
  cluster: string;
  heartbeatTopics: string[];
  upstream: { alias: string; hops: number; via: string; lastHeartbeat?: number }[];
  heartbeats?: { topic: string; sourceClusterAlias: string; targetClusterAlias: string; timestamp: number }[];
}

test('lists upstream clusters with their hops and newest heartbeats, as JSON and as a table', async () => {
  const id = uniqueName('upstream');
  const [near, far, other] = [`${id}-near`, `${id}-far`, `${id}-other`];
  const now = Date.now();
  // `near` replicates into backup; `far` reaches backup through `near`; `other` directly too.
  // Heartbeats as MM2 writes them: the herder far->near writes {far, near} into near's
  // `heartbeats`, which near->backup replicates as `near.heartbeats`… and so on.
  const topics: [string, string, string, number][] = [
    [`${near}.heartbeats`, far, near, now - 2000],
    [`${near}.${far}.heartbeats`, other, far, now - 5000],
    [`${other}.heartbeats`, near, other, now - 1000],
  ];
  for (const [topic, source, target, timestamp] of topics) {
    await backup.createTopic(topic, 1, { 'cleanup.policy': 'compact' });
    await backup.produce(topic, [
      {
        partition: 0,
        key: encodeHeartbeatKey({ sourceClusterAlias: source, targetClusterAlias: target }),
        value: encodeHeartbeatValue({ timestamp: timestamp - 500 }),
        headers: [],
        timestamp: timestamp - 500,
      },
      {
        partition: 0,
        key: encodeHeartbeatKey({ sourceClusterAlias: source, targetClusterAlias: target }),
        value: encodeHeartbeatValue({ timestamp }),
        headers: [],
        timestamp,
      },
    ]);
  }
  const { file } = await writePipeline({ flows: [{ topics: [`${id}-none`] }] });

  // Asking for this test's clusters only: other tests leave many heartbeats topics behind.
  const only = [near, far, other].flatMap((alias) => ['--upstream', alias]);
  const json = await runCli(['clusters', 'upstream', file, '--cluster', 'backup', ...only, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const [report] = JSON.parse(json.stdout) as Report[];
  assert.equal(report?.cluster, 'backup');
  assert.deepEqual(report!.upstream, [
    { alias: near, hops: 1, via: `${near}.heartbeats`, lastHeartbeat: now - 2000 },
    { alias: other, hops: 1, via: `${other}.heartbeats`, lastHeartbeat: now - 1000 },
    { alias: far, hops: 2, via: `${near}.${far}.heartbeats`, lastHeartbeat: now - 5000 },
  ]);
  assert.deepEqual(
    report!.heartbeats!.filter((h) => h.topic.includes(id)).map((h) => [h.topic, h.sourceClusterAlias, h.targetClusterAlias, h.timestamp]),
    topics.map(([topic, source, target, timestamp]) => [topic, source, target, timestamp]).sort(),
  );

  const table = await runCli(['clusters', 'upstream', file, '--cluster', 'backup', ...only]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^Cluster backup$/m);
  assert.match(table.stdout, /^ {2}UPSTREAM +HOPS +VIA +LAST HEARTBEAT$/m);
  assert.match(table.stdout, new RegExp(`^ {2}${far} +2 +${near}\\.${far}\\.heartbeats +\\S+Z \\(\\d+s ago\\)$`, 'm'));

  const unknown = await runCli(['clusters', 'upstream', file, '--cluster', 'nowhere']);
  assert.equal(unknown.code, 64);
  assert.match(unknown.stderr, /--cluster nowhere: the pipeline .* has no cluster "nowhere"/);
});
