import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, defer, firstValueFrom, of, throwError } from '#rxjs';
import { DefaultReplicationPolicy, DefaultTopicFilter } from '../../policy';
import {
  GroupActiveError,
  type ClusterAdmin,
  type GroupState,
  type ShareGroupDescription,
  type ShareGroupStartOffset,
  type TopicConfigChange,
  type TopicConfigEntry,
  type TopicConfigResult,
} from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { GroupSyncStatus } from './checkpoint-status';
import { checkpointTranslation, type CheckpointTranslation } from './checkpoint-translation';
import { GroupHolds } from './group-holds';
import { GroupSyncStates } from './group-sync-states';
import { OffsetSyncStore } from './offset-sync-store';
import { ShareGroupOffsetSync } from './share-group-offset-sync';
import { planShareGroupSync, translateShareGroup } from './share-group-sync-plan';
import { configEntry as entry } from '../config-entry-fixture';

const at = (topic: string, partition: number, startOffset: number): ShareGroupStartOffset => ({ topic, partition, startOffset });

/**
 * primary's orders-0 and orders-1 as the flow primary -> backup copied them ([upstream, downstream]
 * syncs, oldest first), with the default policy (remote topic `primary.orders`) and a topic filter
 * that leaves `private` out.
 */
function translation(syncs: Readonly<Record<number, readonly [number, number][]>>): { t: CheckpointTranslation; store: OffsetSyncStore } {
  const store = new OffsetSyncStore({ initializationMustReadToEnd: false });
  store.markReadToEnd();
  for (const [partition, list] of Object.entries(syncs))
    for (const [upstreamOffset, downstreamOffset] of list)
      store.handle({ topicPartition: { topic: 'orders', partition: Number(partition) }, upstreamOffset, downstreamOffset });
  const t = checkpointTranslation(
    { source: 'primary', target: 'backup', policy: new DefaultReplicationPolicy(), topicFilter: new DefaultTopicFilter({ exclude: ['private'] }) },
    store,
    new Map(),
  );
  return { t, store };
}

describe('translateShareGroup', () => {
  test('a start offset translates as a committed offset does: never ahead of what was copied, so no record not done with is skipped', () => {
    // Records 0..99 copied to 0..99; then the target got 50 records of its own (or the flow restarted and
    // copied 100..119 twice): upstream 100 is at downstream 150.
    const { t } = translation({
      0: [
        [0, 0],
        [100, 150],
      ],
    });
    const translated = translateShareGroup([at('orders', 0, 100), at('orders', 0, 120), at('orders', 0, 40)], t).translated;
    assert.deepEqual(translated, [
      // Exactly at a sync: the record at 100 is at 150.
      at('primary.orders', 0, 150),
      // Between syncs: one past the sync below; records 101..119 may be copied anywhere from 151 on, so 151 (never 170).
      at('primary.orders', 0, 151),
      // Below the second sync: one past the first.
      at('primary.orders', 0, 1),
    ]);
  });

  test('topics the flow does not replicate are left out; partitions without an offset sync at or below the start offset count but do not translate', () => {
    const { t } = translation({ 0: [[50, 40]] });
    const result = translateShareGroup([at('orders', 0, 60), at('orders', 0, 10), at('orders', 1, 5), at('private', 0, 3)], t);
    assert.deepEqual(result, { partitions: 3, translated: [at('primary.orders', 0, 41)] });
  });
});

