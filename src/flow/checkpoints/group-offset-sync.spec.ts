import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, defer, firstValueFrom, of, throwError } from '#rxjs';
import { GroupOffsetSync, planGroupOffsetSync } from './group-offset-sync';
import { GroupSyncStatus } from './checkpoint-status';
import { GroupActiveError, type ClusterAdmin, type GroupOffset, type GroupState } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';

const off = (topic: string, partition: number, offset: number, metadata = ''): GroupOffset => ({ topic, partition, offset, metadata });

describe('planGroupOffsetSync (MM2 MirrorCheckpointTask.syncGroupOffset)', () => {
  test('testSyncOffset: idle target offsets 100 and 50, checkpoints at 101 and 51 → both synced', () => {
    assert.deepEqual(planGroupOffsetSync([off('topic1', 0, 101, 'metadata')], 'empty', [off('topic1', 0, 100)]), {
      kind: 'commit',
      reason: 'idle-group',
      offsets: [off('topic1', 0, 101, 'metadata')],
    });
    assert.deepEqual(planGroupOffsetSync([off('topic2', 0, 51, 'metadata')], 'empty', [off('topic2', 0, 50)]), {
      kind: 'commit',
      reason: 'idle-group',
      offsets: [off('topic2', 0, 51, 'metadata')],
    });
  });

  test('testSyncOffsetForTargetGroupWithNullOffsetAndMetadata: a partition without a target offset (reset to -1) is synced', () => {
    assert.deepEqual(planGroupOffsetSync([off('topic', 0, 101)], 'empty', []), { kind: 'commit', reason: 'idle-group', offsets: [off('topic', 0, 101)] });
  });

  test('an idle group never moves backwards; new partitions are added', () => {
    const converted = [off('t', 0, 10), off('t', 1, 20), off('t', 2, 30)];
    const target = [off('t', 0, 15), off('t', 1, 20)];
    assert.deepEqual(planGroupOffsetSync(converted, 'empty', target), { kind: 'commit', reason: 'idle-group', offsets: [off('t', 2, 30)] });
    assert.deepEqual(planGroupOffsetSync([off('t', 0, 10)], 'empty', [off('t', 0, 10)]), { kind: 'up-to-date' });
  });

  test('a group the target does not know gets every translated offset', () => {
    assert.deepEqual(planGroupOffsetSync([off('t', 0, 10)], 'dead', []), { kind: 'commit', reason: 'new-group', offsets: [off('t', 0, 10)] });
  });

  test('a group with members, or in a state that cannot be judged, is left alone', () => {
    for (const state of ['stable', 'preparing-rebalance', 'completing-rebalance', 'unknown'] as GroupState[]) {
      assert.deepEqual(planGroupOffsetSync([off('t', 0, 10)], state, []), { kind: 'skip-active', state });
    }
  });
});

/** A target cluster's consumer groups in memory; `commitGroupOffsets` fails for groups in `refuse`. */
class FakeTargetAdmin implements Partial<ClusterAdmin> {
  readonly cluster = 'target';
  readonly commits: { group: string; offsets: readonly GroupOffset[] }[] = [];
  readonly fetched: string[] = [];
  constructor(
    readonly states: Map<string, GroupState>,
    readonly offsets: Map<string, GroupOffset[]>,
    readonly refuse = new Set<string>(),
  ) {}
  describeGroups(ids: readonly string[]): Observable<ReadonlyMap<string, GroupState>> {
    return of(new Map(ids.map((id) => [id, this.states.get(id) ?? 'dead'])));
  }
  fetchGroupOffsets(group: string): Observable<readonly GroupOffset[]> {
    this.fetched.push(group);
    return of(this.offsets.get(group) ?? []);
  }
  commitGroupOffsets(group: string, offsets: readonly GroupOffset[]): Observable<void> {
    return defer(() => {
      if (this.refuse.has(group)) return throwError(() => new GroupActiveError('target', group));
      this.commits.push({ group, offsets });
      return of(undefined);
    });
  }
}

function logs(): { logger: Logger; warnings: { message: string; meta: Record<string, unknown> }[] } {
  const warnings: { message: string; meta: Record<string, unknown> }[] = [];
  const logger: Logger = { error() {}, info() {}, debug() {}, warn: (message, meta = {}) => warnings.push({ message, meta }), child: () => logger };
  return { logger, warnings };
}

describe('GroupOffsetSync', () => {
  test('commits for new and idle groups, skips active ones and reports them on the status and in one warning', async () => {
    const admin = new FakeTargetAdmin(
      new Map<string, GroupState>([
        ['idle', 'empty'],
        ['busy', 'stable'],
        ['racing', 'empty'],
      ]),
      new Map([['idle', [off('t', 0, 5)]]]),
      new Set(['racing']),
    );
    const status = new GroupSyncStatus();
    const { logger, warnings } = logs();
    const sync = new GroupOffsetSync({ targetAdmin: admin as unknown as ClusterAdmin, logger, status });
    await firstValueFrom(
      sync.sync(
        new Map([
          ['idle', [off('t', 0, 10)]],
          ['busy', [off('t', 0, 10)]],
          ['fresh', [off('t', 0, 7), off('t', 1, 8)]],
          ['racing', [off('t', 0, 10)]],
        ]),
      ),
    );
    assert.deepEqual(
      admin.commits.sort((a, b) => a.group.localeCompare(b.group)),
      [
        { group: 'fresh', offsets: [off('t', 0, 7), off('t', 1, 8)] },
        { group: 'idle', offsets: [off('t', 0, 10)] },
      ],
    );
    // Only idle groups' offsets are read; an active group's are not needed.
    assert.deepEqual(admin.fetched.sort(), ['idle', 'racing']);
    assert.equal(status.passes, 1);
    assert.equal(status.groupsSynced, 2);
    assert.equal(status.offsetsCommitted, 3);
    assert.equal(status.skippedActive, 2);
    assert.deepEqual([...status.activeGroups].sort(), ['busy', 'racing']);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.message, 'Consumer groups with active members on the target were not synced.');
    assert.deepEqual([...(warnings[0]!.meta['groups'] as string[])].sort(), ['busy', 'racing']);

    // Next pass: the active group went idle; the counter keeps the history, the list is the last pass's.
    admin.states.set('busy', 'empty');
    admin.refuse.clear();
    await firstValueFrom(sync.sync(new Map([['busy', [off('t', 0, 10)]]])));
    assert.equal(status.skippedActive, 2);
    assert.deepEqual(status.activeGroups, []);
    assert.equal(warnings.length, 1);
  });

  test('a failing target is counted and logged, and the pass still completes', async () => {
    const admin = new FakeTargetAdmin(new Map(), new Map());
    admin.describeGroups = () => throwError(() => new Error('target down'));
    const status = new GroupSyncStatus();
    const { logger, warnings } = logs();
    await firstValueFrom(new GroupOffsetSync({ targetAdmin: admin as unknown as ClusterAdmin, logger, status }).sync(new Map([['g', [off('t', 0, 1)]]])), {
      defaultValue: undefined,
    });
    assert.equal(status.errors, 1);
    assert.equal(warnings.length, 1);
  });
});
