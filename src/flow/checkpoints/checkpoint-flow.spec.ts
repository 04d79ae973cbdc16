import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { type Observable, NEVER, concat, defer, finalize, map, of, throwError, timer } from '#rxjs';
import { NOT_MIGRATING } from '../migration-state';
import { CheckpointFlow, type CheckpointFlowSettings } from './checkpoint-flow';
import { checkpointsForGroup } from './checkpoint-emission';
import { renameTopicPartition } from './checkpoint-translation';
import { CheckpointStore } from './checkpoint-store';
import { OutageStatus } from '../status/outage-status';
import { CheckpointStatus } from './checkpoint-status';
import { OffsetSyncStore } from './offset-sync-store';
import { type Checkpoint, decodeCheckpoint, encodeCheckpointKey, encodeCheckpointValue, encodeOffsetSyncKey, encodeOffsetSyncValue } from '../../formats';
import { DefaultGroupFilter, DefaultReplicationPolicy, DefaultTopicFilter, type GroupFilter } from '../../policy';
import { silentLogger } from '../../core/ports/logger';
import type { ClusterAdmin, GroupOffset, GroupState, NewTopic, ShareGroupDescription, ShareGroupStartOffset } from '../../core/ports/cluster-admin';
import type { TopicFollowEvent, TopicReader } from '../../core/ports/record-source';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { KafkaRecord, DecodedSourceBatch, TopicPartition } from '../../core/record';

const policy = new DefaultReplicationPolicy();

// ---------------------------------------------------------------------------------------------
// MM2's MirrorCheckpointTaskTest