describe('planShareGroupSync', () => {
  const idle = { state: 'empty' as GroupState, members: 0 };

  test('a share group the target does not know gets every translated start offset: the alter creates it', () => {
    assert.deepEqual(planShareGroupSync([at('t', 0, 5), at('t', 1, 6)], { state: 'dead', members: 0 }, []), {
      kind: 'alter',
      reason: 'new-group',
      offsets: [at('t', 0, 5), at('t', 1, 6)],
    });
  });

  test('never rewinds: a partition where the target share group is ahead keeps its start offset; behind or missing ones are altered', () => {
    const plan = planShareGroupSync([at('t', 0, 10), at('t', 1, 10), at('t', 2, 10)], idle, [at('t', 0, 12), at('t', 1, 9)]);
    assert.deepEqual(plan, { kind: 'alter', reason: 'idle-group', offsets: [at('t', 1, 10), at('t', 2, 10)] });
    assert.deepEqual(planShareGroupSync([at('t', 0, 10)], idle, [at('t', 0, 10)]), { kind: 'up-to-date' });
    assert.deepEqual(planShareGroupSync([at('t', 0, 10)], idle, [at('t', 0, 11)]), { kind: 'up-to-date' });
  });

  test('a share group with members, or in a state that cannot be judged, is left alone', () => {
    assert.deepEqual(planShareGroupSync([at('t', 0, 10)], { state: 'stable', members: 2 }, []), { kind: 'skip-active', state: 'stable', members: 2 });
    assert.deepEqual(planShareGroupSync([at('t', 0, 10)], { state: 'empty', members: 1 }, []), { kind: 'skip-active', state: 'empty', members: 1 });
    assert.deepEqual(planShareGroupSync([at('t', 0, 10)], { state: 'unknown', members: 0 }, []), { kind: 'skip-active', state: 'unknown', members: 0 });
  });
});

/** The source's and target's share groups in memory. */
class FakeShareAdmins {
  readonly alters: { group: string; offsets: readonly ShareGroupStartOffset[] }[] = [];
  readonly targetReads: string[] = [];
  /** Every DescribeShareGroups on the target, with the groups it named. */
  readonly describeRequests: string[][] = [];
  /** Groups the target does not let us describe: a request naming one fails as a whole. */
  readonly describeLocked = new Set<string>();
  /** Groups whose source read fails. */
  readonly unreadable = new Set<string>();
  /** Groups whose alter the target refuses as active (a member joined after the describe). */
  readonly racing = new Set<string>();
  /** Groups whose alter fails otherwise. */
  readonly broken = new Set<string>();
  /** Group configs per cluster and group; the target's change as they are set. */
  readonly sourceConfigs = new Map<string, TopicConfigEntry[]>();
  readonly targetConfigs = new Map<string, TopicConfigEntry[]>();
  readonly configAlters: { group: string; changes: readonly TopicConfigChange[] }[] = [];
  /** The target refuses every group's config changes. */
  configsRefused = false;
  /** Groups whose configs the source does not let us read: a request naming one fails as a whole, as kafkajs answers. */
  readonly configsLocked = new Set<string>();
  /** Every group config request, per cluster, with the groups it named; and every change to the target, in order. */
  readonly configRequests: { cluster: string; request: 'describe' | 'alter'; groups: string[] }[] = [];
  readonly targetChanges: string[] = [];

  constructor(
    readonly sourceOffsets: Map<string, ShareGroupStartOffset[]>,
    readonly target: Map<string, ShareGroupDescription & { offsets: ShareGroupStartOffset[] }>,
  ) {}

  private describeConfigs(cluster: string, configs: ReadonlyMap<string, TopicConfigEntry[]>, ids: readonly string[]) {
    return defer(() => {
      this.configRequests.push({ cluster, request: 'describe', groups: [...ids] });
      const locked = cluster === 'primary' ? ids.find((id) => this.configsLocked.has(id)) : undefined;
      if (locked !== undefined) return throwError(() => new Error(`GROUP_AUTHORIZATION_FAILED (${locked})`));
      return of(new Map(ids.map((id) => [id, configs.get(id) ?? []])));
    });
  }

  get source(): ClusterAdmin {
    return {
      cluster: 'primary',
      fetchShareGroupOffsets: (group: string): Observable<readonly ShareGroupStartOffset[]> =>
        defer(() => (this.unreadable.has(group) ? throwError(() => new Error('coordinator not available')) : of(this.sourceOffsets.get(group) ?? []))),
      describeGroupConfigs: (ids: readonly string[]) => this.describeConfigs('primary', this.sourceConfigs, ids),
    } as unknown as ClusterAdmin;
  }

