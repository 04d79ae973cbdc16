import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, from, lastValueFrom, of, type Observable } from '#rxjs';
import { FILLER_HEADER, OffsetPreservation } from './offset-preservation';
import { PreservationStatus } from './preservation-status';
import type { ClusterAdmin, GroupOffset, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { OutboundItem, RecordWriter } from '../../core/ports/record-writer';
import { silentLogger } from '../../core/ports/logger';
import type { DecodedSourceBatch, FlowBatch, KafkaRecord } from '../../core/record';
import type { TopicReader } from '../../core/ports/record-source';

const tp = { topic: 'orders', partition: 0 };
const REMOTE = 'primary.orders';

/** A target partition that assigns offsets as a broker does, and keeps the markers committed. */
/** Records as a reader returns them: the same content at every offset unless `content` says otherwise. */
function fakeReader(content: (offset: number) => string | undefined = () => 'copied'): TopicReader {
  return {
    cluster: 'any',
    readToEnd: () => EMPTY,
    follow: () => EMPTY,
    recordAt: async (topic, partition, offset) => {
      const value = content(offset);
      return value === undefined ? undefined : { topic, partition, offset, timestamp: 5, key: null, value: Buffer.from(value), headers: [] };
    },
  };
}

function fakeTarget(
  start: { earliest: number; latest: number },
  markers: GroupOffset[] = [],
  readers = { source: fakeReader(), target: fakeReader() },
  /** While `held`, each commit is answered only once the test calls the release pushed for it. */
  gate?: { held: boolean; readonly releases: (() => void)[] },
) {
  const log = { ...start };
  const commits: GroupOffset[][] = [];
  const written: OutboundItem[] = [];
  const admin = {
    cluster: 'backup',
    partitionOffsets: (): Observable<readonly PartitionOffsets[]> => of([{ partition: 0, ...log }]),
    deleteRecords: (_topic: string, _partition: number, before: number): Observable<void> => {
      log.earliest = before;
      return of(undefined);
    },
    fetchGroupOffsets: (): Observable<readonly GroupOffset[]> => of(markers),
    commitGroupOffsets: (_group: string, offsets: readonly GroupOffset[]): Observable<void> => {
      commits.push([...offsets]);
      if (gate?.held !== true) return of(undefined);
      return from(new Promise<void>((release) => gate.releases.push(release)));
    },
  } as unknown as ClusterAdmin;
  const writer: RecordWriter = {
    cluster: 'backup',
    write: (items) => {
      written.push(...items);
      const offsets = new Float64Array(items.length).map((_, i) => log.latest + i);
      log.latest += items.length;
      return of(offsets);
    },
    close: async () => {},
  };
  const status = new PreservationStatus();
  const preservation = new OffsetPreservation({
    targetAdmin: admin,
    writer,
    readers,
    markerGroup: 'g.preserved-offsets',
    status,
    logger: silentLogger,
    now: () => 1,
  });
  return { preservation, status, commits, written, log };
}

const sourceAt = (earliest: number) => async (): Promise<PartitionOffsets> => ({ partition: 0, earliest, latest: earliest + 100 });

function records(offsets: readonly number[], of = tp): DecodedSourceBatch {
  const list: KafkaRecord[] = offsets.map((offset) => ({ ...of, offset, timestamp: 0, key: null, value: null, headers: [] }));
  return { kind: 'records', ...of, records: list, nextOffset: (offsets.at(-1) ?? 0) + 1, highWatermark: 100, bytes: 0 };
}

function flowBatch(batch: DecodedSourceBatch): FlowBatch {
  return {
    kind: 'records',
    source: tp,
    records: batch.records.map((r) => ({ source: r, topic: REMOTE, partition: 0, timestamp: 0, key: null, value: null, headers: [] })),
    nextOffset: batch.nextOffset,
    highWatermark: 100,
    bytes: 0,
    sourceRecords: batch.records.length,
  };
}

test('an empty target and a source log starting at 0: preserved from 0, marked before anything is written', async () => {
  const { preservation, status, commits, written } = fakeTarget({ earliest: 0, latest: 0 });
  assert.equal(await preservation.start(tp, REMOTE, undefined, sourceAt(0)), 0);
  assert.deepEqual(status.get(tp), { ...tp, preserved: true, since: 0 });
  assert.deepEqual(commits, [[{ topic: REMOTE, partition: 0, offset: 0, metadata: '{"preserved":true}' }]]);
  assert.equal(written.length, 0, 'no fillers');
});

test('a source log starting at 25: fillers up to 25, deleted, so the first record copied lands at 25', async () => {
  const { preservation, written, log } = fakeTarget({ earliest: 0, latest: 0 });
  assert.equal(await preservation.start(tp, REMOTE, undefined, sourceAt(25)), 25);
  assert.equal(written.length, 25);
  assert.ok(
    written.every((r) => 'headers' in r && r.value === null && r.headers.some((h) => h.key === FILLER_HEADER)),
    'tombstones with the filler header',
  );
  assert.deepEqual(log, { earliest: 25, latest: 25 }, 'the fillers are deleted');
});

test('a target partition that is not empty at the start falls back, from the source log start', async () => {
  const { preservation, status, commits } = fakeTarget({ earliest: 0, latest: 3 });
  assert.equal(await preservation.start(tp, REMOTE, undefined, sourceAt(0)), 0);
  const state = status.get(tp);
  assert.ok(state !== undefined && !state.preserved);
  assert.match(state.reason, /not empty at the start \(it ends at offset 3\)/);
  assert.equal(status.fallbacks, 1);
  await lastValueFrom(preservation.flush(), { defaultValue: undefined });
  assert.equal(JSON.parse(commits.at(-1)![0]!.metadata).preserved, false, 'the fallback is marked for later runs');
});

test('after a crash, a partition marked preserved resumes at the end of the target; without the mark it falls back at the stored progress', async () => {
  const marked = fakeTarget({ earliest: 0, latest: 80 }, [{ topic: REMOTE, partition: 0, offset: 0, metadata: '{"preserved":true}' }]);
  assert.equal(await marked.preservation.start(tp, REMOTE, 50, sourceAt(0)), 80);
  assert.equal(marked.status.get(tp)?.preserved, true);

  const unmarked = fakeTarget({ earliest: 0, latest: 80 });
  assert.equal(await unmarked.preservation.start(tp, REMOTE, 50, sourceAt(0)), 50);
  const state = unmarked.status.get(tp);
  assert.ok(state !== undefined && !state.preserved && state.fromOffset === 50);
});

test('after a crash, a marked partition whose target holds records the source does not have falls back at the stored progress instead of skipping them', async () => {
  const marker = [{ topic: REMOTE, partition: 0, offset: 0, metadata: '{"preserved":true}' }];
  // Another program wrote the last record of the target partition: the source's record at that offset differs.
  const foreignLast = fakeTarget({ earliest: 0, latest: 80 }, marker, { source: fakeReader(), target: fakeReader((o) => (o === 79 ? 'foreign' : 'copied')) });
  assert.equal(await foreignLast.preservation.start(tp, REMOTE, 50, sourceAt(0)), 50);
  const state = foreignLast.status.get(tp);
  assert.ok(state !== undefined && !state.preserved && state.fromOffset === 50);
  assert.match(state.reason, /record at offset 79 is not the source's .*another program wrote to the target partition/);
  await lastValueFrom(foreignLast.preservation.flush(), { defaultValue: undefined });
  assert.equal(JSON.parse(foreignLast.commits.at(-1)![0]!.metadata).preserved, false, 'the fallback is marked for later runs');

  // The other program's records are the first past the progress, and the source has not got that far yet.
  const foreignFirst = fakeTarget({ earliest: 0, latest: 80 }, marker, { source: fakeReader((o) => (o >= 50 ? undefined : 'copied')), target: fakeReader() });
  assert.equal(await foreignFirst.preservation.start(tp, REMOTE, 50, sourceAt(0)), 50);
  assert.match((foreignFirst.status.get(tp) as { reason: string }).reason, /the source has no record at offset 50/);

  // A crash before any progress was stored: compared from where the partition is preserved.
  const noProgress = fakeTarget({ earliest: 0, latest: 30 }, [{ ...marker[0]!, offset: 10 }], {
    source: fakeReader(),
    target: fakeReader((o) => (o === 10 ? 'x' : 'copied')),
  });
  assert.equal(await noProgress.preservation.start(tp, REMOTE, undefined, sourceAt(10)), 10);
  assert.equal(noProgress.status.get(tp)?.preserved, false);
});

test('a partition that fell back in an earlier run stays fallen back, and is not counted again', async () => {
  const { preservation, status } = fakeTarget({ earliest: 0, latest: 50 }, [
    { topic: REMOTE, partition: 0, offset: 7, metadata: '{"preserved":false,"reason":"a gap"}' },
  ]);
  assert.equal(await preservation.start(tp, REMOTE, 50, sourceAt(0)), 50);
  assert.deepEqual(status.get(tp), { ...tp, preserved: false, reason: 'a gap', fromOffset: 7, at: 1 });
  assert.equal(status.fallbacks, 0);
});

test('a gap in the source is found before the batch is written: the partition falls back at the record after it', async () => {
  const { preservation, status } = fakeTarget({ earliest: 0, latest: 0 });
  await preservation.start(tp, REMOTE, undefined, sourceAt(0));
  preservation.inspect(records([0, 1, 2]), REMOTE);
  assert.equal(status.get(tp)?.preserved, true);
  preservation.inspect(records([4, 5]), REMOTE);
  const state = status.get(tp);
  assert.ok(state !== undefined && !state.preserved);
  assert.equal(state.fromOffset, 4);
  assert.match(state.reason, /no records at offsets 3 to 3/);
});

test('an acknowledgement at another offset than the source record had makes the partition fall back there', async () => {
  const { preservation, status } = fakeTarget({ earliest: 0, latest: 0 });
  await preservation.start(tp, REMOTE, undefined, sourceAt(0));
  const batch = records([0, 1, 2]);
  preservation.inspect(batch, REMOTE);
  assert.equal(preservation.verify(flowBatch(batch), REMOTE, Float64Array.from([0, 1, 2]), 0), 3);
  assert.equal(status.get(tp)?.preserved, true);
  const next = records([3, 4]);
  preservation.inspect(next, REMOTE);
  assert.equal(preservation.verify(flowBatch(next), REMOTE, Float64Array.from([9, 4, 5]), 1), 3);
  const state = status.get(tp);
  assert.ok(state !== undefined && !state.preserved);
  assert.equal(state.fromOffset, 3);
  assert.equal(state.reason, 'the target put source offset 3 at offset 4');
});

test("a partition that falls back while another partition's marker commit is out has its fallback committed by the next flush", async () => {
  const gate = { held: true, releases: [] as (() => void)[] };
  const { preservation, status, commits } = fakeTarget({ earliest: 0, latest: 0 }, [], undefined, gate);
  const payments = { topic: 'payments', partition: 0 };
  const paymentsRemote = 'primary.payments';
  const until = async (done: () => boolean): Promise<void> => {
    for (let turns = 0; !done() && turns < 100; turns++) await new Promise<void>((resolve) => setImmediate(resolve));
    assert.ok(done());
  };
  // Two partitions start at once, as an assignment starts them; payments' mark is still out when orders is marked.
  const paymentsStarted = preservation.start(payments, paymentsRemote, undefined, sourceAt(0));
  await until(() => gate.releases.length === 1);
  const ordersStarted = preservation.start(tp, REMOTE, undefined, sourceAt(0));
  await until(() => status.get(tp)?.preserved === true);
  gate.releases.shift()!();
  assert.equal(await paymentsStarted, 0);
  // Its first fetch finds an offset without a record (a transaction marker): it falls back at once.
  preservation.inspect(records([0, 1, 2, 4], payments), paymentsRemote);
  assert.equal(status.get(payments)?.preserved, false);
  gate.held = false;
  for (const release of gate.releases.splice(0)) release();
  assert.equal(await ordersStarted, 0);
  await lastValueFrom(preservation.flush(), { defaultValue: undefined });
  const last = commits
    .flat()
    .filter((o) => o.topic === paymentsRemote)
    .at(-1);
  assert.deepEqual(JSON.parse(last!.metadata), {
    preserved: false,
    reason: 'the source has no records at offsets 3 to 3 (compacted away, transaction markers, or records not written)',
  });
  assert.equal(last!.offset, 4);
});
