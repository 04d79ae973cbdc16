import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER, Observable, of, throwError } from '#rxjs';
import { ClusterUnavailableError } from '../../core/errors';
import type { ClusterAdmin, GroupOffset, GroupState } from '../../core/ports/cluster-admin';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import { silentLogger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord, DecodedSourceBatch } from '../../core/record';
import { encodeCheckpointKey, encodeCheckpointValue } from '../../formats';
import { decideAction, executeFailover, planFailover } from './failover';
import { PipelineTools } from './pipeline-tools';
import { FailoverRefusedError, ToolUsageError } from './tool-errors';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-failover-spec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function pipelineFile(flows: string): string {
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `name: spec\nclusters:\n  primary: { bootstrap_servers: 127.0.0.1:1 }\n  backup: { bootstrap_servers: 127.0.0.1:2 }\n  dr: { bootstrap_servers: 127.0.0.1:3 }\nflows:\n${flows}`,
  );
  return file;
}

const ONE_FLOW = pipelineFile('  - { source: primary, target: backup }\n');

interface FakeCluster {
  state?: GroupState;
  offsets?: GroupOffset[];
  topics?: Record<string, number>;
  checkpoints?: KafkaRecord[];
  unreachable?: boolean;
  commits?: GroupOffset[][];
  /** A state the group takes once offsets were planned (for the race check). */
  stateOnCommit?: GroupState;
}

function checkpoint(offset: number, group: string, topic: string, partition: number, upstream: number, downstream: number, metadata = ''): KafkaRecord {
  return {
    topic: 'primary.checkpoints.internal',
    partition: 0,
    offset,
    timestamp: 1_700_000_000_000,
    key: encodeCheckpointKey({ consumerGroupId: group, topicPartition: { topic, partition } }),
    value: encodeCheckpointValue({ upstreamOffset: upstream, downstreamOffset: downstream, metadata }),
    headers: [],
  };
}

function fakeClients(clusters: Record<string, FakeCluster>): KafkaClients {
  const admins = new Map<string, ClusterAdmin>();
  const admin = (name: string): ClusterAdmin => {
    const existing = admins.get(name);
    if (existing) return existing;
    const c = clusters[name] ?? {};
    let describes = 0;
    const made = {
      cluster: name,
      listTopics: () => of(Object.entries(c.topics ?? {}).map(([n, partitions]) => ({ name: n, partitions }))),
      describeGroups: (ids: readonly string[]) => {
        describes++;
        const state = describes > 1 && c.stateOnCommit ? c.stateOnCommit : (c.state ?? 'dead');
        return of(new Map(ids.map((id) => [id, state])));
      },
      fetchGroupOffsets: () => of(c.offsets ?? []),
      commitGroupOffsets: (_group: string, offsets: readonly GroupOffset[]) =>
        new Observable<void>((s) => {
          (c.commits ??= []).push([...offsets]);
          const merged = new Map((c.offsets ?? []).map((o) => [`${o.topic}-${o.partition}`, o]));
          for (const o of offsets) merged.set(`${o.topic}-${o.partition}`, o);
          c.offsets = [...merged.values()];
          s.next();
          s.complete();
        }),
    } as unknown as ClusterAdmin;
    admins.set(name, made);
    return made;
  };
  const reader = (name: string): TopicReader =>
    ({
      cluster: name,
      readToEnd: (): Observable<DecodedSourceBatch> => {
        const records = clusters[name]?.checkpoints ?? [];
        return of({ kind: 'records', topic: 'x', partition: 0, records, nextOffset: records.length, highWatermark: records.length, bytes: 0 });
      },
      follow: () => NEVER,
    }) as unknown as TopicReader;
  return {
    admin,
    reader,
    writer: () => {
      throw new Error('not used');
    },
    source: () => {
      throw new Error('not used');
    },
    checkReachable: (name: string) =>
      clusters[name]?.unreachable ? Promise.reject(new ClusterUnavailableError(name, 'connection refused')) : Promise.resolve(),
    close: () => Promise.resolve(),
  } as unknown as KafkaClients;
}