describe('checkpoints (MM2 MirrorCheckpointTaskTest)', () => {
  const rename = (tp: TopicPartition) => renameTopicPartition(tp, policy, 'source1', 'target2');
  const ctx = (syncs: OffsetSyncStore, store = new CheckpointStore()) => ({
    shouldCheckpointTopic: () => true,
    translate: (tp: TopicPartition, offset: number) => syncs.translateDownstream(tp, offset),
    rename,
    store,
  });
  const started = () => {
    const s = new OffsetSyncStore();
    s.markReadToEnd();
    return s;
  };
  const sync = (s: OffsetSyncStore, topic: string, partition: number, u: number, d: number) =>
    s.handle({ topicPartition: { topic, partition }, upstreamOffset: u, downstreamOffset: d });
  const at = (topic: string, partition: number, offset: number, metadata = ''): GroupOffset => ({ topic, partition, offset, metadata });

  test('testDownstreamTopicRenaming', () => {
    assert.deepEqual(rename({ topic: 'topic3', partition: 4 }), { topic: 'source1.topic3', partition: 4 });
    assert.deepEqual(rename({ topic: 'target2.topic3', partition: 5 }), { topic: 'topic3', partition: 5 });
    assert.deepEqual(rename({ topic: 'source6.topic7', partition: 8 }), { topic: 'source1.source6.topic7', partition: 8 });
  });

  test('testCheckpoint', () => {
    const s = started();
    sync(s, 'topic1', 2, 3, 4);
    sync(s, 'target2.topic5', 6, 7, 8);
    assert.deepEqual(checkpointsForGroup('group9', [at('topic1', 2, 10)], ctx(s)), [
      { consumerGroupId: 'group9', topicPartition: { topic: 'source1.topic1', partition: 2 }, upstreamOffset: 10, downstreamOffset: 5, metadata: '' },
    ]);
    assert.deepEqual(checkpointsForGroup('group11', [at('target2.topic5', 6, 12)], ctx(s)), [
      { consumerGroupId: 'group11', topicPartition: { topic: 'topic5', partition: 6 }, upstreamOffset: 12, downstreamOffset: 9, metadata: '' },
    ]);
    assert.deepEqual(checkpointsForGroup('group13', [at('target2.topic5', 6, 7)], ctx(s)), [
      { consumerGroupId: 'group13', topicPartition: { topic: 'topic5', partition: 6 }, upstreamOffset: 7, downstreamOffset: 8, metadata: '' },
    ]);
  });

  test('testNoCheckpointForTopicWithoutOffsetSyncs', () => {
    const s = started();
    sync(s, 'topic1', 0, 3, 4);
    assert.equal(checkpointsForGroup('group9', [at('topic1', 1, 10)], ctx(s)).length, 0);
    assert.equal(checkpointsForGroup('group9', [at('topic1', 0, 10)], ctx(s)).length, 1);
  });

  test('testNoCheckpointForTopicWithNullOffsetAndMetadata: a partition without a commit is never listed by the port, so never checkpointed', () => {
    const s = started();
    sync(s, 'topic1', 0, 1, 3);
    assert.deepEqual(checkpointsForGroup('g1', [], ctx(s)), []);
  });

  test('no checkpoint for a topic the topic filter rejects, nor for an offset older than every sync', () => {
    const s = started();
    sync(s, 'topic1', 0, 100, 200);
    const filtered = { ...ctx(s), shouldCheckpointTopic: (t: string) => t !== 'topic1' };
    assert.deepEqual(checkpointsForGroup('g', [at('topic1', 0, 150)], filtered), []);
    assert.deepEqual(checkpointsForGroup('g', [at('topic1', 0, 50)], ctx(s)), []);
  });

  test("the source commit's metadata is carried into the checkpoint", () => {
    const s = started();
    sync(s, 'topic1', 0, 1, 1);
    assert.equal(checkpointsForGroup('g', [at('topic1', 0, 5, 'consumer-meta')], ctx(s))[0]!.metadata, 'consumer-meta');
  });

  test('testCheckpointRecordsMonotonicIfStoreRewinds', () => {
    const s = started();
    const store = new CheckpointStore();
    const tp = { topic: 'topic1', partition: 0 };
    let upstream = 11;
    let downstream = 4;
    sync(s, 'topic1', 0, upstream++, downstream++);
    sync(s, 'topic1', 0, upstream++, downstream++);
    const groupOffset = upstream;
    const expected = downstream;
    assert.equal(s.translateDownstream(tp, groupOffset), expected);
    const first = checkpointsForGroup('g1', [at('topic1', 0, groupOffset)], ctx(s, store));
    assert.equal(first.length, 1);
    store.update(first);
    // Syncs 2-6 make the store drop sync 1: the same offset now translates lower.
    for (let i = 0; i < 4; i++) sync(s, 'topic1', 0, upstream++, downstream++);
    sync(s, 'topic1', 0, upstream, downstream);
    assert.notEqual(s.translateDownstream(tp, groupOffset), expected);
    assert.equal(checkpointsForGroup('g1', [at('topic1', 0, groupOffset)], ctx(s, store)).length, 0);
    // An upstream rewind that still translates is emitted, rewinding the checkpoint too.
    assert.equal(checkpointsForGroup('g1', [at('topic1', 0, groupOffset - 1)], ctx(s, store)).length, 1);
  });

  test('testCheckpointsTaskRestartUsesExistingCheckpoints', () => {
    const t1p0 = { topic: 't1', partition: 0 };
    const first = new OffsetSyncStore({ initializationMustReadToEnd: false });
    for (let i = 100; i <= 300; i += 100) sync(first, 't1', 0, i, i);
    first.markReadToEnd();
    const checkpoints = checkpointsForGroup('group1', [at('t1', 0, 250)], ctx(first));
    assert.deepEqual(checkpoints, [
      { consumerGroupId: 'group1', topicPartition: { topic: 'source1.t1', partition: 0 }, upstreamOffset: 250, downstreamOffset: 201, metadata: '' },
    ]);

    // Restart: more syncs on the topic; 100→100 is gone. The loaded checkpoint (250→201) keeps the output monotonic.
    const second = new OffsetSyncStore({ initializationMustReadToEnd: false });
    for (let i = 175; i <= 475; i += 100) sync(second, 't1', 0, i, i);
    second.markReadToEnd();
    const loaded = new CheckpointStore();
    loaded.update(checkpoints);
    assert.equal(second.translateDownstream(t1p0, 250), 176);
    assert.equal(second.translateDownstream(t1p0, 370), 176);
    assert.deepEqual(checkpointsForGroup('group1', [at('t1', 0, 250)], ctx(second, loaded)), []);
    assert.deepEqual(checkpointsForGroup('group1', [at('t1', 0, 370)], ctx(second, loaded)), []);
    assert.deepEqual(checkpointsForGroup('group1', [at('t1', 0, 400)], ctx(second, loaded)), [
      { consumerGroupId: 'group1', topicPartition: { topic: 'source1.t1', partition: 0 }, upstreamOffset: 400, downstreamOffset: 376, metadata: '' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The flow in virtual time, against fake ports.

const newScheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

interface Harness {
  readonly flow: CheckpointFlow;
  readonly status: CheckpointStatus;
  /** `what@frame`, in call order. */
  readonly calls: string[];
  readonly writes: { at: number; records: readonly OutboundRecord[] }[];
  readonly commits: { at: number; group: string; offsets: readonly GroupOffset[] }[];
  /** Share groups' start offsets altered on the target. */
  readonly alters: { at: number; group: string; offsets: readonly ShareGroupStartOffset[] }[];
}

interface HarnessOptions {
  readonly settings?: Partial<CheckpointFlowSettings>;
  readonly groupFilter?: GroupFilter;
  readonly groups?: readonly string[];
  /** Share groups the source lists. */
  readonly shareGroups?: readonly string[];
  /** The group's committed source offsets at the `n`th read (refreshes included). */
  readonly groupOffsets?: (group: string, n: number) => readonly GroupOffset[];
  /** Frames a pass's group-offset read takes (refreshes at frame 0 are instant). */
  readonly fetchFrames?: number;
  readonly writeFrames?: number;
  /** Writes that fail (by write number, from 0). */
  readonly failingWrites?: ReadonlySet<number>;
  /** Records of the offset-syncs topic, then `caught-up` after `caughtUpFrames`. */
  readonly syncs?: readonly [string, number, number, number][];
  readonly caughtUpFrames?: number;
  /** More records of the offset-syncs topic, arriving at `frame` (after the load). */
  readonly laterSyncs?: { readonly frame: number; readonly syncs: readonly [string, number, number, number][] };
  readonly existingCheckpoints?: readonly Checkpoint[];
  readonly loadFrames?: number;
  readonly targetStates?: ReadonlyMap<string, GroupState>;
  /** Groups a migration cutover took over. */
  readonly cutOver?: readonly string[];
  /** A share group's start offsets on the source (default: none). */
  readonly shareOffsets?: (group: string) => readonly ShareGroupStartOffset[];
  /** Share groups on the target (others are unknown there); their start offsets there are none. */
  readonly targetShareGroups?: ReadonlyMap<string, ShareGroupDescription>;
}

const SETTINGS: CheckpointFlowSettings = {
  source: 'source1',
  target: 'target2',
  intervalMs: 10,
  refreshGroupsIntervalMs: 1000,
  refreshGroups: true,
  checkpointsTopic: 'source1.checkpoints.internal',
  checkpointsReplicationFactor: 1,
  offsetSyncsTopic: 'mm2-offset-syncs.target2.internal',
  offsetSyncsReplicationFactor: 1,
  syncGroupOffsets: { enabled: false, intervalMs: 20 },
};

function harness(scheduler: TestScheduler, options: HarnessOptions = {}): Harness {
  const calls: string[] = [];
  const writes: Harness['writes'] = [];
  const commits: Harness['commits'] = [];
  const alters: Harness['alters'] = [];
  const log = (what: string) => calls.push(`${what}@${scheduler.now()}`);
  const fetches = new Map<string, number>();
  const groupOffsets = options.groupOffsets ?? (() => [{ topic: 'topic1', partition: 0, offset: 10, metadata: '' }]);

  const sourceAdmin = {
    cluster: 'source1',
    listGroupKinds: () =>
      defer(() => {
        log('list');
        return of({ consumer: options.groups ?? ['g1'], share: options.shareGroups ?? [] });
      }),
    fetchGroupOffsets: (group: string) =>
      defer(() => {
        log(`fetch:${group}`);
        const n = fetches.get(group) ?? 0;
        fetches.set(group, n + 1);
        const offsets = groupOffsets(group, n);
        const frames = scheduler.now() === 0 ? 0 : (options.fetchFrames ?? 0);
        return frames === 0 ? of(offsets) : timer(frames, scheduler).pipe(map(() => offsets));
      }),
    fetchShareGroupOffsets: (group: string) =>
      defer(() => {
        log(`share:${group}`);
        return of(options.shareOffsets?.(group) ?? []);
      }),
  } as unknown as ClusterAdmin;

  const targetAdmin = {
    cluster: 'target2',
    createTopics: (topics: readonly NewTopic[]) =>
      defer(() => {
        log(`create:${topics.map((t) => t.name).join(',')}`);
        return of([] as string[]);
      }),
    describeGroups: (ids: readonly string[]) =>
      defer(() => {
        log('describe');
        return of(new Map(ids.map((id) => [id, options.targetStates?.get(id) ?? ('dead' as GroupState)])));
      }),
    fetchGroupOffsets: () => of([]),
    commitGroupOffsets: (group: string, offsets: readonly GroupOffset[]) =>
      defer(() => {
        commits.push({ at: scheduler.now(), group, offsets });
        return of(undefined);
      }),
    describeShareGroups: (ids: readonly string[]) =>
      of(new Map(ids.map((id) => [id, options.targetShareGroups?.get(id) ?? ({ state: 'dead', members: 0 } as ShareGroupDescription)]))),
    fetchShareGroupOffsets: () => of([]),
    alterShareGroupOffsets: (group: string, offsets: readonly ShareGroupStartOffset[]) =>
      defer(() => {
        alters.push({ at: scheduler.now(), group, offsets });
        return of(undefined);
      }),
  } as unknown as ClusterAdmin;

  const checkpointRecords: KafkaRecord[] = (options.existingCheckpoints ?? []).map((cp, i) => ({
    topic: SETTINGS.checkpointsTopic,
    partition: 0,
    offset: i,
    timestamp: 0,
    key: encodeCheckpointKey(cp),
    value: encodeCheckpointValue(cp),
    headers: [],
  }));
  const syncRecordsOf = (syncs: readonly [string, number, number, number][], first: number): KafkaRecord[] =>
    syncs.map(([topic, partition, u, d], i) => ({
      topic: SETTINGS.offsetSyncsTopic,
      partition: 0,
      offset: first + i,
      timestamp: 0,
      key: encodeOffsetSyncKey({ topic, partition }),
      value: encodeOffsetSyncValue({ topicPartition: { topic, partition }, upstreamOffset: u, downstreamOffset: d }),
      headers: [],
    }));
  const syncRecords = syncRecordsOf(options.syncs ?? [['topic1', 0, 3, 4]], 0);
  const laterSyncRecords = syncRecordsOf(options.laterSyncs?.syncs ?? [], syncRecords.length);
  const batch = (topic: string, records: KafkaRecord[]): DecodedSourceBatch => ({
    kind: 'records',
    topic,
    partition: 0,
    records,
    nextOffset: records.length,
    highWatermark: records.length,
    bytes: 0,
  });

  const reader: TopicReader = {
    cluster: 'target2',
    recordAt: async () => undefined,
    readToEnd: () =>
      defer(() => {
        log('load-checkpoints');
        const loaded = of(batch(SETTINGS.checkpointsTopic, checkpointRecords));
        return options.loadFrames ? timer(options.loadFrames, scheduler).pipe(map(() => batch(SETTINGS.checkpointsTopic, checkpointRecords))) : loaded;
      }),
    follow: (): Observable<TopicFollowEvent> =>
      defer(() => {
        log('follow');
        return concat(
          of<TopicFollowEvent>({ type: 'records', batch: batch(SETTINGS.offsetSyncsTopic, syncRecords) }),
          options.caughtUpFrames
            ? timer(options.caughtUpFrames, scheduler).pipe(map((): TopicFollowEvent => ({ type: 'caught-up' })))
            : of<TopicFollowEvent>({ type: 'caught-up' }),
          options.laterSyncs === undefined
            ? NEVER
            : timer(options.laterSyncs.frame - scheduler.now(), scheduler).pipe(
                map((): TopicFollowEvent => ({ type: 'records', batch: batch(SETTINGS.offsetSyncsTopic, laterSyncRecords) })),
              ),
          NEVER,
        ).pipe(finalize(() => log('unfollow')));
      }),
  };

  let writeNumber = 0;
  const writer: RecordWriter = {
    cluster: 'target2',
    write: (records) =>
      defer(() => {
        const n = writeNumber++;
        if (options.failingWrites?.has(n)) return throwError(() => new Error('not leader'));
        writes.push({ at: scheduler.now(), records: records as readonly OutboundRecord[] }); // these flows write records only
        return timer(options.writeFrames ?? 1, scheduler).pipe(map(() => new Float64Array(records.length)));
      }),
    close: async () => undefined,
  };

  const status = new CheckpointStatus();
  const flow = new CheckpointFlow({
    settings: { ...SETTINGS, ...options.settings },
    sourceAdmin,
    targetAdmin,
    offsetSyncsAdmin: targetAdmin,
    checkpointsReader: reader,
    offsetSyncsReader: reader,
    writer,
    groupFilter: options.groupFilter ?? new DefaultGroupFilter(),
    topicFilter: new DefaultTopicFilter(),
    policy,
    scheduler,
    logger: silentLogger,
    status,
    outages: new OutageStatus(),
    ...(options.cutOver === undefined
      ? {}
      : {
          migration: {
            refreshed: () => defer(() => (log('migration'), of(NOT_MIGRATING))),
            syncStopped: (group: string) => options.cutOver!.includes(group),
          },
        }),
  });
  return { flow, status, calls, writes, commits, alters };
}

const decoded = (w: { records: readonly OutboundRecord[] }) => w.records.map((r) => decodeCheckpoint(r.key, r.value));

describe('CheckpointFlow in virtual time', () => {
  test('creates both internal topics, loads checkpoints, then checkpoints every interval with byte-identical records', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const offsets = [10, 10, 11, 2]; // by read: refresh at 0, then passes at 10, 20, 30
      const h = harness(scheduler, {
        groupOffsets: (_, n) => [{ topic: 'topic1', partition: 0, offset: offsets[n] ?? 2, metadata: 'm' }],
      });
      const stop$ = cold('35ms s');
      expectObservable(h.flow.run(stop$)).toBe('35ms |');
      flush();
      assert.deepEqual(h.calls, [
        'create:source1.checkpoints.internal@0',
        'create:mm2-offset-syncs.target2.internal@0',
        'load-checkpoints@0',
        // The groups are listed before the offset syncs are read: their offsets are held while the syncs stream by.
        'list@0',
        'fetch:g1@0',
        'follow@0',
        'fetch:g1@10',
        'fetch:g1@20',
        'fetch:g1@30',
        'unfollow@35',
      ]);
      // Reads: 10 at the refresh; then 10 → 4+1 = 5, written; 11 → 5 again, written as the group moved on;
      // 2 is behind the only sync (3): -1, nothing.
      assert.deepEqual(
        h.writes.map((w) => [w.at, decoded(w)]),
        [
          [10, [{ consumerGroupId: 'g1', topicPartition: { topic: 'source1.topic1', partition: 0 }, upstreamOffset: 10, downstreamOffset: 5, metadata: 'm' }]],
          [20, [{ consumerGroupId: 'g1', topicPartition: { topic: 'source1.topic1', partition: 0 }, upstreamOffset: 11, downstreamOffset: 5, metadata: 'm' }]],
        ],
      );
      const record = h.writes[0]!.records[0]!;
      assert.deepEqual([record.topic, record.partition, record.timestamp, record.headers], ['source1.checkpoints.internal', 0, 10, []]);
      assert.equal(h.status.checkpointsWritten, 2);
      assert.equal(h.status.passes, 3);
      assert.equal(h.status.lastCheckpointLatencyMs, 1);
      assert.equal(h.status.state, 'stopped');
    });
  });

  test('a slow pass is not overlapped: ticks during it are dropped; a stop ends the pass under way', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { fetchFrames: 25 });
      const stop$ = cold('75ms s');
      // Passes start at 10, 40, 70; the one at 70 is still reading at the stop: it ends with the flow.
      expectObservable(h.flow.run(stop$)).toBe('75ms |');
      flush();
      assert.deepEqual(
        h.calls.filter((c) => c.startsWith('fetch:')),
        ['fetch:g1@0', 'fetch:g1@10', 'fetch:g1@40', 'fetch:g1@70'],
      );
      // The written checkpoint carries the time its group's offsets were read, not the time of the write.
      assert.deepEqual(
        h.writes.map((w) => [w.at, w.records[0]!.timestamp]),
        [[35, 10]],
      );
      assert.equal(h.status.lastCheckpointLatencyMs, 26);
    });
  });

  test('stopping stops every timer and the offset-sync follower at once', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { settings: { syncGroupOffsets: { enabled: true, intervalMs: 20 } } });
      expectObservable(h.flow.run(cold('15ms s'))).toBe('15ms |');
      flush();
      assert.deepEqual(h.calls.slice(-3), ['follow@0', 'fetch:g1@10', 'unfollow@15']);
      assert.ok(!h.calls.includes('describe@20'), 'the group sync timer stopped too');
    });
  });

  test('a stop during the initial load ends the flow before any timer starts', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { loadFrames: 20 });
      expectObservable(h.flow.run(cold('5ms s'))).toBe('5ms |');
      flush();
      assert.ok(!h.calls.some((c) => c.startsWith('follow') || c.startsWith('list')), h.calls.join(' '));
    });
  });

  test('no pass does anything until the offset syncs were read to the end (testCheckpointStoreInitialized)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { caughtUpFrames: 25 });
      expectObservable(h.flow.run(cold('45ms s'))).toBe('45ms |');
      flush();
      assert.deepEqual(
        h.calls.filter((c) => c.startsWith('fetch:')),
        ['fetch:g1@0', 'fetch:g1@30', 'fetch:g1@40'],
      );
      assert.deepEqual(
        h.writes.map((w) => w.at),
        [30],
      );
    });
  });

  test('checkpoints count as written only once acknowledged: a failed write is retried by the next pass', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { failingWrites: new Set([0]) });
      expectObservable(h.flow.run(cold('25ms s'))).toBe('25ms |');
      flush();
      assert.deepEqual(
        h.writes.map((w) => [w.at, decoded(w)[0]!.downstreamOffset]),
        [[20, 5]],
      );
      assert.equal(h.status.errors, 1);
      assert.equal(h.status.checkpointsWritten, 1);
    });
  });

  test('loaded checkpoints keep a restarted flow monotonic', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, {
        existingCheckpoints: [
          { consumerGroupId: 'g1', topicPartition: { topic: 'source1.topic1', partition: 0 }, upstreamOffset: 10, downstreamOffset: 7, metadata: '' },
        ],
      });
      expectObservable(h.flow.run(cold('15ms s'))).toBe('15ms |');
      flush();
      // 10 translates to 5 with the only sync there is, behind the loaded 7: not written.
      assert.deepEqual(h.writes, []);
    });
  });

  test('group discovery keeps groups that pass the group filter and have offsets on topics the topic filter accepts', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, {
        groups: ['g1', 'console-consumer-42', 'g2', 'g3'],
        shareGroups: ['workers', 'connect-share'],
        groupOffsets: (group) =>
          group === 'g2'
            ? [{ topic: '__consumer_offsets', partition: 0, offset: 1, metadata: '' }]
            : group === 'g3'
              ? []
              : [{ topic: 'topic1', partition: 0, offset: 10, metadata: '' }],
      });
      expectObservable(h.flow.run(cold('5ms s'))).toBe('5ms |');
      flush();
      assert.deepEqual(h.calls.filter((c) => c.startsWith('fetch:')).sort(), ['fetch:g1@0', 'fetch:g2@0', 'fetch:g3@0']);
      assert.equal(h.status.groups, 1);
      // Share groups commit no offsets: never fetched nor checkpointed, listed as what they are.
      assert.deepEqual(
        h.status.groupStates?.entries().map((e) => [e.group, e.state]),
        [
          ['connect-share', 'filtered-out'],
          ['console-consumer-42', 'filtered-out'],
          ['g1', 'not-translatable'],
          ['g2', 'no-replicated-offsets'],
          ['g3', 'no-replicated-offsets'],
          ['workers', 'share-group'],
        ],
      );
    });
  });

  test("mirrorflow's own groups are never fetched, checkpointed nor listed, even where the filter lets everything through", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const own = [
        'mirrorflow.p.source1-target2',
        'mirrorflow.p.source1-target2.elected',
        'mirrorflow.p.target2-source1.preserved-offsets',
        'mirrorflow-drill.g1.1abc',
      ];
      const h = harness(scheduler, { groups: ['g1', ...own], shareGroups: ['mirrorflow.share'], groupFilter: new DefaultGroupFilter({ exclude: [] }) });
      expectObservable(h.flow.run(cold('5ms s'))).toBe('5ms |');
      flush();
      assert.deepEqual(
        h.calls.filter((c) => c.startsWith('fetch:') || c.startsWith('share:')),
        ['fetch:g1@0'],
      );
      assert.deepEqual(
        h.status.groupStates?.entries().map((e) => e.group),
        ['g1'],
      );
      assert.equal(h.status.groupStates?.filteredOut, 0);
    });
  });

  test('groups are listed every refresh interval, and only once with refreshGroups false (MM2 refresh.groups.enabled)', () => {
    for (const [refreshGroups, lists] of [
      [true, ['list@0', 'list@20', 'list@40']],
      [false, ['list@0']],
    ] as const) {
      const scheduler = newScheduler();
      scheduler.run(({ cold, expectObservable, flush }) => {
        const h = harness(scheduler, { settings: { refreshGroupsIntervalMs: 20, intervalMs: 1000, refreshGroups } });
        expectObservable(h.flow.run(cold('50ms s'))).toBe('50ms |');
        flush();
        assert.deepEqual(
          h.calls.filter((c) => c.startsWith('list')),
          lists,
        );
        assert.equal(h.status.groups, 1);
      });
    }
  });

  test('group offset sync leaves alone the groups a migration cutover took over, reading the migration state before each pass', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { groups: ['g1', 'g2'], cutOver: ['g1'], settings: { syncGroupOffsets: { enabled: true, intervalMs: 20 } } });
      expectObservable(h.flow.run(cold('45ms s'))).toBe('45ms |');
      flush();
      assert.deepEqual(
        h.calls.filter((c) => c.startsWith('migration')),
        ['migration@20', 'migration@40'],
      );
      assert.deepEqual(
        h.commits.map((c) => [c.at, c.group]),
        [
          [20, 'g2'],
          [40, 'g2'],
        ],
        'g1 is never committed into',
      );
    });
  });

  test("group offset sync alters share groups' translated start offsets into the target's, with no checkpoint records, after the consumer groups", () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, {
        shareGroups: ['workers', 'busy', 'moved'],
        // Their start offset 10 on topic1-0 translates to 5 with the only sync (3 -> 4), as g1's committed 10 does.
        shareOffsets: () => [{ topic: 'topic1', partition: 0, startOffset: 10 }],
        targetShareGroups: new Map([['busy', { state: 'stable', members: 1 }]]),
        cutOver: ['moved'],
        settings: { syncGroupOffsets: { enabled: true, intervalMs: 20 } },
      });
      expectObservable(h.flow.run(cold('25ms s'))).toBe('25ms |');
      flush();
      assert.deepEqual(
        h.calls.filter((c) => c.startsWith('share:')),
        // At the listing, for the offset-sync store to hold them from its start; then at the sync,
        // not at the checkpoint passes, and a cut-over group not.
        ['share:busy@0', 'share:moved@0', 'share:workers@0', 'share:busy@20', 'share:workers@20'],
      );
      assert.deepEqual(
        h.commits.map((c) => [c.at, c.group]),
        [[20, 'g1']],
      );
      assert.deepEqual(h.alters, [{ at: 20, group: 'workers', offsets: [{ topic: 'source1.topic1', partition: 0, startOffset: 5 }] }]);
      // Only consumer groups' checkpoints are written.
      assert.deepEqual(new Set(h.writes.flatMap((w) => decoded(w).map((c) => c.consumerGroupId))), new Set(['g1']));
      assert.deepEqual(
        h.status.groupStates?.entries().map((e) => [e.group, e.state]),
        [
          ['busy', 'active-on-target'],
          ['g1', 'synced'],
          ['moved', 'cut-over'],
          ['workers', 'synced'],
        ],
      );
      assert.deepEqual(h.status.groupSync.activeGroups, ['busy']);
      assert.equal(h.status.groupSync.groupsSynced, 2);
    });
  });

  test('group offset sync runs on its own timer and commits the checkpoints into groups the target does not know', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, { settings: { syncGroupOffsets: { enabled: true, intervalMs: 20 } } });
      expectObservable(h.flow.run(cold('45ms s'))).toBe('45ms |');
      flush();
      assert.deepEqual(
        h.calls.filter((c) => c.startsWith('describe')),
        ['describe@20', 'describe@40'],
      );
      assert.deepEqual(
        h.commits.map((c) => [c.at, c.group, c.offsets]),
        [
          [20, 'g1', [{ topic: 'source1.topic1', partition: 0, offset: 5, metadata: '' }]],
          [40, 'g1', [{ topic: 'source1.topic1', partition: 0, offset: 5, metadata: '' }]],
        ],
      );
      assert.equal(h.status.groupSync.passes, 2);
    });
  });

  /** Offset syncs as a flow catching up on 5,000 records of topic1-0 writes them: every 101 offsets from `from`, then the last record's. */
  const catchingUp = (from: number): [string, number, number, number][] => {
    const out: [string, number, number, number][] = [];
    for (let u = from; u < 5000; u += 101) out.push(['topic1', 0, u, u]);
    out.push(['topic1', 0, 4999, 4999]);
    return out;
  };
  const stoppedAt2000 = () => [{ topic: 'topic1', partition: 0, offset: 2000, metadata: '' }];

  test('a group that committed and stopped gets a newer checkpoint as the offset syncs of replication catching up arrive, and never one further back (issue 38)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      // The first pass sees only the sync of offset 0; the others all arrive in one read at frame 15.
      const h = harness(scheduler, {
        groupOffsets: stoppedAt2000,
        syncs: [['topic1', 0, 0, 0]],
        laterSyncs: { frame: 15, syncs: catchingUp(101) },
        settings: { syncGroupOffsets: { enabled: true, intervalMs: 25 } },
      });
      expectObservable(h.flow.run(cold('45ms s'))).toBe('45ms |');
      flush();
      // By frame 20 the syncs near 2,000 were dropped from the sparse history (2,000 → 1 for MM2's store
      // alone); the group's offset was held, and keeps 1,919 → 1,919.
      assert.deepEqual(
        h.writes.map((w) => [w.at, decoded(w).map((cp) => `${cp.upstreamOffset}→${cp.downstreamOffset}`)]),
        [
          [10, ['2000→1']],
          [20, ['2000→1920']],
        ],
      );
      assert.deepEqual(
        h.commits.map((c) => [c.at, c.offsets.map((o) => o.offset)]),
        [[25, [1920]]],
      );
    });
  });

  test('a group that stopped before the flow started: replication catching up before the first pass still checkpoints it near where it stopped', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      // An empty offset-syncs topic at start; every sync of the catch-up arrives at frame 5, before the first pass.
      const h = harness(scheduler, { groupOffsets: stoppedAt2000, syncs: [], laterSyncs: { frame: 5, syncs: catchingUp(0) } });
      expectObservable(h.flow.run(cold('25ms s'))).toBe('25ms |');
      flush();
      // MM2's sparse history alone translates 2,000 to 1 by then; the offset listed at start was held.
      assert.deepEqual(
        h.writes.map((w) => [w.at, decoded(w).map((cp) => `${cp.upstreamOffset}→${cp.downstreamOffset}`)]),
        [[10, ['2000→1920']]],
      );
    });
  });

  test('a restarted flow holds the offsets of its loaded checkpoints while it reads the offset syncs again', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const h = harness(scheduler, {
        groupOffsets: stoppedAt2000,
        existingCheckpoints: [
          { consumerGroupId: 'g1', topicPartition: { topic: 'source1.topic1', partition: 0 }, upstreamOffset: 2000, downstreamOffset: 1, metadata: '' },
        ],
        syncs: catchingUp(0),
      });
      expectObservable(h.flow.run(cold('25ms s'))).toBe('25ms |');
      flush();
      assert.deepEqual(
        h.writes.map((w) => [w.at, decoded(w).map((cp) => `${cp.upstreamOffset}→${cp.downstreamOffset}`)]),
        [[10, ['2000→1920']]],
      );
    });
  });
});
