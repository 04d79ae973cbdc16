/**
 * `mirrorflow failover` followed by `mirrorflow failback`, against real clusters, run as a user
 * runs them (the CLI as child processes), with Kafka's Java consumer as the application:
 *
 * 1. A flow primary -> backup replicates; group G consumes part of the topic on primary.
 * 2. Disaster: the flow stops; primary takes records that never reach backup; G fails over
 *    (`mirrorflow failover`), producers write to backup, G consumes there.
 * 3. primary is back: `mirrorflow failback` (after a --dry-run that changes nothing) copies back
 *    what backup received, and G resumes on primary: none of the records it had not read is
 *    skipped; the flow, started again, copies only what primary gets from then on.
 *
 * With `offsets: preserve` (identity names) the topic is truncated and restored: primary ends up
 * holding exactly backup's records at backup's offsets, the cut records saved aside, and G's
 * offsets carry over as they are. With translated offsets, backup's new records are appended on
 * primary after its own, and G's offsets are translated back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { silentLogger } from '../../src/core/ports/logger';
import type { KafkaClients } from '../../src/core/ports/kafka-clients';
import type { GroupOffset } from '../../src/core/ports/cluster-admin';
import type { FailbackReport } from '../../src/pipeline/tools/failback';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { runCli, startPipeline, writePipeline, type TestFlow } from '../support/pipeline-harness';
import { JavaGroupConsumers } from '../interop/group-consumer';
import { MirrorClient } from '../../src/pipeline/tools';
import { DefaultReplicationPolicy, IdentityReplicationPolicy } from '../../src/policy';

const PARTITIONS = 2;

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let clients: KafkaClients;
sharedClusterKits(
  'mirrorflow-failback-',
  (opened) => ({
    clients: createKafkaClients(
      [plaintextConnection('primary', opened.primary), plaintextConnection('backup', opened.backup)],
      silentLogger,
      'mirrorflow-failback-test',
    ),
  }),
  (kits) => ({ clusters, primary, backup, clients } = kits),
);

let java: JavaGroupConsumers;
before(async () => {
  java = await JavaGroupConsumers.compile();
});
after(() => java?.dispose());

function records(label: string, perPartition: number, from = 0): TestRecord[] {
  return Array.from({ length: PARTITIONS * perPartition }, (_, i) => {
    const partition = i % PARTITIONS;
    const n = from + Math.floor(i / PARTITIONS);
    return {
      partition,
      key: Buffer.from(`${label}-${partition}-${n}`),
      value: Buffer.from(`${label} p${partition} #${n}`),
      headers: [],
      timestamp: Date.now(),
    };
  });
}

async function groupOffsets(cluster: 'primary' | 'backup', group: string): Promise<GroupOffset[]> {
  return [...(await firstValueFrom(clients.admin(cluster).fetchGroupOffsets(group)))].sort(
    (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition,
  );
}

/** What a dry run must leave as it was: every topic's ends on both clusters and G's offsets. */
async function fingerprint(group: string, topics: { primary: string[]; backup: string[] }): Promise<unknown> {
  const ends = async (kit: KafkaKit, names: string[]) => Promise.all(names.map(async (t) => [t, await kit.endOffsets(t)]));
  return {
    primaryTopics: [...(await primary.topics()).keys()].filter((t) => t.includes(topics.primary[0]!)).sort(),
    primary: await ends(primary, topics.primary),
    backup: await ends(backup, topics.backup),
    groups: [await groupOffsets('primary', group), await groupOffsets('backup', group)],
  };
}