async function tools(clusters: Record<string, FakeCluster>, file = ONE_FLOW): Promise<PipelineTools> {
  return PipelineTools.open({ file, logger: silentLogger, clients: fakeClients(clusters) });
}

const G = 'orders-app';

function standardClusters(): Record<string, FakeCluster> {
  return {
    primary: {
      state: 'empty',
      offsets: [
        { topic: 'orders', partition: 0, offset: 120, metadata: '' },
        { topic: 'orders', partition: 1, offset: 40, metadata: '' },
        { topic: 'orders', partition: 2, offset: 7, metadata: '' },
        { topic: 'unreplicated', partition: 0, offset: 3, metadata: '' },
      ],
    },
    backup: {
      state: 'empty',
      topics: { 'primary.orders': 3, 'primary.checkpoints.internal': 1 },
      offsets: [
        { topic: 'primary.orders', partition: 1, offset: 50, metadata: '' },
        { topic: 'primary.orders', partition: 2, offset: 7, metadata: '' },
      ],
      checkpoints: [
        checkpoint(0, G, 'primary.orders', 0, 90, 88),
        checkpoint(1, G, 'primary.orders', 0, 100, 99, 'm0'),
        checkpoint(2, G, 'primary.orders', 1, 40, 39),
        checkpoint(3, G, 'primary.orders', 2, 7, 7),
        checkpoint(4, G, 'primary.orders', 5, 1, 1),
        checkpoint(5, 'someone-else', 'primary.orders', 0, 1, 1),
      ],
    },
  };
}

describe('decideAction', () => {
  it('moves forward, never backwards unless forced', () => {
    assert.equal(decideAction(10, undefined, false), 'commit');
    assert.equal(decideAction(10, 3, false), 'commit');
    assert.equal(decideAction(10, 10, false), 'unchanged');
    assert.equal(decideAction(10, 12, false), 'keep-target');
    assert.equal(decideAction(10, 12, true), 'rewind');
  });
});

