/**
 * Share groups (KIP-932) across a failover, on the launcher's Kafka 4.3 clusters (share.version=1),
 * with Kafka's KafkaShareConsumer as the application (test/interop/java/ShareGroupConsumer.java):
 *
 * - `workers` reads part of a replicated topic on the source, acknowledging each record it
 *   processed, in two sessions (the second stops half way through the records written since the
 *   first), and stops; mirrorflow runs with `sync_group_offsets` on and
 *   alters the share group `workers` on the target to the translated start offsets (no
 *   checkpoint record: MM2's format has none for share groups); its state is `synced` in
 *   /status, `mirrorflow status` and /metrics;
 * - after the failover (mirrorflow stopped) `workers` starts on the target, where its partitions
 *   have no start offset but the synced ones (share.auto.offset.reset is Kafka's default, latest,
 *   there): it is delivered exactly the records from each synced start offset to the end, so every
 *   record it had not acknowledged on the source, and none of those before the start offset;
 * - `busy` has a live member on the target before mirrorflow starts: it is left alone, its state
 *   `active-on-target` with the reason; once the member is gone, the next sync writes it;
 * - the share configs set on a source group (with kafka-configs.sh) go to the target group: by the
 *   sync, and by failover;
 * - with the flow's group sync off, `mirrorflow failover --group movers` sets the stopped share
 *   group's start offsets on the target itself, translated through the offset syncs (a dry run
 *   first, which writes nothing); the application resumes there exactly from them; with a member
 *   on the target, failover refuses and exits 1.
 *
 * What share groups guarantee: a share-partition start offset is the first record not done with
 * (acknowledged, released or archived); records after it may be done with too, one by one, which
 * no API reads or sets, and Kafka writes the start offset it reports with a partition's next
 * state change. So the target starts at the start offset Kafka reports for the source, translated
 * never ahead of what was copied: records acknowledged after it are delivered again (a share
 * group delivers at least once anyway), and no record not yet acknowledged is skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KafkaKit, TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { httpAddress, runCli, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import { JavaShareConsumers } from '../interop/share-group-consumer';
import { GroupKit } from './checkpoint-kit';
import { alterGroupConfig, groupConfigs } from '../support/kafka-configs';
import type { StatusDocument } from '../../src/telemetry';

let clusters: TestClusters;
let source: KafkaKit;
let target: KafkaKit;
let sourceGroups: GroupKit;
let targetGroups: GroupKit;
sharedClusterKits(
  'mirrorflow-share-sync-',
  (c) => ({ sourceGroups: new GroupKit(c.primary), targetGroups: new GroupKit(c.backup) }),
  (kits) => ({ clusters, primary: source, backup: target, sourceGroups, targetGroups } = kits),
);

let java: JavaShareConsumers;
before(async () => {
  java = await JavaShareConsumers.compile();
});
after(() => java?.dispose());

/** Records per partition: half written before the application's first session, half before its second. */
const COUNTS = [60, 40];

/** Records `from`..`to` (exclusive, as fractions of COUNTS) of each partition; their offsets are their numbers. */
function records(topic: string, from: number, to: number): TestRecord[] {
  return COUNTS.flatMap((count, partition) =>
    Array.from({ length: count * (to - from) }, (_, n) => {
      const i = count * from + n;
      return { partition, key: Buffer.from(`k${i}`), value: Buffer.from(`${topic} p${partition} #${i}`), headers: [], timestamp: Date.now() };
    }),
  );
}

type GroupRow = NonNullable<StatusDocument['flows'][number]['checkpoints']['groupStates']>[number];

