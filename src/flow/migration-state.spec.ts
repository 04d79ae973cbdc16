import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, Subject, lastValueFrom, of, toArray } from '#rxjs';
import { MigrationWatch, foldMigration, migrationRecord, type MigrationEntry } from './migration-state';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { TopicReader } from '../core/ports/record-source';
import type { KafkaRecord } from '../core/record';
import { silentLogger } from '../core/ports/logger';
import { VirtualClock } from './virtual-clock';

const TOPIC = 'mm2-migration.primary.internal';
const FLOW = 'mirrorflow.p.primary-backup';

function stored(entries: readonly { flow: string; entry: MigrationEntry }[]): KafkaRecord[] {
  return entries.map(({ flow, entry }, offset) => {
    const r = migrationRecord(TOPIC, flow, entry);
    return { topic: TOPIC, partition: 0, offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: [] };
  });
}

test("a flow's state is its own records, the newest per group and step; other flows' and foreign records are passed over", () => {
  const records = [
    ...stored([
      { flow: FLOW, entry: { step: 'cutover', group: 'billing', state: 'sync-stopped', at: 1 } },
      { flow: 'mirrorflow.other.primary-backup', entry: { step: 'cutover', group: 'audit', state: 'cut-over', at: 2 } },
      {
        flow: FLOW,
        entry: {
          step: 'cutover',
          group: 'billing',
          state: 'cut-over',
          at: 3,
          committed: [{ topic: 'primary.orders', partition: 0, offset: 7, preserved: true }],
        },
      },
      { flow: FLOW, entry: { step: 'finish', state: 'stopping', at: 4 } },
    ]),
    { topic: TOPIC, partition: 0, offset: 9, timestamp: 0, key: Buffer.from('x'), value: Buffer.from('not json'), headers: [] },
  ];
  const state = foldMigration(records, FLOW);
  assert.deepEqual([...state.groups.keys()], ['billing']);
  assert.equal(state.groups.get('billing')?.state, 'cut-over');
  assert.deepEqual(state.groups.get('billing')?.committed, [{ topic: 'primary.orders', partition: 0, offset: 7, preserved: true }]);
  assert.deepEqual(state.finish, { step: 'finish', state: 'stopping', at: 4 });
  assert.deepEqual(foldMigration([], FLOW), { groups: new Map() });
});

function fakeTarget(log: KafkaRecord[], exists: () => boolean) {
  let reads = 0;
  const admin = {
    describeTopics: (names: readonly string[]) => of(exists() && names.includes(TOPIC) ? [{ name: TOPIC, partitions: 1 }] : []),
    partitionOffsets: () => of([{ partition: 0, earliest: 0, latest: log.length }]),
  } as unknown as ClusterAdmin;
  const reader: TopicReader = {
    cluster: 'backup',
    readToEnd: () => {
      reads++;
      return of({ kind: 'records', topic: TOPIC, partition: 0, records: [...log], nextOffset: log.length, highWatermark: log.length, bytes: 0 });
    },
    follow: () => EMPTY,
    recordAt: async () => undefined,
  };
  return { admin, reader, reads: () => reads };
}

test('a running flow reads the topic again only when it grew; it finds its finish, and stops looking at the stop signal', async () => {
  const log: KafkaRecord[] = [];
  let exists = false;
  const target = fakeTarget(log, () => exists);
  const clock = new VirtualClock();
  const watch = new MigrationWatch({
    targetAdmin: target.admin,
    reader: target.reader,
    topic: TOPIC,
    flowGroup: FLOW,
    pollMs: 1,
    scheduler: clock.scheduler,
    logger: silentLogger,
  });
  assert.equal((await watch.refresh()).groups.size, 0, 'no topic: not migrating');
  assert.equal(target.reads(), 0);

  exists = true;
  log.push(...stored([{ flow: FLOW, entry: { step: 'cutover', group: 'billing', state: 'sync-stopped', at: 1 } }]));
  assert.equal((await watch.refresh()).groups.size, 1);
  assert.equal(watch.syncStopped('billing'), true);
  assert.equal(watch.syncStopped('audit'), false);
  await watch.refresh();
  assert.equal(target.reads(), 1, 'read again only once the topic grew');

  const stop$ = new Subject<void>();
  const unfinished = lastValueFrom(watch.finished(stop$).pipe(toArray()));
  await clock.advance(20);
  stop$.next();
  assert.deepEqual(await unfinished, [], 'no finish: completes at the stop signal');

  log.push(...stored([{ flow: FLOW, entry: { step: 'finish', state: 'stopping', at: 2 } }]));
  const finished = lastValueFrom(watch.finished(new Subject<void>()).pipe(toArray()));
  await clock.advance(0);
  assert.deepEqual(await finished, [{ step: 'finish', state: 'stopping', at: 2 }]);
});