  get targetAdmin(): ClusterAdmin {
    return {
      cluster: 'backup',
      describeShareGroups: (ids: readonly string[]) =>
        defer(() => {
          this.describeRequests.push([...ids]);
          const locked = ids.find((id) => this.describeLocked.has(id));
          if (locked !== undefined) return throwError(() => new Error(`GROUP_AUTHORIZATION_FAILED (${locked})`));
          return of(new Map(ids.map((id) => [id, { state: this.target.get(id)?.state ?? 'dead', members: this.target.get(id)?.members ?? 0 }])));
        }),
      fetchShareGroupOffsets: (group: string) =>
        defer(() => {
          this.targetReads.push(group);
          return of(this.target.get(group)?.offsets ?? []);
        }),
      alterShareGroupOffsets: (group: string, offsets: readonly ShareGroupStartOffset[]) =>
        defer(() => {
          if (this.racing.has(group)) return throwError(() => new GroupActiveError('backup', group, {}, 'share group'));
          if (this.broken.has(group)) return throwError(() => new Error(`Group ${group} is not a share group.`));
          this.alters.push({ group, offsets });
          this.targetChanges.push(`start offsets of ${group}`);
          return of(undefined);
        }),
      describeGroupConfigs: (ids: readonly string[]) => this.describeConfigs('backup', this.targetConfigs, ids),
      alterGroupConfigs: (changes: ReadonlyMap<string, readonly TopicConfigChange[]>) =>
        defer(() => {
          this.configRequests.push({ cluster: 'backup', request: 'alter', groups: [...changes.keys()] });
          const results = new Map<string, TopicConfigResult>();
          for (const [group, list] of changes) {
            if (this.configsRefused) {
              results.set(group, { ok: false, error: 'INVALID_CONFIG', message: 'share.auto.offset.reset is invalid', retriable: false });
              continue;
            }
            this.configAlters.push({ group, changes: list });
            this.targetChanges.push(`configs of ${group}`);
            const rest = (this.targetConfigs.get(group) ?? []).filter((e) => !list.some((c) => c.name === e.name));
            this.targetConfigs.set(group, [...rest, ...list.flatMap((c) => (c.op === 'set' ? [entry(c.name, c.value, 'group')] : []))]);
            results.set(group, { ok: true });
          }
          return of(results);
        }),
    } as unknown as ClusterAdmin;
  }
}

function logs(): { logger: Logger; warnings: { message: string; meta: Record<string, unknown> }[] } {
  const warnings: { message: string; meta: Record<string, unknown> }[] = [];
  const logger: Logger = { error() {}, info() {}, debug() {}, warn: (message, meta = {}) => warnings.push({ message, meta }), child: () => logger };
  return { logger, warnings };
}

