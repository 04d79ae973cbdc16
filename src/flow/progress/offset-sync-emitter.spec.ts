import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastValueFrom, of, throwError, type Observable } from '#rxjs';
import { OffsetSyncEmitter } from './offset-sync-emitter';
import { OffsetSyncWriter } from './offset-sync-writer';
import { decodeOffsetSync } from '../../formats';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';

function capturingWriter(): RecordWriter & { written: OutboundRecord[] } {
  const written: OutboundRecord[] = [];
  return {
    cluster: 'primary',
    written,
    write(records: readonly OutboundRecord[]): Observable<Float64Array> {
      written.push(...records);
      return of(new Float64Array(records.length));
    },
    close: async () => {},
  };
}

const tp = { topic: 'orders', partition: 0 };

test('every sync decided within one acknowledged batch is written, the first of the lifetime included', async () => {
  const writer = capturingWriter();
  const emitter = new OffsetSyncEmitter(new OffsetSyncWriter({ offsetLagMax: 10 }), {
    topic: 'mm2-offset-syncs.backup.internal',
    admin: {} as ClusterAdmin,
    writer,
    replicationFactor: 1,
  });
  // 25 records of one batch, source offsets 0..24 landing at 100..124: MM2 syncs at 0 (first of
  // the lifetime), then whenever the target moved lag_max past the last sync.
  for (let i = 0; i < 25; i++) emitter.record(tp, i, 100 + i);
  await lastValueFrom(emitter.emitPending(), { defaultValue: undefined });
  const syncs = writer.written.map((r) => decodeOffsetSync(r.key, r.value));
  assert.deepEqual(
    syncs.map((s) => [s.upstreamOffset, s.downstreamOffset]),
    [
      [0, 100],
      [11, 111],
      [22, 122],
    ],
  );
  assert.ok(writer.written.every((r) => r.partition === 0 && r.topic === 'mm2-offset-syncs.backup.internal'));
});

test('a flush sends the delayed sync of a partition that went quiet', async () => {
  const writer = capturingWriter();
  const emitter = new OffsetSyncEmitter(new OffsetSyncWriter({ offsetLagMax: 100 }), {
    topic: 'mm2-offset-syncs.backup.internal',
    admin: {} as ClusterAdmin,
    writer,
    replicationFactor: 1,
  });
  for (let i = 0; i < 5; i++) emitter.record(tp, i, i);
  await lastValueFrom(emitter.flush(), { defaultValue: undefined });
  const syncs = writer.written.map((r) => decodeOffsetSync(r.key, r.value));
  assert.deepEqual(
    syncs.map((s) => [s.upstreamOffset, s.downstreamOffset]),
    [
      [0, 0],
      [4, 4],
    ],
  );
});

test('a source log that restarts (offsets back to 0, the remote topic going on) gets a sync at once, not one of the old lifetime', async () => {
  const writer = capturingWriter();
  const emitter = new OffsetSyncEmitter(new OffsetSyncWriter({ offsetLagMax: 100 }), {
    topic: 'mm2-offset-syncs.backup.internal',
    admin: {} as ClusterAdmin,
    writer,
    replicationFactor: 1,
  });
  for (let i = 0; i < 10; i++) emitter.record(tp, i, i);
  // The topic was recreated: its records 0..2 land after the old copies, at 10..12.
  for (let i = 0; i < 3; i++) emitter.record(tp, i, 10 + i);
  await lastValueFrom(emitter.flush(), { defaultValue: undefined });
  const syncs = writer.written.map((r) => decodeOffsetSync(r.key, r.value));
  assert.deepEqual(
    syncs.map((s) => [s.upstreamOffset, s.downstreamOffset]),
    [
      [0, 0],
      [0, 10],
      [2, 12],
    ],
    'the new lifetime starts with a sync of its first record; the old delayed sync (9 -> 9) is replaced',
  );
});

test('syncs of a send that failed (their cluster down) are kept and go out with the next flush, in order', async () => {
  const writer = capturingWriter();
  let failing = true;
  const flaky: RecordWriter = {
    ...writer,
    write: (records) => (failing ? throwError(() => new Error('Connection error: connect ECONNREFUSED')) : writer.write(records)),
  };
  const emitter = new OffsetSyncEmitter(new OffsetSyncWriter({ offsetLagMax: 10 }), {
    topic: 'mm2-offset-syncs.backup.internal',
    admin: {} as ClusterAdmin,
    writer: flaky,
    replicationFactor: 1,
  });
  for (let i = 0; i < 12; i++) emitter.record(tp, i, 100 + i);
  await assert.rejects(lastValueFrom(emitter.emitPending(), { defaultValue: undefined }));
  failing = false;
  await lastValueFrom(emitter.flush(), { defaultValue: undefined });
  const syncs = writer.written.map((r) => decodeOffsetSync(r.key, r.value));
  assert.deepEqual(
    syncs.map((s) => [s.upstreamOffset, s.downstreamOffset]),
    [
      [0, 100],
      [11, 111],
    ],
    'the first sync of the lifetime, which translation needs, survived the failed send',
  );
});
