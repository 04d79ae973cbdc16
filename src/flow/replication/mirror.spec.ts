import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, firstValueFrom, isObservable, of } from '#rxjs';
import type { FlowBatch, ForwardedSourceBatch, MirrorRecord } from '../../core/record';
import { FlowStatus } from '../status/flow-status';
import { LogLifetimes } from './log-lifetimes';
import { Mirror } from './mirror';
import type { SchemaIdTranslation } from './schema-id-translation';

function mirror(schemaIds?: SchemaIdTranslation) {
  const fetched: string[] = [];
  const lifetimes = new LogLifetimes();
  const parts = {
    names: { remote: (topic: string) => `primary.${topic}` },
    partitions: { fetched: () => 0 },
    lifetimes,
    writePath: { fetched: (_batch: unknown, remote: string) => void fetched.push(remote) },
    transform: (records: readonly MirrorRecord[]) => records,
    errorTolerance: 'none' as const,
    status: new FlowStatus('primary', 'backup'),
    ...(schemaIds === undefined ? {} : { schemaIds }),
  };
  return { mirror: new Mirror(parts), fetched, lifetimes };
}

test('whole record batches are forwarded under the remote topic, as fetched', () => {
  const { mirror: m, fetched } = mirror();
  const batch: ForwardedSourceBatch = {
    kind: 'batches',
    topic: 'orders',
    partition: 1,
    recordBatches: [
      { baseOffset: 10, recordCount: 3, compressed: true, maxTimestamp: 5, bytes: Buffer.alloc(40) },
      { baseOffset: 13, recordCount: 2, compressed: true, maxTimestamp: 6, bytes: Buffer.alloc(30) },
    ],
    nextOffset: 15,
    highWatermark: 20,
    bytes: 70,
  };
  const out = m.mirror(batch);
  assert.equal(out.kind, 'batches');
  assert.deepEqual(out.source, { topic: 'orders', partition: 1 });
  assert.deepEqual(out.kind === 'batches' ? out.recordBatches.map((b) => [b.topic, b.partition, b.batch.baseOffset]) : [], [
    ['primary.orders', 1, 10],
    ['primary.orders', 1, 13],
  ]);
  assert.deepEqual([out.nextOffset, out.highWatermark, out.bytes, out.sourceRecords], [15, 20, 70, 5]);
  assert.deepEqual(fetched, ['primary.orders']);
  assert.equal(m.withWriterSchemas, undefined);
  assert.equal(m.translateSchemaIds, undefined);
});

test("schema ids are translated on decoded batches only, the answer keeping the batch's lifetime; forwarded ones pass", async () => {
  const decoded = {
    kind: 'records',
    source: { topic: 'orders', partition: 0 },
    records: [],
    nextOffset: 1,
    highWatermark: 1,
    bytes: 0,
    sourceRecords: 0,
  } as FlowBatch;
  const translated = { ...decoded, bytes: 1 } as FlowBatch;
  const later = { ...decoded, bytes: 2 } as FlowBatch;
  let answer: FlowBatch | Observable<FlowBatch> = translated;
  const schemaIds = { translate: () => answer } as unknown as SchemaIdTranslation;
  const { mirror: m } = mirror(schemaIds);
  assert.equal(m.translateSchemaIds!(decoded), translated, 'answered at once: the ids were known');
  answer = of(later);
  const asked = m.translateSchemaIds!(decoded);
  assert.ok(isObservable(asked));
  assert.equal(await firstValueFrom(asked), later, 'answered once the registries were asked');
  const forwarded = { ...decoded, kind: 'batches', recordBatches: [] } as unknown as FlowBatch;
  assert.equal(m.translateSchemaIds!(forwarded), forwarded);
});
