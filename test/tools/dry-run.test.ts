/**
 * `--dry-run` on every command that changes a cluster, against clusters of this file's own (so no
 * other test writes to them meanwhile): each prints what it would do, in order, and afterwards
 * both clusters are exactly as before — every topic with its partitions' log start and end, every
 * consumer group with committed offsets and those offsets. Also `local up` and `local down`,
 * whose clusters are processes and folders.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from '#rxjs';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { MirrorClient } from '../../src/pipeline/tools';
import { DefaultReplicationPolicy } from '../../src/policy';
import { silentLogger } from '../../src/core/ports/logger';
import type { KafkaClients } from '../../src/core/ports/kafka-clients';
import type { TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { runCli, startPipeline, writePipeline } from '../support/pipeline-harness';

const clusters = ownClusters(['primary', 'backup'] as const);
let clients: KafkaClients | undefined;
const kafka = (): KafkaClients =>
  (clients ??= createKafkaClients(
    [plaintextConnection('primary', clusters.bootstrap('primary')), plaintextConnection('backup', clusters.bootstrap('backup'))],
    silentLogger,
    'mirrorflow-dry-run-test',
  ));
after(() => clients?.close());

/**
 * Everything a command could change on a cluster, by name (so a difference names its topic or
 * group): topics with their partitions' log start and end, groups with their committed offsets.
 * The broker's own topics (`__consumer_offsets`) are left out: any reader joining a throwaway
 * group writes its membership there.
 */
async function fingerprint(cluster: 'primary' | 'backup'): Promise<unknown> {
  const admin = kafka().admin(cluster);
  const topics: Record<string, unknown> = {};
  for (const t of [...(await firstValueFrom(admin.listTopics()))].filter((t) => !t.name.startsWith('__')).sort((a, b) => a.name.localeCompare(b.name))) {
    topics[t.name] = {
      partitions: t.partitions,
      logs: (await firstValueFrom(admin.partitionOffsets(t.name))).map((p) => `${p.partition}: ${p.earliest}..${p.latest}`),
    };
  }
  const groups: Record<string, unknown> = {};
  for (const g of [...(await firstValueFrom(admin.listGroups()))].sort()) {
    const offsets = await firstValueFrom(admin.fetchGroupOffsets(g));
    // Readers of the tools join throwaway groups that commit nothing; the broker forgets them.
    if (offsets.length > 0) groups[g] = [...offsets].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }
  return { topics, groups };
}

function records(count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${i}`),
    value: Buffer.from(`v${i}`),
    headers: [],
    timestamp: Date.now(),
  }));
}

describe('--dry-run', () => {
  test('failover, drill, failback, migrate cutover and finish, run: each prints its steps in order and changes nothing on either cluster', async () => {
    const topic = uniqueName('dry');
    const group = uniqueName('dry-app');
    const primary = clusters.kit('primary');
    await primary.createTopic(topic, 2);
    await primary.produce(topic, records(100));
    // The clusters are this file's own and fresh: the group coordinator may still be loading.
    await waitFor(
      async () => {
        await firstValueFrom(
          kafka()
            .admin('primary')
            .commitGroupOffsets(group, [
              { topic, partition: 0, offset: 30, metadata: '' },
              { topic, partition: 1, offset: 20, metadata: '' },
            ]),
        );
        return true;
      },
      { what: `the first commit of ${group}`, timeoutMs: 60_000, intervalMs: 500 },
    );
    const { file } = await writePipeline({
      sharedClusters: false,
      clusters: clusters.bootstrapServers(),
      flows: [{ topics: [topic], checkpoints: { interval_ms: 500, refresh_groups_interval_ms: 1000, groups: [group] } }],
    });
    const run = await startPipeline(file);
    const mirror = new MirrorClient({ admin: kafka().admin('backup'), reader: kafka().reader('backup'), policy: new DefaultReplicationPolicy() });
    await run.until(async () => (await mirror.remoteConsumerOffsets(group, 'primary').catch(() => [])).length === 2, {
      what: `checkpoints of ${group}`,
      timeoutMs: 90_000,
    });
    await run.stop();

    const before = { primary: await fingerprint('primary'), backup: await fingerprint('backup') };
    const commands: [string[], RegExp][] = [
      [
        ['failover', file, '--group', group, '--dry-run'],
        /^Would, in order:\n {2}1\. check: on backup: group .* still has no active members[^\n]*\n {2}2\. on backup: commit 2 offset\(s\) of group/m,
      ],
      [['drill', file, '--group', group, '--dry-run'], /^Would, in order:\n(?: {2}\d\. .*\n)+Dry run: nothing was changed\./m],
      [['failback', file, '--group', group, '--dry-run', '--quiet', '500'], /^Would, in order:\n(?: {2}\d\. .*\n)+Dry run: nothing was changed\./m],
      [
        ['migrate', file, 'cutover', '--group', group, '--dry-run'],
        /create topic mm2-migration\.primary\.internal .*\n.*record in mm2-migration\.primary\.internal that the flow's group offset sync stops/,
      ],
      [['migrate', file, 'finish', '--dry-run', '--quiet', '500'], /record in mm2-migration\.primary\.internal that the flow stops for good/],
      [['run', file, '--dry-run'], /^Dry run: nothing was changed\.$/m],
    ];
    for (const [args, steps] of commands) {
      const result = await runCli(args, 180_000);
      assert.equal(result.code, 0, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, steps, args.join(' '));
      assert.deepEqual({ primary: await fingerprint('primary'), backup: await fingerprint('backup') }, before, `${args.join(' ')} changed nothing`);
    }
  });

  test('local up and local down: say what they would start and stop, and leave the clusters as they are', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mirrorflow-dry-local-'));
    try {
      const up = await runCli(['local', 'up', 'drytest', '--state-dir', stateDir, '--dry-run']);
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stdout, /^ {2}1\. on drytest: start a Kafka node \(broker and controller\) of Kafka [\d.]+ on free loopback ports/m);
      const none = await runCli(['local', 'status', '--state-dir', stateDir, '--json']);
      assert.deepEqual(JSON.parse(none.stdout), [], 'nothing started');

      assert.equal((await runCli(['local', 'up', 'drytest', '--state-dir', stateDir], 180_000)).code, 0);
      const down = await runCli(['local', 'down', '--state-dir', stateDir, '--dry-run']);
      assert.equal(down.code, 0, down.stderr);
      assert.match(
        down.stdout,
        /^ {2}1\. on drytest: stop node 1 \(pid \d+, 127\.0\.0\.1:\d+\)\n {2}2\. on drytest: delete .*drytest: its topics, records and consumer groups are gone for good$/m,
      );
      const status = JSON.parse((await runCli(['local', 'status', '--state-dir', stateDir, '--json'])).stdout) as { alias: string; answering: boolean }[];
      assert.deepEqual(
        status.map((c) => [c.alias, c.answering]),
        [['drytest', true]],
        'still running',
      );
    } finally {
      await runCli(['local', 'down', '--state-dir', stateDir], 120_000);
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