/** Steps 1 and 2: replicated, G consumed 60 per partition on primary, failed over; then primary took 15 per partition the flow never copied, and backup 25 of its own. */
async function failedOver(label: string, flow: Partial<TestFlow>, remoteOf: (topic: string) => string) {
  const topic = uniqueName(label);
  const remote = remoteOf(topic);
  const group = uniqueName(`${label}-app`);
  await primary.createTopic(topic, PARTITIONS);
  await primary.produce(topic, records('before', 100));
  await java.consume({ bootstrap: clusters.primary, group, topics: [topic], reset: 'earliest', max: 120, timeoutMs: 60_000 });
  const pipeline = await writePipeline({
    flows: [{ topics: [topic], checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, groups: [group] }, ...flow }],
  });
  const run = await startPipeline(pipeline.file);
  const policy = flow.replication_policy === undefined ? new DefaultReplicationPolicy() : new IdentityReplicationPolicy();
  const mirror = new MirrorClient({ admin: clients.admin('backup'), reader: clients.reader('backup'), policy });
  const consumed = await groupOffsets('primary', group);
  await run.until(
    async () =>
      (await backup.topics()).has(remote) &&
      (await backup.endOffsets(remote)).every((e) => e >= 100) &&
      (await mirror.remoteConsumerOffsets(group, 'primary').catch(() => [])).filter((o) =>
        consumed.some((c) => c.partition === o.partition && c.offset === o.upstreamOffset),
      ).length === consumed.length,
    { what: `${remote} replicated and ${group} checkpointed`, timeoutMs: 120_000 },
  );
  await run.stop();
  const failover = await runCli(['failover', pipeline.file, '--group', group]);
  assert.equal(failover.code, 0, failover.stderr);
  await primary.produce(topic, records('unmirrored', 15, 100));
  await backup.produce(remote, records('after', 25, 100));
  // G on backup: from the failed-over offsets, through the rest of what was copied, into backup's own.
  const onBackup = await java.consume({ bootstrap: clusters.backup, group, topics: [remote], reset: 'none', max: 130, timeoutMs: 60_000 });
  assert.equal(onBackup.records.length, 130);
  return { topic, remote, group, pipeline };
}

