import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, type Observable, firstValueFrom, of, throwError } from '#rxjs';
import { CheckpointStore } from './checkpoint-store';
import { type Checkpoint, encodeCheckpointKey, encodeCheckpointValue } from '../../formats';
import type { TopicFollowEvent, TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord, DecodedSourceBatch } from '../../core/record';
import type { Logger } from '../../core/ports/logger';
import { KafkaTransportError } from '../../core/errors';

const TOPIC = 'source1.checkpoints.internal';

function cp(group: string, topic: string, partition: number, upstream: number, downstream: number, metadata = ''): Checkpoint {
  return { consumerGroupId: group, topicPartition: { topic, partition }, upstreamOffset: upstream, downstreamOffset: downstream, metadata };
}

function record(offset: number, key: Buffer | null, value: Buffer | null, partition = 0): KafkaRecord {
  return { topic: TOPIC, partition, offset, timestamp: 0, key, value, headers: [] };
}

const cpRecord = (offset: number, c: Checkpoint, partition = 0): KafkaRecord => record(offset, encodeCheckpointKey(c), encodeCheckpointValue(c), partition);

function reader(batches: Observable<DecodedSourceBatch>): TopicReader {
  return {
    cluster: 'target2',
    readToEnd: () => batches,
    follow: (): Observable<TopicFollowEvent> => EMPTY,
    recordAt: async () => undefined,
  };
}

function batch(records: KafkaRecord[], partition = 0): DecodedSourceBatch {
  return { kind: 'records', topic: TOPIC, partition, records, nextOffset: records.length, highWatermark: records.length, bytes: 0 };
}

function recordingLogger(): { logger: Logger; lines: { level: string; message: string; meta: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; meta: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (message: string, meta: Record<string, unknown> = {}) =>
      lines.push({ level, message, meta });
  const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => logger };
  return { logger, lines };
}

describe('CheckpointStore (MM2 CheckpointStoreTest)', () => {
  test('testReadCheckpointsTopic: the latest per group and partition wins; other groups and malformed records are left out', async () => {
    const { logger, lines } = recordingLogger();
    const records = [
      cpRecord(0, cp('group1', 't1', 0, 1, 1)),
      cpRecord(1, cp('group1', 't1', 0, 3, 2, 'meta')),
      cpRecord(2, cp('group2', 't1', 0, 3, 2)),
      record(3, Buffer.from([0, 1]), Buffer.alloc(20)), // key cut short
      record(4, encodeCheckpointKey(cp('group1', 't1', 1, 0, 0)), null), // tombstone
      cpRecord(5, cp('group1', 't1', 1, 4, 5)),
      cpRecord(6, cp('group3', 't9', 0, 9, 9)),
    ];
    const store = await firstValueFrom(
      CheckpointStore.read(reader(of(batch(records))), TOPIC, { acceptGroup: (g) => g === 'group1' || g === 'group2', logger }),
    );
    assert.deepEqual(store.groupIds().sort(), ['group1', 'group2']);
    assert.deepEqual(store.checkpoints('group1'), [cp('group1', 't1', 0, 3, 2, 'meta'), cp('group1', 't1', 1, 4, 5)]);
    assert.equal(store.size, 3);
    assert.equal(store.skippedRecords, 2);
    const warnings = lines.filter((l) => l.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.message, 'Skipped malformed checkpoint records.');
    assert.deepEqual([warnings[0]!.meta['skipped'], warnings[0]!.meta['firstOffset']], [2, 3]);
  });

  test('reads partition 0 only, as MM2 does', async () => {
    const store = await firstValueFrom(
      CheckpointStore.read(reader(of(batch([cpRecord(0, cp('g', 't', 0, 5, 5))]), batch([cpRecord(0, cp('g', 't', 1, 7, 7), 1)], 1))), TOPIC),
    );
    assert.deepEqual(store.checkpoints('g'), [cp('g', 't', 0, 5, 5)]);
  });

  test('testReadCheckpointsTopicError: a failed load leaves the store empty and reports it', async () => {
    const { logger, lines } = recordingLogger();
    const failing = reader(throwError(() => new KafkaTransportError('target2', 'TOPIC_AUTHORIZATION_FAILED', false)));
    const { store, loaded } = await firstValueFrom(CheckpointStore.load(failing, TOPIC, { logger }));
    assert.equal(loaded, false);
    assert.equal(store.size, 0);
    assert.equal(lines.filter((l) => l.level === 'warn').length, 1);
    const ok = await firstValueFrom(CheckpointStore.load(reader(EMPTY), TOPIC));
    assert.equal(ok.loaded, true);
  });

  test('checkpointIsMoreRecent: first, upstream rewind, downstream advance and upstream advance are written; repeats and downstream rewinds are not', () => {
    const store = new CheckpointStore();
    assert.equal(store.decide(cp('g', 't', 0, 10, 5)), 'first-for-group');
    store.update([cp('g', 't', 0, 10, 5)]);
    assert.equal(store.decide(cp('g', 't', 1, 10, 5)), 'first-for-partition');
    assert.equal(store.decide(cp('g', 't', 0, 10, 5)), 'repeated');
    // The group moved on between two offset syncs: its translation stays, the checkpoint says where it is.
    assert.equal(store.decide(cp('g', 't', 0, 12, 5)), 'upstream-advanced');
    // Never back while the group does not go back: the sync store's precision changed, not the group.
    assert.equal(store.decide(cp('g', 't', 0, 12, 4)), 'downstream-rewind');
    assert.equal(store.decide(cp('g', 't', 0, 10, 4)), 'downstream-rewind');
    assert.equal(store.decide(cp('g', 't', 0, 12, 6)), 'downstream-advanced');
    assert.equal(store.decide(cp('g', 't', 0, 9, 1)), 'upstream-rewind');
    assert.equal(store.isMoreRecent(cp('g', 't', 0, 9, 1)), true);
    assert.equal(store.isMoreRecent(cp('g', 't', 0, 10, 4)), false);
  });

  test("computeConvertedUpstreamOffset: each checkpoint's downstream offset and metadata, per group", () => {
    const store = new CheckpointStore();
    store.update([cp('c1', 'topic1', 0, 200, 101, 'metadata'), cp('c2', 'topic2', 0, 100, 51, 'metadata')]);
    assert.deepEqual(Object.fromEntries(store.convertedOffsets()), {
      c1: [{ topic: 'topic1', partition: 0, offset: 101, metadata: 'metadata' }],
      c2: [{ topic: 'topic2', partition: 0, offset: 51, metadata: 'metadata' }],
    });
  });
});
