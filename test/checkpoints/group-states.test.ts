/**
 * Every consumer group's sync state, with its reason, as an operator preparing a failover reads
 * it from a real `mirrorflow run`: `/status`, the status page, `mirrorflow status`, `/metrics`,
 * and one log line per change. The groups are Kafka's Java consumer (test/interop/java/
 * GroupConsumer.java) as applications run it:
 *
 * - `app` consumed on the source and stopped: synced; then it fails over by simply starting on
 *   the target, where the synced offset puts it, and reads on from there without missing a record;
 * - `busy` has a member on the target: active-on-target;
 * - `early` committed offset 0 of a partition nothing was written to: no offset sync at or
 *   below it, so not translatable; once records arrive it becomes synced, and the change is logged;
 * - `other` committed only on a topic the flow does not replicate: no-replicated-offsets;
 * - `!…-outsider` is not matched by the groups filter: filtered-out;
 * - `workers` is a share group (KIP-932; Kafka's console share consumer joined it and read
 *   nothing, a new share group starting at the end): never checkpointed as a consumer group with
 *   no offsets; it has no start offset on the replicated topic, so no-replicated-offsets, said of
 *   a share group (share-group-sync.test.ts syncs one that read records).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { httpAddress, runCli, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import { startBrowser, type HeadlessBrowser } from '../support/headless-browser';
import { JavaGroupConsumers } from '../interop/group-consumer';
import { GroupKit } from './checkpoint-kit';
import { runKafkaTool } from '../support/kafka-admin-tools';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import type { StatusDocument } from '../../src/telemetry';

let clusters: TestClusters;
let primary: KafkaKit;
sharedClusterKits('mirrorflow-group-states-', (kits) => ({ clusters, primary } = kits));

let java: JavaGroupConsumers;
let browser: HeadlessBrowser | undefined;
before(async () => {
  java = await JavaGroupConsumers.compile();
});
after(async () => {
  java?.dispose();
  await browser?.close();
});

function records(topic: string, partition: number, count: number, from = 0): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition,
    key: Buffer.from(`k${partition}-${from + i}`),
    value: Buffer.from(`${topic} p${partition} #${from + i}`),
    headers: [],
    timestamp: Date.now(),
  }));
}

/**
 * Kafka's console share consumer (a KafkaShareConsumer) joins `group` on `topic` and leaves: the
 * share group then exists, empty. It reads nothing (a new share group starts at the end), and
 * ends by its timeout; the group's listing is what counts.
 */
async function shareConsumerJoins(bootstrap: string, group: string, topic: string): Promise<void> {
  const args = ['--bootstrap-server', bootstrap, '--topic', topic, '--group', group, '--max-messages', '1', '--timeout-ms', '5000'];
  // Its timeout may end it with a non-zero code: the listing below decides, and names the tool's error if it fails.
  const tool = await runKafkaTool('org.apache.kafka.tools.consumer.ConsoleShareConsumer', args, 90_000).catch((error: unknown) => String(error));
  const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await waitFor(async () => (await admin.listGroups()).groups.some((g) => g.groupId === group && g.protocolType === 'share'), {
      what: `share group ${group} on ${bootstrap} (the console share consumer said: ${tool.slice(-1000)})`,
      timeoutMs: 30_000,
    });
  } finally {
    await admin.disconnect();
  }
}

type GroupRow = NonNullable<StatusDocument['flows'][number]['checkpoints']['groupStates']>[number];