describe('planFailover', () => {
  it('plans per partition from the newest checkpoints, the target offsets and the source offsets', async () => {
    const plan = await planFailover(await tools(standardClusters()), { group: G, force: false });
    assert.equal(plan.refusal, undefined);
    assert.equal(plan.checkpointsTopic, 'primary.checkpoints.internal');
    assert.deepEqual(
      plan.partitions.map((p) => [p.topic, p.partition, p.sourceOffset, p.checkpointOffset, p.translatedOffset, p.targetOffset, p.action]),
      [
        ['primary.orders', 0, 120, 100, 99, undefined, 'commit'],
        ['primary.orders', 1, 40, 40, 39, 50, 'keep-target'],
        ['primary.orders', 2, 7, 7, 7, 7, 'unchanged'],
        ['primary.orders', 5, undefined, 1, 1, undefined, 'missing-partition'],
        ['primary.unreplicated', 0, 3, undefined, undefined, undefined, 'no-checkpoint'],
      ],
    );
    assert.equal(plan.warnings.length, 3);
    assert.match(plan.warnings[0]!, /re-read up to 20 record\(s\)/);
    assert.match(plan.warnings[1]!, /1 checkpoint\(s\) name partitions that "backup" does not have/);
    assert.match(plan.warnings[2]!, /1 partition\(s\) with offsets on "primary" have no checkpoint/);
  });

  it('rewinds a target offset that is ahead only when forced', async () => {
    const plan = await planFailover(await tools(standardClusters()), { group: G, force: true });
    assert.equal(plan.partitions.find((p) => p.partition === 1)?.action, 'rewind');
  });

  it('refuses a group with active members on the target, saying where', async () => {
    const clusters = standardClusters();
    clusters['backup']!.state = 'stable';
    const t = await tools(clusters);
    const plan = await planFailover(t, { group: G, force: false });
    assert.match(plan.refusal ?? '', /Group "orders-app" has active members on cluster "backup" \(state stable\)/);
    await assert.rejects(executeFailover(t, plan), FailoverRefusedError);
    assert.equal(clusters['backup']!.commits, undefined);
  });

  it('warns, without refusing, when the group is still active on the source', async () => {
    const clusters = standardClusters();
    clusters['primary']!.state = 'stable';
    const plan = await planFailover(await tools(clusters), { group: G, force: false });
    assert.equal(plan.refusal, undefined);
    assert.match(plan.warnings[0]!, /still has active members on "primary" \(state stable\)/);
  });

  it('goes ahead on the checkpoints alone when the source is down', async () => {
    const clusters = standardClusters();
    clusters['primary']!.unreachable = true;
    const plan = await planFailover(await tools(clusters), { group: G, force: false });
    assert.equal(plan.sourceState, undefined);
    assert.match(plan.warnings[0]!, /Cluster "primary" could not be read/);
    assert.deepEqual(
      plan.partitions.map((p) => p.sourceOffset),
      [undefined, undefined, undefined, undefined],
    );
  });

  it('refuses when the group has no checkpoints yet', async () => {
    const clusters = standardClusters();
    clusters['backup']!.checkpoints = [];
    await assert.rejects(planFailover(await tools(clusters), { group: G, force: false }), (error: unknown) => {
      assert.ok(error instanceof FailoverRefusedError);
      assert.match(error.message, /No checkpoints for group "orders-app" in primary\.checkpoints\.internal on cluster "backup"/);
      return true;
    });
  });

  it('needs --from/--to when several flows could be meant, and names unknown clusters', async () => {
    const file = pipelineFile('  - { source: primary, target: backup }\n  - { source: primary, target: dr }\n');
    const t = await tools(standardClusters(), file);
    await assert.rejects(planFailover(t, { group: G, force: false }), /several flows \(primary->backup, primary->dr\); say which with --from and --to/);
    await assert.rejects(planFailover(t, { group: G, force: false, to: 'nowhere' }), (error: unknown) => {
      assert.ok(error instanceof ToolUsageError);
      assert.match(error.message, /--to nowhere: the pipeline .* has no cluster "nowhere"; its clusters are backup, dr, primary\./);
      return true;
    });
    await assert.rejects(planFailover(t, { group: G, force: false, from: 'backup', to: 'primary' }), /has no flow backup->primary/);
  });

  it('takes the one enabled flow when a disabled one also matches (an mm2.properties pair kept for heartbeats)', async () => {
    const file = pipelineFile('  - { source: primary, target: backup }\n  - { source: backup, target: primary, enabled: false }\n');
    const t = await tools(standardClusters(), file);
    assert.equal(t.direction({}).flow.name, 'primary->backup');
    assert.equal(t.direction({ from: 'backup' }).flow.name, 'backup->primary');
  });
});

describe('executeFailover', () => {
  it('commits only what moves forward (with the checkpoint metadata) and reads it back', async () => {
    const clusters = standardClusters();
    const t = await tools(clusters);
    const result = await executeFailover(t, await planFailover(t, { group: G, force: false }));
    assert.deepEqual(result.committed, [{ topic: 'primary.orders', partition: 0, offset: 99, metadata: 'm0' }]);
    assert.deepEqual(clusters['backup']!.commits, [[{ topic: 'primary.orders', partition: 0, offset: 99, metadata: 'm0' }]]);
  });

  it('writes nothing when the group became active after planning', async () => {
    const clusters = standardClusters();
    clusters['backup']!.stateOnCommit = 'preparing-rebalance';
    const t = await tools(clusters);
    const plan = await planFailover(t, { group: G, force: false });
    await assert.rejects(executeFailover(t, plan), /became so while failing over; nothing was written/);
    assert.equal(clusters['backup']!.commits, undefined);
  });

  it('reports a commit the broker refused', async () => {
    const clusters = standardClusters();
    const t = await tools(clusters);
    const plan = await planFailover(t, { group: G, force: false });
    const admin = t.admin('backup') as { commitGroupOffsets: unknown };
    admin.commitGroupOffsets = () => throwError(() => new Error('broker said no'));
    await assert.rejects(executeFailover(t, plan), /Committing the offsets of group "orders-app" on cluster "backup" failed: broker said no/);
  });
});
