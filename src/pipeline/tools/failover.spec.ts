import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER, Observable, concat, of, throwError } from '#rxjs';
import { ClusterUnavailableError } from '../../core/errors';
import type {
  ClusterAdmin,
  GroupOffset,
  GroupState,
  ShareGroupStartOffset,
  TopicConfigChange,
  TopicConfigEntry,
  TopicConfigResult,
} from '../../core/ports/cluster-admin';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import { silentLogger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord, DecodedSourceBatch } from '../../core/record';
import { encodeCheckpointKey, encodeCheckpointValue, encodeOffsetSyncKey, encodeOffsetSyncValue } from '../../formats';
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
  /** The records of the offset-syncs topic on this cluster. */
  offsetSyncs?: KafkaRecord[];
  unreachable?: boolean;
  commits?: GroupOffset[][];
  /** A state the group takes once offsets were planned (for the race check). */
  stateOnCommit?: GroupState;
  /** Share groups by id: their state, members and start offsets. */
  shareGroups?: Record<string, { state: GroupState; members: number; offsets: ShareGroupStartOffset[] }>;
  /** Start offsets set on share groups, per call. */
  shareAlters?: ShareGroupStartOffset[][];
  /** Members a share group has once its offsets were planned (for the race check). */
  shareMembersOnAlter?: number;
  /** Group configs by group id, and the changes made to them. */
  groupConfigs?: Record<string, TopicConfigEntry[]>;
  groupConfigAlters?: [string, readonly TopicConfigChange[]][];
  /** The broker refuses every group's config changes, for this reason. */
  groupConfigsRefused?: string;
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
    let shareDescribes = 0;
    const made = {
      cluster: name,
      listTopics: () => of(Object.entries(c.topics ?? {}).map(([n, partitions]) => ({ name: n, partitions }))),
      describeTopics: (names: readonly string[]) =>
        of(Object.entries(c.topics ?? {}).flatMap(([n, partitions]) => (names.includes(n) ? [{ name: n, partitions }] : []))),
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
      describeShareGroups: (ids: readonly string[]) => {
        shareDescribes++;
        return of(
          new Map(
            ids.map((id) => {
              const g = c.shareGroups?.[id];
              const members = shareDescribes > 1 && c.shareMembersOnAlter !== undefined ? c.shareMembersOnAlter : (g?.members ?? 0);
              return [id, { state: members > 0 ? 'stable' : (g?.state ?? 'dead'), members }];
            }),
          ),
        );
      },
      fetchShareGroupOffsets: (id: string) => of(c.shareGroups?.[id]?.offsets ?? []),
      describeGroupConfigs: (ids: readonly string[]) => of(new Map(ids.map((id) => [id, c.groupConfigs?.[id] ?? []]))),
      alterGroupConfigs: (changes: ReadonlyMap<string, readonly TopicConfigChange[]>) =>
        new Observable<ReadonlyMap<string, TopicConfigResult>>((s) => {
          const results = new Map<string, TopicConfigResult>();
          for (const [group, list] of changes) {
            if (c.groupConfigsRefused !== undefined) {
              results.set(group, { ok: false, error: 'INVALID_CONFIG', message: c.groupConfigsRefused, retriable: false });
              continue;
            }
            (c.groupConfigAlters ??= []).push([group, list]);
            results.set(group, { ok: true });
          }
          s.next(results);
          s.complete();
        }),
      alterShareGroupOffsets: (id: string, offsets: readonly ShareGroupStartOffset[]) =>
        new Observable<void>((s) => {
          (c.shareAlters ??= []).push([...offsets]);
          const g = (c.shareGroups ??= {})[id] ?? { state: 'empty', members: 0, offsets: [] };
          const merged = new Map(g.offsets.map((o) => [`${o.topic}-${o.partition}`, o]));
          for (const o of offsets) merged.set(`${o.topic}-${o.partition}`, o);
          c.shareGroups[id] = { ...g, state: 'empty', offsets: [...merged.values()] };
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
      // The offset-syncs topic of the source: its records, then caught up.
      follow: (topic: string) => {
        const records = clusters[name]?.offsetSyncs ?? [];
        if (records.length === 0) return concat(of({ type: 'caught-up' as const }), NEVER);
        const batch = { kind: 'records', topic, partition: 0, records, nextOffset: records.length, highWatermark: records.length, bytes: 0 };
        return concat(of({ type: 'records' as const, batch }, { type: 'caught-up' as const }), NEVER);
      },
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

function offsetSync(offset: number, topic: string, partition: number, upstream: number, downstream: number): KafkaRecord {
  return {
    topic: 'mm2-offset-syncs.backup.internal',
    partition: 0,
    offset,
    timestamp: 1_700_000_000_000,
    key: encodeOffsetSyncKey({ topic, partition }),
    value: encodeOffsetSyncValue({ topicPartition: { topic, partition }, upstreamOffset: upstream, downstreamOffset: downstream }),
    headers: [],
  };
}

const W = 'workers';

/** A share group stopped on the source, with start offsets on three partitions of a replicated topic; no checkpoints anywhere. */
function shareClusters(): Record<string, FakeCluster> {
  return {
    primary: {
      topics: { jobs: 3, 'mm2-offset-syncs.backup.internal': 1 },
      shareGroups: {
        [W]: {
          state: 'empty',
          members: 0,
          offsets: [
            { topic: 'jobs', partition: 0, startOffset: 40 },
            { topic: 'jobs', partition: 1, startOffset: 10 },
            { topic: 'jobs', partition: 2, startOffset: 4 },
          ],
        },
      },
      // jobs-0: exactly at a sync; jobs-1: past the last one (one after its downstream offset); jobs-2: none.
      offsetSyncs: [offsetSync(0, 'jobs', 0, 30, 28), offsetSync(1, 'jobs', 0, 40, 39), offsetSync(2, 'jobs', 1, 5, 5)],
    },
    backup: { topics: { 'primary.jobs': 3, 'primary.checkpoints.internal': 1 }, checkpoints: [] },
  };
}

const groupConfig = (name: string, value: string): TopicConfigEntry => ({ name, value, isDefault: false, readOnly: false, sensitive: false, source: 'group' });

describe('failover of a share group', () => {
  it("sets the target share group's start offsets from the source's, translated through the offset syncs, and its share configs", async () => {
    const clusters = shareClusters();
    clusters['primary']!.groupConfigs = { [W]: [groupConfig('share.auto.offset.reset', 'earliest')] };
    const t = await tools(clusters);
    const plan = await planFailover(t, { group: W, force: false });
    assert.equal(plan.groupType, 'share');
    assert.equal(plan.refusal, undefined);
    assert.deepEqual(
      plan.partitions.map((p) => [p.topic, p.partition, p.sourceOffset, p.translatedOffset, p.targetOffset, p.action]),
      [
        ['primary.jobs', 0, 40, 39, undefined, 'commit'],
        ['primary.jobs', 1, 10, 6, undefined, 'commit'],
        ['primary.jobs', 2, 4, undefined, undefined, 'not-translated'],
      ],
    );
    assert.ok(plan.warnings.some((w) => /1 partition\(s\) have no offset sync at or before the group's start offset/.test(w)));
    assert.match(plan.steps.map((s) => s.action).join('\n'), /set 2 start offset\(s\) of share group "workers" \(the group is created\)/);
    assert.match(
      plan.steps.map((s) => s.action).join('\n'),
      /set the configs of share group "workers" its source group has: share\.auto\.offset\.reset=earliest/,
    );
    const result = await executeFailover(t, plan);
    assert.deepEqual(clusters['backup']!.shareAlters, [
      [
        { topic: 'primary.jobs', partition: 0, startOffset: 39 },
        { topic: 'primary.jobs', partition: 1, startOffset: 6 },
      ],
    ]);
    assert.equal(result.committed.length, 2);
    assert.equal(clusters['backup']!.commits, undefined, 'no consumer group offsets are committed');
    assert.deepEqual(clusters['backup']!.groupConfigAlters, [[W, [{ op: 'set', name: 'share.auto.offset.reset', value: 'earliest' }]]]);
  });

  it("refuses, writing no start offset, when the target refuses the group's configs", async () => {
    const clusters = shareClusters();
    clusters['primary']!.groupConfigs = { [W]: [groupConfig('share.auto.offset.reset', 'earliest')] };
    clusters['backup']!.groupConfigsRefused = 'share.auto.offset.reset must be latest, earliest or by_duration';
    const t = await tools(clusters);
    await assert.rejects(
      executeFailover(t, await planFailover(t, { group: W, force: false })),
      /Setting the configs of share group "workers" on cluster "backup" failed: INVALID_CONFIG: share\.auto\.offset\.reset must be/,
    );
    assert.equal(clusters['backup']!.shareAlters, undefined);
  });

  it('keeps a target start offset that is ahead unless forced', async () => {
    const clusters = shareClusters();
    clusters['backup']!.shareGroups = { [W]: { state: 'empty', members: 0, offsets: [{ topic: 'primary.jobs', partition: 1, startOffset: 8 }] } };
    const kept = await planFailover(await tools(clusters), { group: W, force: false });
    assert.deepEqual(
      kept.partitions.filter((p) => p.partition === 1).map((p) => [p.translatedOffset, p.targetOffset, p.action]),
      [[6, 8, 'keep-target']],
    );
    const forced = await planFailover(await tools(clusters), { group: W, force: true });
    assert.equal(forced.partitions.find((p) => p.partition === 1)?.action, 'rewind');
  });

  it('refuses a share group with members on the target, and one that got a member after planning', async () => {
    const active = shareClusters();
    active['backup']!.shareGroups = { [W]: { state: 'stable', members: 2, offsets: [] } };
    const plan = await planFailover(await tools(active), { group: W, force: false });
    assert.match(plan.refusal ?? '', /Share group "workers" has 2 active member\(s\) on cluster "backup" \(state stable\)/);
    assert.deepEqual(plan.steps, []);

    const racing = shareClusters();
    racing['backup']!.shareMembersOnAlter = 1;
    const t = await tools(racing);
    await assert.rejects(executeFailover(t, await planFailover(t, { group: W, force: false })), /became so while failing over; nothing was written/);
    assert.equal(racing['backup']!.shareAlters, undefined);
  });

  it('keeps what the flow last synced when the source is down, and refuses when the target has nothing', async () => {
    const synced = shareClusters();
    synced['primary']!.unreachable = true;
    synced['backup']!.shareGroups = { [W]: { state: 'empty', members: 0, offsets: [{ topic: 'primary.jobs', partition: 0, startOffset: 37 }] } };
    const t = await tools(synced);
    const plan = await planFailover(t, { group: W, force: false });
    assert.equal(plan.refusal, undefined);
    assert.deepEqual(
      plan.partitions.map((p) => [p.topic, p.partition, p.targetOffset, p.action]),
      [['primary.jobs', 0, 37, 'unchanged']],
    );
    assert.ok(
      plan.warnings.some((w) => /Cluster "primary" could not be read .* the start offsets on "backup" are those the flow's group offset sync set last/.test(w)),
    );
    assert.deepEqual((await executeFailover(t, plan)).committed, []);

    const nothing = shareClusters();
    nothing['primary']!.unreachable = true;
    await assert.rejects(planFailover(await tools(nothing), { group: W, force: false }), (error: unknown) => {
      assert.ok(error instanceof FailoverRefusedError);
      assert.match(
        error.message,
        /If "workers" is a share group: "backup" has no share group of that name, and cluster "primary", where its start offsets are, cannot be reached\./,
      );
      return true;
    });
  });
});
