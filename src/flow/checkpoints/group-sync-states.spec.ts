import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupSyncStates, MAX_FILTERED_OUT_LISTED, translationCoverage } from './group-sync-states';
import type { Logger } from '../../core/ports/logger';

interface Line {
  readonly level: string;
  readonly message: string;
  readonly meta: Record<string, unknown>;
}

function setup(options: { syncEnabled?: boolean } = {}) {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (message: string, meta: Record<string, unknown> = {}): void => {
      lines.push({ level, message, meta });
    };
  const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => logger };
  const checkpointed = new Set<string>();
  let now = 1000;
  const states = new GroupSyncStates({
    source: 'primary',
    target: 'backup',
    syncEnabled: options.syncEnabled ?? true,
    hasCheckpoints: (g) => checkpointed.has(g),
    logger,
    now: () => now,
  });
  return {
    states,
    lines,
    checkpointed,
    tick: (ms: number) => (now += ms),
    changes: () => lines.filter((l) => / group sync state changed\.$/.test(l.message)).map((l) => [l.meta['group'], l.meta['previous'], l.meta['state']]),
  };
}

describe('GroupSyncStates', () => {
  test('each state with its reason, from what discovery, the checkpoint pass and the sync learnt', () => {
    const { states, checkpointed } = setup();
    states.listed({
      checkpointed: ['app', 'busy', 'early', 'moved', 'broken'],
      filteredOut: ['console-consumer-1'],
      noReplicatedOffsets: ['other'],
      shareGroups: ['workers'],
    });
    assert.equal(states.get('app')?.state, 'not-translatable');
    assert.match(states.get('app')!.reason, /no checkpoint pass has read its offsets yet/);
    assert.equal(states.get('console-consumer-1')?.state, 'filtered-out');
    assert.match(states.get('console-consumer-1')!.reason, /groups filter/);
    assert.equal(states.get('other')?.state, 'no-replicated-offsets');
    assert.match(states.get('other')!.reason, /all on topics this flow does not replicate/);
    assert.equal(states.get('workers')?.state, 'not-translatable');
    assert.match(states.get('workers')!.reason, /a share group whose start offsets on primary no group offset sync has read yet/);

    states.translated('early', 3, 0);
    assert.equal(states.get('early')?.state, 'not-translatable');
    assert.match(states.get('early')!.reason, /none of its 3 partitions on replicated topics has an offset sync at or below its committed offset/);

    for (const g of ['app', 'busy', 'moved', 'broken']) {
      states.translated(g, 4, g === 'app' ? 3 : 4);
      checkpointed.add(g);
    }
    states.refresh();
    assert.equal(states.get('app')?.state, 'checkpointed');
    assert.match(states.get('app')!.reason, /the next group offset sync writes its offsets on backup; 1 of its 4 partitions have no offset sync/);

    states.synced(
      new Map([
        ['app', { result: 'committed', partitions: 3 }],
        ['busy', { result: 'active', targetState: 'stable' }],
        ['moved', { result: 'cut-over' }],
        ['broken', { result: 'failed', error: 'GROUP_AUTHORIZATION_FAILED' }],
      ] as const),
    );
    assert.deepEqual(
      states.entries().map((e) => [e.group, e.state]),
      [
        ['app', 'synced'],
        ['broken', 'failed'],
        ['busy', 'active-on-target'],
        ['console-consumer-1', 'filtered-out'],
        ['early', 'not-translatable'],
        ['moved', 'cut-over'],
        ['other', 'no-replicated-offsets'],
        ['workers', 'not-translatable'],
      ],
    );
    assert.match(states.get('app')!.reason, /its group on backup holds the translated offsets \(3 committed by the last sync\); 1 of its 4 partitions/);
    assert.equal(states.get('app')!.translated, 3);
    assert.equal(states.get('app')!.partitions, 4);
    assert.match(states.get('busy')!.reason, /active members on backup \(state stable\)/);
    assert.equal(states.get('busy')!.targetState, 'stable');
    assert.match(states.get('broken')!.reason, /GROUP_AUTHORIZATION_FAILED/);
    assert.match(states.get('moved')!.reason, /migrate cutover/);
  });

  test('with sync_group_offsets off a translated group is checkpointed, and says why its target group is not written', () => {
    const { states, checkpointed } = setup({ syncEnabled: false });
    states.listed({ checkpointed: ['app'], filteredOut: [], noReplicatedOffsets: [] });
    states.translated('app', 2, 2);
    checkpointed.add('app');
    states.refresh();
    assert.equal(states.get('app')?.state, 'checkpointed');
    assert.match(states.get('app')!.reason, /sync_group_offsets is off/);
  });

  test("a share group's states come from the group offset sync alone, which reads, translates and alters its start offsets", () => {
    const { states, changes, lines } = setup();
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: ['workers', 'idle', 'busy', 'early', 'broken', 'moved'] });
    // What one sync pass learnt, group by group (share-group-offset-sync.ts): translation, then the target's answer.
    states.shareSynced('workers', 3, 2, { result: 'committed', partitions: 2 });
    states.shareSynced('idle', 0, 0, undefined);
    states.shareSynced('early', 2, 0, undefined);
    states.shareSynced('busy', 1, 1, { result: 'active', targetState: 'stable' });
    states.shareSynced('broken', 1, 1, { result: 'failed', error: 'Group broken is not a share group.' });
    states.synced(new Map([['moved', { result: 'cut-over' }]]));
    assert.deepEqual(
      states.entries().map((e) => [e.group, e.state]),
      [
        ['broken', 'failed'],
        ['busy', 'active-on-target'],
        ['early', 'not-translatable'],
        ['idle', 'no-replicated-offsets'],
        ['moved', 'cut-over'],
        ['workers', 'synced'],
      ],
    );
    assert.match(
      states.get('workers')!.reason,
      /^its share group on backup holds the translated start offsets or is further ahead \(2 altered by the last sync\); 1 of its 3 partitions have no offset sync at or below the start offset yet/,
    );
    assert.deepEqual([states.get('workers')!.partitions, states.get('workers')!.translated], [3, 2]);
    assert.match(
      states.get('busy')!.reason,
      /^a share group with active members on backup \(state stable\): its start offsets there cannot be altered while they run$/,
    );
    assert.equal(states.get('busy')!.targetState, 'stable');
    assert.match(states.get('early')!.reason, /none of whose 2 start offsets on replicated topics has an offset sync at or below it yet/);
    assert.match(states.get('idle')!.reason, /no share-partition start offset on primary on a topic this flow replicates/);
    assert.match(states.get('broken')!.reason, /syncing its share-partition start offsets to backup failed: Group broken is not a share group\./);
    // A refresh keeps what the sync learnt (a share group is never checkpointed; its translation is the sync's).
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: ['workers', 'idle', 'busy', 'early', 'broken', 'moved'] });
    assert.equal(states.get('workers')?.state, 'synced');
    // Nothing translates any more (the sync records no result then): not translatable, whatever the last sync did.
    states.shareSynced('workers', 3, 0, undefined);
    assert.equal(states.get('workers')?.state, 'not-translatable');
    // Gone from the source: dropped (it has no checkpoints to keep it).
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: [] });
    assert.deepEqual(states.entries(), []);
    assert.ok(lines.filter((l) => l.meta['group'] === 'workers').every((l) => l.message === 'Share group sync state changed.'));
    assert.deepEqual(
      changes().filter(([g]) => g === 'workers'),
      [
        ['workers', 'none', 'not-translatable'],
        ['workers', 'not-translatable', 'synced'],
        ['workers', 'synced', 'not-translatable'],
      ],
    );
  });

  test("with sync_group_offsets off a share group's start offsets are not copied, and it says so", () => {
    const { states } = setup({ syncEnabled: false });
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [], shareGroups: ['workers'] });
    assert.equal(states.get('workers')?.state, 'share-group');
    assert.match(
      states.get('workers')!.reason,
      /^a share group \(KIP-932\): its share-partition start offsets are copied to backup by checkpoints\.sync_group_offsets alone \(MM2's checkpoints have no share groups\), which is off; after a failover its consumers on backup start where share\.auto\.offset\.reset says$/,
    );
  });

  test('a change is logged once, with the previous state; `since` keeps the time the state was entered', () => {
    const { states, checkpointed, changes, lines, tick } = setup();
    states.listed({ checkpointed: ['app'], filteredOut: ['ignored'], noReplicatedOffsets: [] });
    states.translated('app', 1, 0);
    states.translated('app', 1, 0);
    tick(5000);
    checkpointed.add('app');
    states.translated('app', 1, 1);
    const since = states.get('app')!.since;
    tick(5000);
    states.synced(new Map([['app', { result: 'up-to-date', partitions: 1 }]]));
    tick(5000);
    states.synced(new Map([['app', { result: 'up-to-date', partitions: 1 }]]));
    assert.equal(states.get('app')!.since, since + 5000, 'entered synced once');
    states.synced(new Map([['app', { result: 'active', targetState: 'stable' }]]));
    assert.deepEqual(changes(), [
      ['app', 'none', 'not-translatable'],
      ['ignored', 'none', 'filtered-out'],
      ['app', 'not-translatable', 'checkpointed'],
      ['app', 'checkpointed', 'synced'],
      ['app', 'synced', 'active-on-target'],
    ]);
    const filtered = lines.find((l) => l.meta['group'] === 'ignored')!;
    assert.equal(filtered.level, 'debug', 'filtered-out groups follow from the file: debug');
    assert.equal(lines.find((l) => l.meta['state'] === 'synced')!.level, 'info');
  });

  test('a group gone from the source is dropped, unless it still has checkpoints', () => {
    const { states, checkpointed } = setup();
    states.listed({ checkpointed: ['gone', 'kept'], filteredOut: [], noReplicatedOffsets: [] });
    checkpointed.add('kept');
    states.listed({ checkpointed: [], filteredOut: [], noReplicatedOffsets: [] });
    assert.equal(states.get('gone'), undefined);
    assert.equal(states.get('kept')?.state, 'checkpointed');
  });

  test('filtered-out groups are all counted, and listed by name up to a bound', () => {
    const { states } = setup();
    const many = Array.from({ length: MAX_FILTERED_OUT_LISTED + 50 }, (_, i) => `g-${String(i).padStart(4, '0')}`);
    states.listed({ checkpointed: ['zz-app'], filteredOut: many, noReplicatedOffsets: [] });
    assert.equal(states.filteredOut, many.length);
    const entries = states.entries();
    assert.equal(entries.filter((e) => e.state === 'filtered-out').length, MAX_FILTERED_OUT_LISTED);
    assert.ok(
      entries.some((e) => e.group === 'zz-app'),
      'other groups are never left out',
    );
  });

  test('translationCoverage counts partitions on replicated topics and those that translate', () => {
    const offsets = [
      { topic: 'orders', partition: 0, offset: 10 },
      { topic: 'orders', partition: 1, offset: 10 },
      { topic: 'orders', partition: 2, offset: 3 },
      { topic: 'private', partition: 0, offset: 10 },
    ];
    const coverage = translationCoverage(
      offsets,
      (t) => t === 'orders',
      (tp, offset) => (tp.partition === 0 ? offset : tp.partition === 1 ? undefined : -1),
    );
    assert.deepEqual(coverage, { partitions: 3, translated: 1 });
  });
});