describe("every group's sync state", () => {
  test('synced, active on the target, not translatable yet, no replicated offsets, filtered out: in /status, the page, `status`, /metrics and the log', async () => {
    const p = uniqueName('gstates');
    const orders = `${p}-orders`;
    const remote = `primary.${orders}`;
    const privateTopic = `${p}x-private`;
    const group = (name: string): string => `${p}-${name}`;
    const outsider = `!${p}-outsider`;
    await primary.createTopic(orders, 2);
    await primary.createTopic(privateTopic, 1);
    await primary.produce(orders, records(orders, 0, 60));
    await primary.produce(privateTopic, records(privateTopic, 0, 5));

    // The applications, on the source: each consumes, commits and stops.
    const consume = (g: string, topics: string[], max: number) =>
      java.consume({ bootstrap: clusters.primary, group: g, topics, reset: 'earliest', max, timeoutMs: 60_000 });
    await consume(group('app'), [orders], 40);
    await consume(group('busy'), [orders], 10);
    await consume(group('other'), [privateTopic], 5);
    await consume(outsider, [orders], 5);
    // Committed at 0 on the empty partition 1 only, as a consumer that started before any record.
    const sourceGroups = new GroupKit(clusters.primary);
    try {
      await sourceGroups.commit(group('early'), [{ topic: orders, partition: 1, offset: 0 }]);
    } finally {
      await sourceGroups.close();
    }
    // A share group reading the replicated topic, as Kafka's share consumer makes one.
    await shareConsumerJoins(clusters.primary, group('workers'), orders);
    // `busy` runs on the target before the sync ever writes it.
    const busy = await java.join({ bootstrap: clusters.backup, group: group('busy'), topics: [remote] });

    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${p}-.*`],
          checkpoints: {
            interval_ms: 500,
            refresh_groups_interval_ms: 1000,
            groups: [`${p}-.*`, `!${p}-.*`],
            groups_exclude: [`!${p}-outsider`],
            sync_group_offsets: { enabled: true, interval_ms: 500 },
          },
        },
      ],
    });
    const child = spawnPipeline(file);
    const base = await httpAddress(child);
    /** waitFor, saying on failure what mirrorflow logged until then. */
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
    const expected: Record<string, string> = {
      [group('app')]: 'synced',
      [group('busy')]: 'active-on-target',
      [group('early')]: 'not-translatable',
      [group('other')]: 'no-replicated-offsets',
      [outsider]: 'filtered-out',
      [group('workers')]: 'no-replicated-offsets',
    };
    const first = await until(
      async () => {
        const s = await states();
        return Object.entries(expected).every(([g, state]) => s.get(g)?.state === state) ? s : undefined;
      },
      `the groups' states ${JSON.stringify(expected)}`,
    );
    assert.match(first.get(group('busy'))!.reason, /active members on backup \(state stable\)/);
    assert.equal(first.get(group('busy'))!.targetState, 'stable');
    assert.match(first.get(group('early'))!.reason, /none of its 1 partitions on replicated topics has an offset sync at or below its committed offset/);
    assert.match(first.get(group('other'))!.reason, /all on topics this flow does not replicate/);
    assert.match(first.get(outsider)!.reason, /groups filter/);
    assert.match(first.get(group('workers'))!.reason, /^a share group with no share-partition start offset on primary on a topic this flow replicates/);
    assert.deepEqual([first.get(group('app'))!.partitions, first.get(group('app'))!.translated], [1, 1]);

    // The same in `mirrorflow status`, and as metrics.
    const status = await runCli(['status', base]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`^ {2}${group('app')}\\s+synced\\s+1/1\\s+\\S+ ago\\s+its group on backup holds the translated offsets`, 'm'));
    assert.match(status.stdout, new RegExp(`^ {2}${group('early')}\\s+not-translatable\\s+0/1\\s`, 'm'));
    assert.match(status.stdout, /consumer group\(s\) left out by the groups filter/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, new RegExp(`^mirrorflow_group_sync_state\\{[^}]*group="${group('busy')}"[^}]*state="active-on-target"[^}]*\\} 1$`, 'm'));
    assert.match(metrics, /^mirrorflow_group_sync_groups\{[^}]*state="synced"[^}]*\} [1-9]/m);

    // The status page shows the table, the problems marked.
    browser = await startBrowser();
    const page = await browser.open(`${base}/?interval=250`);
    const rows = await waitFor(
      async () => {
        const shown = await page.evaluate<{ group: string; state: string; alert: boolean }[]>(`[...document.querySelectorAll('[data-row=group]')].map((r) => ({
          group: r.getAttribute('data-group'), state: r.querySelector('[data-field=sync-state]').textContent, alert: r.classList.contains('alert') }))`);
        return shown.length >= 5 ? shown : undefined;
      },
      { what: 'the group rows on the status page', timeoutMs: 30_000 },
    );
    const byGroup = new Map(rows.map((r) => [r.group, r]));
    assert.equal(byGroup.get(group('app'))?.state, 'synced');
    assert.equal(byGroup.get(group('busy'))?.alert, true, 'active-on-target is marked');
    assert.equal(byGroup.get(group('workers'))?.state, 'no-replicated-offsets', 'a share group is listed with the consumer groups');
    assert.equal(byGroup.get(outsider), undefined, 'filtered-out groups are a count, not rows');
    assert.match(await page.evaluate<string>(`document.querySelector('[data-field=groups-filtered-out]')?.textContent ?? ''`), /left out by the groups filter/);

    // Records reach the empty partition: `early` translates now, and the change is logged.
    await primary.produce(orders, records(orders, 1, 10));
    await until(async () => (await states()).get(group('early'))?.state === 'synced', `${group('early')} synced`, 60_000);
    const changes = child
      .stderr()
      .split('\n')
      .filter((l) => l.includes('Consumer group sync state changed.'))
      .map((l) => JSON.parse(l) as { group: string; state: string; previous: string; reason: string });
    const early = changes.filter((c) => c.group === group('early')).map((c) => `${c.previous} -> ${c.state}`);
    assert.equal(early[0], 'none -> not-translatable');
    assert.equal(early.at(-1)?.endsWith('-> synced'), true, early.join(', '));
    assert.equal(new Set(early).size, early.length, 'each change logged once');
    assert.ok(changes.some((c) => c.group === group('busy') && c.state === 'active-on-target' && /state stable/.test(c.reason)));

    // `app` fails over by starting on the target: the synced offset is where it resumes, and it reads on to the end.
    busy.stop().catch(() => undefined);
    const committedOnSource = 40;
    const onTarget = await java.consume({
      bootstrap: clusters.backup,
      group: group('app'),
      topics: [remote],
      reset: 'earliest',
      toEnd: true,
      timeoutMs: 60_000,
    });
    const read0 = onTarget.records.filter((r) => r.partition === 0);
    assert.ok(read0.length > 0, 'it read on');
    const resumedAt = read0[0]!.offset;
    assert.ok(resumedAt > 0 && resumedAt <= committedOnSource, `resumed at ${resumedAt}: past 0, never past the ${committedOnSource} it had consumed`);
    assert.equal(read0.at(-1)!.offset, 59, 'read to the end of the partition');
    const values = new Set(read0.map((r) => r.value));
    for (let i = committedOnSource; i < 60; i++) assert.ok(values.has(`${orders} p0 #${i}`), `record ${i}, not consumed on the source, is read on the target`);

    child.kill('SIGTERM');
    assert.equal((await child.exited).code, 0);
  });
});