describe('ShareGroupOffsetSync', () => {
  test('alters new and idle target share groups, never rewinds, skips active ones, and reports every group', async () => {
    const { t, store } = translation({
      0: [
        [0, 0],
        [30, 30],
      ],
      1: [
        [0, 0],
        [10, 10],
      ],
    });
    const admins = new FakeShareAdmins(
      new Map([
        // Read 30 records of partition 0 and 10 of partition 1 on the source, and something of a topic the flow leaves out.
        ['workers', [at('orders', 0, 30), at('orders', 1, 10), at('private', 0, 4)]],
        ['ahead', [at('orders', 0, 30), at('orders', 1, 10)]],
        ['busy', [at('orders', 0, 30)]],
        ['racing', [at('orders', 0, 30)]],
        ['broken', [at('orders', 0, 30)]],
        ['elsewhere', [at('private', 0, 4)]],
        ['unread', [at('orders', 0, 30)]],
      ]),
      new Map([
        // On the target its consumers already got further on partition 0: kept; partition 1 is behind.
        ['ahead', { state: 'empty' as GroupState, members: 0, offsets: [at('primary.orders', 0, 45), at('primary.orders', 1, 3)] }],
        ['busy', { state: 'stable' as GroupState, members: 1, offsets: [] }],
        ['racing', { state: 'empty' as GroupState, members: 0, offsets: [] }],
        ['broken', { state: 'empty' as GroupState, members: 0, offsets: [] }],
      ]),
    );
    admins.racing.add('racing');
    admins.broken.add('broken');
    admins.unreadable.add('unread');
    const status = new GroupSyncStatus();
    const { logger, warnings } = logs();
    const states = new GroupSyncStates({ source: 'primary', target: 'backup', syncEnabled: true, hasCheckpoints: () => false, logger, now: () => 0 });
    const groups = ['workers', 'ahead', 'busy', 'racing', 'broken', 'elsewhere', 'unread'];
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: groups });
    const holds = new GroupHolds(store);
    const sync = new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: admins.targetAdmin, logger, status, states });

    await firstValueFrom(sync.sync(groups, t, holds));

    assert.deepEqual(
      admins.alters.sort((a, b) => a.group.localeCompare(b.group)),
      [
        { group: 'ahead', offsets: [at('primary.orders', 1, 10)] },
        { group: 'workers', offsets: [at('primary.orders', 0, 30), at('primary.orders', 1, 10)] },
      ],
    );
    // A new group's start offsets are not read (it has none); an active one's are not needed.
    assert.deepEqual(admins.targetReads.sort(), ['ahead', 'broken', 'racing']);
    assert.deepEqual(
      states.entries().map((e) => [e.group, e.state]),
      [
        ['ahead', 'synced'],
        ['broken', 'failed'],
        ['busy', 'active-on-target'],
        ['elsewhere', 'no-replicated-offsets'],
        ['racing', 'active-on-target'],
        // Not read this time: what the refresh knew of it stays.
        ['unread', 'not-translatable'],
        ['workers', 'synced'],
      ],
    );
    assert.match(
      states.get('workers')!.reason,
      /its share group on backup holds the translated start offsets or is further ahead \(2 altered by the last sync\)$/,
    );
    assert.match(states.get('broken')!.reason, /Group broken is not a share group\./);
    assert.equal(status.groupsSynced, 2);
    assert.equal(status.offsetsCommitted, 3);
    assert.equal(status.skippedActive, 2);
    assert.equal(status.errors, 1);
    assert.deepEqual([...status.activeGroups], ['busy', 'racing']);
    assert.deepEqual(warnings.map((w) => w.message).sort(), [
      "Could not sync a share group's start offsets to the target.",
      "Reading a share group's start offsets on the source failed; skipped this time.",
      'Share group sync state changed.', // to failed
      'Share groups with active members on the target were not synced.',
    ]);
    // Their start offsets on replicated topics are held in the offset-sync store, as consumer groups' offsets are: orders-0@30 and orders-1@10.
    assert.equal(store.heldOffsets, 2);

    // Next pass: the busy group went idle; the counter keeps the history, the list is the last pass's.
    admins.target.set('busy', { state: 'empty', members: 0, offsets: [] });
    await firstValueFrom(sync.sync(['busy'], t, holds));
    assert.deepEqual(admins.alters.at(-1), { group: 'busy', offsets: [at('primary.orders', 0, 30)] });
    assert.equal(status.skippedActive, 2);
    assert.deepEqual(status.activeGroups, []);
    assert.equal(states.get('busy')?.state, 'synced');
  });

  test('describes the target groups of a pass in one DescribeShareGroups, naming those whose offsets translate', async () => {
    const { t } = translation({ 0: [[0, 0]] });
    const groups = Array.from({ length: 12 }, (_, i) => `g${String(i).padStart(2, '0')}`);
    const admins = new FakeShareAdmins(
      new Map<string, ShareGroupStartOffset[]>([
        ...groups.map((g): [string, ShareGroupStartOffset[]] => [g, [at('orders', 0, 5)]]),
        ['elsewhere', [at('private', 0, 4)]],
      ]),
      new Map([['g03', { state: 'stable' as GroupState, members: 2, offsets: [] }]]),
    );
    const status = new GroupSyncStatus();
    const { logger } = logs();
    const sync = new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: admins.targetAdmin, logger, status });
    await firstValueFrom(sync.sync([...groups, 'elsewhere'], t));
    assert.deepEqual(admins.describeRequests, [groups], 'one request for the pass; "elsewhere" has nothing to set');
    assert.deepEqual(
      admins.alters.map((a) => a.group).sort(),
      groups.filter((g) => g !== 'g03'),
    );
    assert.deepEqual(status.activeShareGroups, ['g03']);

    await firstValueFrom(sync.sync([...groups, 'elsewhere'], t));
    assert.equal(admins.describeRequests.length, 2, 'one more for the next pass');
  });

  test('a DescribeShareGroups refused for one group asks for each alone: the others are synced, that one failed', async () => {
    const { t } = translation({ 0: [[0, 0]] });
    const admins = new FakeShareAdmins(
      new Map([
        ['workers', [at('orders', 0, 5)]],
        ['locked', [at('orders', 0, 5)]],
        ['billing', [at('orders', 0, 7)]],
      ]),
      new Map(),
    );
    admins.describeLocked.add('locked');
    const status = new GroupSyncStatus();
    const { logger } = logs();
    const states = new GroupSyncStates({ source: 'primary', target: 'backup', syncEnabled: true, hasCheckpoints: () => false, logger, now: () => 0 });
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: ['workers', 'locked', 'billing'] });
    await firstValueFrom(
      new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: admins.targetAdmin, logger, status, states }).sync(
        ['workers', 'locked', 'billing'],
        t,
      ),
    );
    assert.deepEqual(admins.describeRequests[0], ['billing', 'locked', 'workers']);
    assert.deepEqual(admins.describeRequests.slice(1).sort(), [['billing'], ['locked'], ['workers']]);
    assert.deepEqual(admins.alters.map((a) => a.group).sort(), ['billing', 'workers']);
    assert.equal(status.errors, 1);
    assert.equal(states.get('locked')?.state, 'failed');
    assert.match(states.get('locked')!.reason, /GROUP_AUTHORIZATION_FAILED/);
  });

  test('a target that cannot be asked makes the group failed, and the pass still completes', async () => {
    const { t } = translation({ 0: [[0, 0]] });
    const admins = new FakeShareAdmins(new Map([['workers', [at('orders', 0, 5)]]]), new Map());
    const target = { ...admins.targetAdmin, describeShareGroups: () => throwError(() => new Error('target down')) } as unknown as ClusterAdmin;
    const status = new GroupSyncStatus();
    const { logger } = logs();
    const states = new GroupSyncStates({ source: 'primary', target: 'backup', syncEnabled: true, hasCheckpoints: () => false, logger, now: () => 0 });
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: ['workers'] });
    await firstValueFrom(new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: target, logger, status, states }).sync(['workers'], t));
    assert.equal(status.errors, 1);
    assert.equal(states.get('workers')?.state, 'failed');
    assert.match(states.get('workers')!.reason, /target down/);
  });

  test('copies the share configs set on the source group to an idle target group, before its start offsets; never to an active one', async () => {
    const { t } = translation({ 0: [[0, 0]] });
    const admins = new FakeShareAdmins(
      new Map([
        ['workers', [at('orders', 0, 5)]],
        ['busy', [at('orders', 0, 5)]],
      ]),
      new Map([['busy', { state: 'stable', members: 1, offsets: [] }]]),
    );
    admins.sourceConfigs.set('workers', [
      entry('share.auto.offset.reset', 'earliest', 'group'),
      entry('share.isolation.level', 'read_committed', 'group'),
      entry('share.record.lock.duration.ms', '30000', 'default'),
      entry('consumer.session.timeout.ms', '45000', 'group'),
    ]);
    admins.targetConfigs.set('workers', [entry('share.isolation.level', 'read_committed', 'group')]);
    admins.sourceConfigs.set('busy', [entry('share.auto.offset.reset', 'earliest', 'group')]);
    const { logger } = logs();
    const sync = new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: admins.targetAdmin, logger, status: new GroupSyncStatus() });
    await firstValueFrom(sync.sync(['busy', 'workers'], t));
    // Only what is set on the source group, only share configs, only where the target differs; nothing for the active group.
    assert.deepEqual(admins.configAlters, [{ group: 'workers', changes: [{ op: 'set', name: 'share.auto.offset.reset', value: 'earliest' }] }]);
    assert.deepEqual(
      admins.alters.map((a) => a.group),
      ['workers'],
    );

    // Refused configs are logged; the start offsets are synced all the same.
    const refused = new FakeShareAdmins(new Map([['workers', [at('orders', 0, 5)]]]), new Map());
    refused.sourceConfigs.set('workers', [entry('share.auto.offset.reset', 'earliest', 'group')]);
    refused.configsRefused = true;
    const seen = logs();
    const status = new GroupSyncStatus();
    await firstValueFrom(
      new ShareGroupOffsetSync({ sourceAdmin: refused.source, targetAdmin: refused.targetAdmin, logger: seen.logger, status }).sync(['workers'], t),
    );
    assert.deepEqual(
      refused.alters.map((a) => a.group),
      ['workers'],
    );
    assert.equal(status.errors, 0);
    assert.match(seen.warnings[0]?.message ?? '', /Could not copy a share group's configs to the target; its start offsets are synced all the same\./);
  });

  test("asks each cluster for all the pass's idle groups' configs in one request and sets those that differ in one, before any start offset", async () => {
    const { t } = translation({ 0: [[0, 0]] });
    const groups = ['alpha', 'beta', 'busy', 'gamma', 'delta'];
    const admins = new FakeShareAdmins(
      new Map(groups.map((g) => [g, [at('orders', 0, 5)]])),
      new Map([
        ['beta', { state: 'empty', members: 0, offsets: [] }],
        ['gamma', { state: 'empty', members: 0, offsets: [] }],
        ['busy', { state: 'stable', members: 1, offsets: [] }],
      ]),
    );
    for (const g of groups) admins.sourceConfigs.set(g, [entry('share.auto.offset.reset', 'earliest', 'group')]);
    admins.sourceConfigs.set('beta', [entry('share.auto.offset.reset', 'earliest', 'group'), entry('share.isolation.level', 'read_committed', 'group')]);
    // gamma has them already.
    admins.targetConfigs.set('gamma', [entry('share.auto.offset.reset', 'earliest', 'group')]);
    const { logger } = logs();
    const sync = new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: admins.targetAdmin, logger, status: new GroupSyncStatus() });

    await firstValueFrom(sync.sync(groups, t));
    // Four idle groups (busy has a member): two DescribeConfigs and one IncrementalAlterConfigs, not eight and three.
    assert.deepEqual(admins.configRequests, [
      { cluster: 'primary', request: 'describe', groups: ['alpha', 'beta', 'delta', 'gamma'] },
      { cluster: 'backup', request: 'describe', groups: ['alpha', 'beta', 'delta', 'gamma'] },
      { cluster: 'backup', request: 'alter', groups: ['alpha', 'beta', 'delta'] },
    ]);
    assert.deepEqual(admins.configAlters.find((a) => a.group === 'beta')?.changes, [
      { op: 'set', name: 'share.auto.offset.reset', value: 'earliest' },
      { op: 'set', name: 'share.isolation.level', value: 'read_committed' },
    ]);
    // Every group's configs are set before the first start offsets: a group the target creates starts with them.
    assert.deepEqual(admins.targetChanges.slice(0, 3), ['configs of alpha', 'configs of beta', 'configs of delta']);
    assert.deepEqual(admins.alters.map((a) => a.group).sort(), ['alpha', 'beta', 'delta', 'gamma']);

    // The next pass: the same two reads, nothing left to set.
    admins.configRequests.length = 0;
    await firstValueFrom(sync.sync(groups, t));
    assert.deepEqual(
      admins.configRequests.map((r) => `${r.cluster} ${r.request}`),
      ['primary describe', 'backup describe'],
    );
  });

  test("a group whose configs cannot be read is asked alone after the pass's request failed: the others' configs are still copied", async () => {
    const { t } = translation({ 0: [[0, 0]] });
    const groups = ['alpha', 'beta', 'locked'];
    const admins = new FakeShareAdmins(new Map(groups.map((g) => [g, [at('orders', 0, 5)]])), new Map());
    for (const g of groups) admins.sourceConfigs.set(g, [entry('share.auto.offset.reset', 'earliest', 'group')]);
    admins.configsLocked.add('locked');
    const seen = logs();
    const status = new GroupSyncStatus();
    await firstValueFrom(
      new ShareGroupOffsetSync({ sourceAdmin: admins.source, targetAdmin: admins.targetAdmin, logger: seen.logger, status }).sync(groups, t),
    );
    assert.deepEqual(
      admins.configRequests.map((r) => `${r.cluster} ${r.request} ${r.groups.join(',')}`),
      [
        'primary describe alpha,beta,locked',
        'primary describe alpha',
        'primary describe beta',
        'primary describe locked',
        'backup describe alpha,beta,locked',
        'backup alter alpha,beta',
      ],
    );
    assert.deepEqual(
      seen.warnings.map((w) => [w.message, w.meta['group'], w.meta['error']]),
      [["Could not copy a share group's configs to the target; its start offsets are synced all the same.", 'locked', 'GROUP_AUTHORIZATION_FAILED (locked)']],
    );
    assert.deepEqual(admins.alters.map((a) => a.group).sort(), groups);
    assert.equal(status.errors, 0);
  });
});