describe('mirrorflow failback', () => {
  test('offsets: preserve: truncate and restore; primary holds exactly what backup holds, G resumes there as it is, the cut records saved', async () => {
    const s = await failedOver('fb-keep', { offsets: 'preserve', replication_policy: { type: 'identity' } }, (t) => t);
    const onBackup = await groupOffsets('backup', s.group);

    const before = await fingerprint(s.group, { primary: [s.topic], backup: [s.remote] });
    const dry = await runCli(['failback', s.pipeline.file, '--group', s.group, '--dry-run', '--quiet', '1000'], 180_000);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Dry run: failback from backup to primary$/m);
    assert.match(dry.stdout, /^Would, in order:$/m);
    assert.match(dry.stdout, new RegExp(`on primary: create topic mirrorflow\\.failback\\.${s.topic}\\.[a-z0-9]+ \\(2 partitions\\) and save there`));
    assert.match(dry.stdout, new RegExp(`on primary: delete topic ${s.topic} `));
    assert.match(dry.stdout, new RegExp(`on primary: restore ${s.topic}-0 from ${s.topic}-0 on backup`));
    assert.match(dry.stdout, /^Dry run: nothing was changed\.$/m);
    assert.deepEqual(await fingerprint(s.group, { primary: [s.topic], backup: [s.remote] }), before, 'the dry run changed nothing');

    const result = await runCli(['failback', s.pipeline.file, '--group', s.group, '--quiet', '1000', '--json'], 300_000);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as FailbackReport;
    assert.deepEqual(
      report.partitions.map((p) => [p.partition, p.preserved, p.failoverPoint, p.unmirrored, p.action]),
      [
        [0, true, 100, 15, 'restore'],
        [1, true, 100, 15, 'restore'],
      ],
    );

    // primary holds backup's records at backup's offsets.
    const [onP, onB] = [await primary.readAll(s.topic), await backup.readAll(s.remote)];
    for (let p = 0; p < PARTITIONS; p++) {
      const view = (list: typeof onP extends Map<number, infer R> ? R : never) => list.map((r) => `${r.offset}:${r.value?.toString()}`);
      assert.deepEqual(view(onP.get(p) ?? []), view(onB.get(p) ?? []), `partition ${p}: the same records at the same offsets`);
      assert.equal(onP.get(p)!.length, 125);
    }
    // The cut records, saved aside with their offsets.
    const saved = report.restored[0]!.savedTo;
    const kept = await primary.readAllFlat(saved);
    assert.equal(kept.length, 30);
    for (const r of kept) {
      assert.match(r.value!.toString(), /^unmirrored p\d #1\d\d$/);
      const offset = Number(r.headers.find((h) => h.key === 'mirrorflow.failback.offset')!.value!.toString());
      assert.ok(offset >= 100 && offset < 115);
    }
    // G's offsets carry over as they are, and it reads on on primary: the rest of backup's records.
    assert.deepEqual(await groupOffsets('primary', s.group), onBackup);
    const resumed = await java.consume({ bootstrap: clusters.primary, group: s.group, topics: [s.topic], reset: 'none', toEnd: true, timeoutMs: 60_000 });
    for (const o of onBackup) {
      const read = resumed.records.filter((r) => r.partition === o.partition).map((r) => r.offset);
      assert.deepEqual(
        read,
        Array.from({ length: 125 - o.offset }, (_, i) => o.offset + i),
        `partition ${o.partition}: from ${o.offset} to the end, none skipped`,
      );
    }

    // The flow, started again, copies what primary gets from now on, and nothing twice.
    await primary.produce(s.topic, records('later', 5, 125));
    const run = await startPipeline(s.pipeline.file);
    await run.until(async () => (await backup.endOffsets(s.remote)).every((e) => e >= 130), { what: 'the new records on backup', timeoutMs: 90_000 });
    await run.stop();
    assert.deepEqual(await backup.endOffsets(s.remote), [130, 130], 'nothing copied twice');
    const again = await backup.readAll(s.remote);
    for (let p = 0; p < PARTITIONS; p++) assert.equal(again.get(p)![127]!.value?.toString(), `later p${p} #127`);
  });

  test('translated offsets: backup records since the failover appended on primary, G translated back; it reads what never reached backup, and skips nothing', async () => {
    const s = await failedOver('fb-moved', {}, (t) => `primary.${t}`);
    const onBackup = await groupOffsets('backup', s.group);
    const result = await runCli(['failback', s.pipeline.file, '--group', s.group, '--quiet', '1000', '--json'], 300_000);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as FailbackReport;
    assert.deepEqual(
      report.partitions.map((p) => [p.partition, p.preserved, p.failoverPoint, p.unmirrored, p.copyBack, p.action]),
      [
        [0, false, 100, 15, 25, 'copy-back'],
        [1, false, 100, 15, 25, 'copy-back'],
      ],
    );
    assert.match(report.warnings.join('\n'), /30 record\(s\) primary received before the failover never reached backup/);

    // primary: its own 115 per partition, then backup's 25, in order.
    const onP = await primary.readAll(s.topic);
    for (let p = 0; p < PARTITIONS; p++) {
      const values = onP.get(p)!.map((r) => r.value!.toString());
      assert.equal(values.length, 140);
      assert.deepEqual(
        values.slice(115),
        Array.from({ length: 25 }, (_, i) => `after p${p} #${100 + i}`),
      );
    }
    // G on primary: starts at the records that never reached backup, then reads again those of backup it read there; none skipped.
    const back = report.groups[0]!.offsets;
    assert.deepEqual(
      back.map((o) => [o.partition, o.offset, o.how]),
      [
        [0, 100, 'unmirrored-first'],
        [1, 100, 'unmirrored-first'],
      ],
    );
    const resumed = await java.consume({ bootstrap: clusters.primary, group: s.group, topics: [s.topic], reset: 'none', toEnd: true, timeoutMs: 60_000 });
    for (let p = 0; p < PARTITIONS; p++) {
      const read = new Set(resumed.records.filter((r) => r.partition === p).map((r) => r.value));
      for (let n = 100; n < 115; n++) assert.ok(read.has(`unmirrored p${p} #${n}`), `partition ${p}: the record ${n} that never reached backup is read`);
      const readOnBackup = onBackup.find((o) => o.partition === p)!.offset;
      for (let n = Math.max(100, readOnBackup); n < 125; n++)
        assert.ok(read.has(`after p${p} #${n}`), `partition ${p}: backup's record ${n}, not read there, is read`);
    }

    // The flow, started again, copies only what primary gets from now on (not backup's records back to it).
    const endsBefore = await backup.endOffsets(s.remote);
    await primary.produce(s.topic, records('later', 5, 140));
    const run = await startPipeline(s.pipeline.file);
    await run.until(async () => (await backup.endOffsets(s.remote)).every((e, p) => e >= endsBefore[p]! + 5), {
      what: 'the new records on backup',
      timeoutMs: 90_000,
    });
    await run.stop();
    assert.deepEqual(
      await backup.endOffsets(s.remote),
      endsBefore.map((e) => e + 5),
      'only the 5 new records per partition',
    );
  });
});