describe('share group offset sync', () => {
  test("a share group's start offsets are copied to the target, where its consumers resume after a failover; one with a member there is left alone", async (t) => {
    const p = uniqueName('sharesync');
    const topic = `${p}-jobs`;
    const remote = `primary.${topic}`;
    const workers = `${p}-workers`;
    const busy = `${p}-busy`;
    await source.createTopic(topic, COUNTS.length);

    // The application on the source: a first session reads every partition to its end; more
    // records come, and a second session accepts 20 of them and releases the rest of its last
    // poll (the start offsets Kafka reports then include at least the first session's).
    await source.produce(topic, records(topic, 0, 0.5));
    const first = await java.consume({ bootstrap: clusters.primary, group: workers, topics: [topic], reset: 'earliest', toEnd: true });
    await source.produce(topic, records(topic, 0.5, 1));
    const second = await java.consume({ bootstrap: clusters.primary, group: workers, topics: [topic], max: 20 });
    const accepted = new Set([...first.records, ...second.records].map((r) => `${r.partition}/${r.offset}`));
    assert.equal(accepted.size, 70, 'each record accepted once on the source');
    await java.consume({ bootstrap: clusters.primary, group: busy, topics: [topic], reset: 'earliest', max: 20 });
    const sourceStarts = await sourceGroups.shareStartOffsets(workers);
    const startOf = (partition: number): number => sourceStarts.get(`${topic}-${partition}`) ?? -1;
    t.diagnostic(`${workers} on the source: start offsets ${COUNTS.map((_, partition) => startOf(partition)).join(', ')} of ${COUNTS.join(', ')} records`);
    // Every partition has one (the group read each); one at least shows progress.
    assert.ok(
      COUNTS.every((_, partition) => startOf(partition) >= 0) && COUNTS.some((_, partition) => startOf(partition) > 0),
      `the source reports a start offset of ${workers} on every partition, one past 0: ${JSON.stringify([...sourceStarts])}`,
    );
    for (const [partition] of COUNTS.entries()) {
      for (let offset = 0; offset < startOf(partition); offset++) {
        assert.ok(accepted.has(`${partition}/${offset}`), `record ${partition}/${offset}, before the start offset ${startOf(partition)}, was accepted`);
      }
    }

    // A setting of the group, made as users make it: copied to the target group with its start offsets.
    await alterGroupConfig(clusters.primary, workers, { set: { 'share.isolation.level': 'read_committed' } });
    // `busy` already runs on the target (subscribed to the remote topic, which does not exist yet).
    const member = await java.join({ bootstrap: clusters.backup, group: busy, topics: [remote] });
    let memberStopped = false;

    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${p}-.*`],
          // A sync per record: translation is exact wherever the group sits.
          batching: { forward_batches: false },
          offset_syncs: { lag_max: 0 },
          checkpoints: {
            interval_ms: 500,
            refresh_groups_interval_ms: 1000,
            groups: [`${p}-.*`],
            sync_group_offsets: { enabled: true, interval_ms: 500 },
          },
        },
      ],
    });
    const child = spawnPipeline(file);
    try {
      const base = await httpAddress(child);
      const until = async <T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 90_000): Promise<T> => {
        try {
          return (await waitFor(check, { what, timeoutMs, intervalMs: 500 })) as T;
        } catch (error) {
          throw new Error(`${(error as Error).message}\nmirrorflow stderr:\n${child.stderr().slice(-4000)}`, { cause: error });
        }
      };
      const states = async (): Promise<Map<string, GroupRow>> => {
        const doc = (await (await fetch(`${base}/status`)).json()) as StatusDocument;
        return new Map((doc.flows[0]?.checkpoints.groupStates ?? []).map((g) => [g.group, g]));
      };
      const shown = await until(async () => {
        const s = await states();
        return s.get(workers)?.state === 'synced' && s.get(busy)?.state === 'active-on-target' ? s : undefined;
      }, `${workers} synced and ${busy} active on the target`);
      assert.match(shown.get(workers)!.reason, /^its share group on backup holds the translated start offsets or is further ahead/);
      assert.deepEqual([shown.get(workers)!.partitions, shown.get(workers)!.translated], [COUNTS.length, COUNTS.length]);
      assert.match(
        shown.get(busy)!.reason,
        /^a share group with active members on backup \(state stable\): its start offsets there cannot be altered while they run$/,
      );
      assert.equal(shown.get(busy)!.targetState, 'stable');

      // The same in `mirrorflow status` and as metrics.
      const status = await runCli(['status', base]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(
        status.stdout,
        new RegExp(`^ {2}${workers}\\s+synced\\s+2/2\\s+\\S+ ago\\s+its share group on backup holds the translated start offsets`, 'm'),
      );
      assert.match(status.stdout, new RegExp(`groups not synced because active on backup: .*${busy}`));
      const metrics = await (await fetch(`${base}/metrics`)).text();
      assert.match(metrics, new RegExp(`^mirrorflow_group_sync_state\\{[^}]*group="${workers}"[^}]*state="synced"[^}]*\\} 1$`, 'm'));
      assert.match(metrics, new RegExp(`^mirrorflow_group_sync_state\\{[^}]*group="${busy}"[^}]*state="active-on-target"[^}]*\\} 1$`, 'm'));
      // No checkpoint record for a share group: MM2's format has none.
      assert.deepEqual(await targetGroups.checkpointLog('primary.checkpoints.internal', workers), []);

      assert.equal((await groupConfigs(clusters.backup, workers)).get('share.isolation.level'), 'read_committed', "the group's setting is copied");
      // Exactly the start offsets Kafka reports on the source, translated (the records kept their offsets on the target).
      const targetStarts = await targetGroups.shareStartOffsets(workers);
      assert.deepEqual(
        [...targetStarts].sort(),
        COUNTS.map((_, partition) => [`${remote}-${partition}`, startOf(partition)]),
      );

      // Once its member is gone, `busy` is written like any idle share group.
      await member.stop();
      memberStopped = true;
      await until(async () => (await states()).get(busy)?.state === 'synced', `${busy} synced once its member left`);
      assert.equal(child.stderr().includes('"message":"Share group sync state changed."'), true, 'share groups log their own state changes');
    } finally {
      if (!memberStopped) await member.stop().catch(() => undefined);
      child.kill('SIGTERM');
      assert.equal((await child.exited).code, 0);
    }

    // The failover: the source is gone; `workers` starts on the target (share.auto.offset.reset: Kafka's default, latest).
    const onTarget = await java.consume({ bootstrap: clusters.backup, group: workers, topics: [remote], toEnd: true, timeoutMs: 90_000 });
    for (const [partition, count] of COUNTS.entries()) {
      const delivered = onTarget.records
        .filter((r) => r.partition === partition)
        .map((r) => r.offset)
        .sort((a, b) => a - b);
      const expected = Array.from({ length: count - startOf(partition) }, (_, i) => startOf(partition) + i);
      assert.deepEqual(delivered, expected, `partition ${partition}: from the synced start offset ${startOf(partition)} to the end, once each`);
      for (let offset = 0; offset < count; offset++) {
        if (accepted.has(`${partition}/${offset}`)) continue;
        assert.ok(delivered.includes(offset), `record ${partition}/${offset}, never acknowledged on the source, is delivered on the target`);
      }
    }
    const total = COUNTS.reduce((a, b) => a + b, 0);
    t.diagnostic(`${workers} on the target after the failover: ${onTarget.records.length} of ${total} records delivered`);
    assert.ok(onTarget.records.length < total, `it resumed: ${onTarget.records.length} of ${total} records, not everything again`);
    assert.ok(
      onTarget.records.every((r) => r.value === `${topic} p${r.partition} #${r.offset}`),
      'the records are the source records at their offsets',
    );
  });

  test("`mirrorflow failover` sets a stopped share group's start offsets on the target, through the offset syncs", async (t) => {
    const p = uniqueName('sharefail');
    const topic = `${p}-jobs`;
    const remote = `primary.${topic}`;
    const movers = `${p}-movers`;
    await source.createTopic(topic, COUNTS.length);
    // The application on the source, in two sessions as above (Kafka reports a start offset once a
    // later state change of the partition wrote it): every record of the first half, then 20 more.
    await source.produce(topic, records(topic, 0, 0.5));
    const first = await java.consume({ bootstrap: clusters.primary, group: movers, topics: [topic], reset: 'earliest', toEnd: true });
    await source.produce(topic, records(topic, 0.5, 1));
    const second = await java.consume({ bootstrap: clusters.primary, group: movers, topics: [topic], max: 20 });
    assert.equal(first.records.length + second.records.length, 70);
    await alterGroupConfig(clusters.primary, movers, { set: { 'share.auto.offset.reset': 'earliest' } });
    const sourceStarts = await sourceGroups.shareStartOffsets(movers);
    const startOf = (partition: number): number => sourceStarts.get(`${topic}-${partition}`) ?? -1;
    t.diagnostic(`${movers} on the source: start offsets ${COUNTS.map((_, partition) => startOf(partition)).join(', ')}`);
    assert.ok(
      COUNTS.some((_, partition) => startOf(partition) > 0),
      `the source reports progress: ${JSON.stringify([...sourceStarts])}`,
    );

    // The flow copies the topic with its group sync off, and stops: the target knows nothing of the group.
    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${p}-.*`],
          batching: { forward_batches: false },
          offset_syncs: { lag_max: 0 },
          checkpoints: { sync_group_offsets: { enabled: false } },
        },
      ],
    });
    const child = spawnPipeline(file);
    try {
      await waitFor(
        async () => {
          const ends = await target.endOffsets(remote).catch(() => []);
          return ends.length === COUNTS.length && ends.every((end, partition) => end === COUNTS[partition]);
        },
        { what: `every record on ${remote}`, timeoutMs: 90_000, intervalMs: 500 },
      );
    } finally {
      child.kill('SIGTERM');
      assert.equal((await child.exited).code, 0);
    }
    assert.deepEqual([...(await targetGroups.shareStartOffsets(movers))], [], 'the flow did not sync the group');

    const dry = await runCli(['failover', file, '--group', movers, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`^Dry run: failover of share group "${movers}" from primary to backup$`, 'm'));
    for (const [partition] of COUNTS.entries()) {
      const start = startOf(partition);
      assert.match(dry.stdout, new RegExp(`^${remote.replace(/\./g, '\\.')} +${partition} +${start} +${start} +- +would set ${start}$`, 'm'));
    }
    assert.match(dry.stdout, /set the configs of share group "[^"]+" its source group has: share\.auto\.offset\.reset=earliest/);
    assert.deepEqual([...(await targetGroups.shareStartOffsets(movers))], [], 'a dry run writes nothing');
    assert.equal((await groupConfigs(clusters.backup, movers)).get('share.auto.offset.reset'), undefined, 'nor a config');

    const done = await runCli(['failover', file, '--group', movers]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(
      done.stdout,
      new RegExp(`Set ${COUNTS.length} start offset\\(s\\) for share group "${movers}" on backup\\. Start its share consumers on backup\\.`),
    );
    assert.deepEqual(
      [...(await targetGroups.shareStartOffsets(movers))].sort(),
      COUNTS.map((_, partition) => [`${remote}-${partition}`, startOf(partition)]),
    );
    assert.equal((await groupConfigs(clusters.backup, movers)).get('share.auto.offset.reset'), 'earliest', "the group's setting is copied");

    // The application on the target: exactly the records from each start offset on, once each.
    const after = await java.consume({ bootstrap: clusters.backup, group: movers, topics: [remote], toEnd: true, timeoutMs: 90_000 });
    for (const [partition, count] of COUNTS.entries()) {
      const delivered = after.records
        .filter((r) => r.partition === partition)
        .map((r) => r.offset)
        .sort((a, b) => a - b);
      assert.deepEqual(
        delivered,
        Array.from({ length: count - startOf(partition) }, (_, i) => startOf(partition) + i),
        `partition ${partition}: from ${startOf(partition)} to the end`,
      );
    }

    // With a member on the target, failover refuses and writes nothing.
    const member = await java.join({ bootstrap: clusters.backup, group: movers, topics: [remote] });
    try {
      const refused = await runCli(['failover', file, '--group', movers, '--force']);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stdout, new RegExp(`Refused: nothing was written\\. Share group "${movers}" has 1 active member\\(s\\) on cluster "backup"`));
    } finally {
      await member.stop();
    }
  });
});
