/**
 * A group that committed and then stopped (a batch job, a consumer that is down) gets checkpoints
 * that follow replication as it catches up (issue 38). Tried as a new user would: 20,000 records
 * written by Kafka's Java producer in 4 partitions, a Java consumer in group `app` that processed
 * 2,000 of each and stopped, then mirrorflow from an MM2 file with `groups = app` and
 * `sync.group.offsets.enabled = true`. The first checkpoint is taken while only the first offset
 * syncs exist (2,000 → 1); the group never moves again, yet as the syncs for later offsets arrive
 * the checkpoints, and the group synced on the target, must advance to near 2,000 — never back —
 * so that the application failing over reads on from there, not from the start.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uniqueName, type TestClusters } from '../support/clusters';
import { startPipeline } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import { GroupKit, assertMonotonic } from './checkpoint-kit';
import type { KafkaKit } from '../support/kafka-kit';

const PARTITIONS = 4;
const RECORDS = 20_000;
const STOPPED_AT = 2_000;
/** MM2's default `offset.lag.max`: a translation is at most this far behind the group. */
const LAG_MAX = 100;
const JAVA_TIMEOUT_MS = 180_000;

interface AppRun {
  readonly partitions: Record<string, { first: number; records: number; committed: number }>;
}

let clusters: TestClusters;
let source: KafkaKit;
let dir: string;
let targetGroups: GroupKit;
let java: JavaTools;

sharedClusterKits(
  'mirrorflow-stopped-group-',
  (opened) => ({ targetGroups: new GroupKit(opened.backup) }),
  (kits) => ({ clusters, primary: source, dir, targetGroups } = kits),
);

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
});

test('a group that committed and stopped gets newer checkpoints as offset syncs arrive: synced on the target near where it stopped', async () => {
  const p = uniqueName('stopped');
  const topic = `${p}-orders`;
  const group = `${p}-app`;
  await source.createTopic(topic, PARTITIONS);
  await java.produce({
    bootstrap: clusters.primary,
    topic,
    partitions: PARTITIONS,
    records: RECORDS,
    keyBytes: 8,
    valueBytes: 100,
    headers: 1,
    timeoutMs: JAVA_TIMEOUT_MS,
  });
  const job = await java.benchToolJson<AppRun>(
    ['group-consume', '--bootstrap', clusters.primary, '--topics', topic, '--group', group, '--until-offset', String(STOPPED_AT)],
    JAVA_TIMEOUT_MS,
  );
  for (let n = 0; n < PARTITIONS; n++) assert.deepEqual(job.partitions[`${topic}-${n}`], { first: 0, records: STOPPED_AT, committed: STOPPED_AT });

  const file = join(dir, `${p}.properties`);
  writeFileSync(
    file,
    [
      'clusters = A, B',
      `A.bootstrap.servers = ${clusters.primary}`,
      `B.bootstrap.servers = ${clusters.backup}`,
      'A->B.enabled = true',
      `A->B.topics = ${p}-.*`,
      `groups = ${group}`,
      'sync.group.offsets.enabled = true',
      'sync.group.offsets.interval.seconds = 1',
      'emit.checkpoints.interval.seconds = 1',
      'emit.heartbeats.enabled = false',
      'sync.topic.acls.enabled = false',
      'replication.factor = 1',
      'offset-syncs.topic.replication.factor = 1',
      'checkpoints.topic.replication.factor = 1',
      'offset.storage.replication.factor = 1',
      'B.offset.flush.interval.ms = 500',
    ].join('\n'),
  );
  const remote = `A.${topic}`;
  const run = await startPipeline(file);
  await run.running(60_000);
  const synced = await run.until(
    async () => {
      const offsets = await targetGroups.committed(group);
      const all = Array.from({ length: PARTITIONS }, (_, n) => offsets.get(`${remote}-${n}`)?.offset ?? -1);
      return all.every((o) => o >= STOPPED_AT - LAG_MAX) ? all : undefined;
    },
    { what: `group ${group} synced near ${STOPPED_AT} on every partition of ${remote}`, timeoutMs: 90_000, intervalMs: 500 },
  );
  await run.stop();

  for (const offset of synced) assert.ok(offset <= STOPPED_AT, `synced at ${offset}, past where the group stopped`);
  const log = await targetGroups.checkpointLog('A.checkpoints.internal', group);
  assert.equal(assertMonotonic(log), undefined);
  for (let n = 0; n < PARTITIONS; n++) {
    const last = log.filter((cp) => cp.topicPartition.topic === remote && cp.topicPartition.partition === n).pop();
    assert.ok(
      last !== undefined && last.upstreamOffset === STOPPED_AT && last.downstreamOffset >= STOPPED_AT - LAG_MAX,
      `partition ${n}: ${JSON.stringify(last)}`,
    );
  }

  // The application fails over: the same group on the target reads on from where it stopped.
  const failover = await java.benchToolJson<AppRun>(['group-consume', '--bootstrap', clusters.backup, '--topics', remote, '--group', group], JAVA_TIMEOUT_MS);
  for (let n = 0; n < PARTITIONS; n++) {
    const read = failover.partitions[`${remote}-${n}`]!;
    assert.ok(read.first >= STOPPED_AT - LAG_MAX && read.first <= STOPPED_AT, `partition ${n} resumed at ${read.first}`);
    assert.ok(read.records <= RECORDS / PARTITIONS - STOPPED_AT + LAG_MAX, `partition ${n} read ${read.records} records again`);
  }
});
