import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecordFailedError } from '../../core/errors';
import type { DecodedFlowBatch, KafkaRecord, MirrorRecord, RecordFailure, RecordHeader } from '../../core/record';
import { PROVENANCE_HEADER } from '../../formats';
import { FlowStatus } from '../status/flow-status';
import { ProvenanceCounts } from '../status/provenance-counts';
import { LogLifetimes } from './log-lifetimes';
import { Mirror, type MirrorParts } from './mirror';
import { RecordProvenance } from './record-provenance';

const came = (path: string, offset: number): RecordHeader => ({ key: PROVENANCE_HEADER, value: Buffer.from(`1|${path}|orders|0|${offset}`) });

function record(offset: number, headers: readonly RecordHeader[] = []): KafkaRecord {
  return { topic: 'orders', partition: 0, offset, timestamp: 1000 + offset, key: Buffer.from(`k${offset}`), value: Buffer.from(`v${offset}`), headers };
}

function mirror(transform: MirrorParts['transform'], errorTolerance: 'none' | 'all' = 'none'): { mirror: Mirror; status: FlowStatus } {
  const status = new FlowStatus('b', 'a');
  status.provenance = new ProvenanceCounts();
  const m = new Mirror({
    names: { remote: (topic) => topic },
    partitions: { fetched: () => 0 },
    lifetimes: new LogLifetimes(),
    writePath: { fetched: () => undefined },
    transform,
    errorTolerance,
    provenance: new RecordProvenance({ source: 'b', target: 'a' }),
    status,
  });
  return { mirror: m, status };
}

const batch = (records: readonly KafkaRecord[]) =>
  ({ kind: 'records', topic: 'orders', partition: 0, records, nextOffset: records.at(-1)!.offset + 1, highWatermark: 100, bytes: 10 }) as const;

describe('Mirror with provenance headers', () => {
  it('leaves loops out before the transforms and counts them apart from what the transforms drop', () => {
    const seen: number[] = [];
    const { mirror: m, status } = mirror((records) => {
      seen.push(...records.map((r) => r.source.offset));
      return records.filter((r) => r.source.offset !== 3);
    });
    const out = m.mirror(batch([record(0, [came('a>b', 7)]), record(1), record(2, [came('c>b', 9)]), record(3)])) as DecodedFlowBatch;
    assert.deepEqual(seen, [1, 2, 3], 'the record that came from the target is not transformed');
    assert.deepEqual(
      out.records.map((r) => r.headers.at(-1)!.value!.toString()),
      ['1|b>a|orders|0|1', '1|c>b>a|orders|0|9'],
    );
    assert.deepEqual(out.provenance, { loops: 1, duplicates: 0, unchecked: 0 });
    status.recordWrite([out], 0);
    assert.equal(status.recordsDropped, 1, "the transform's drop");
    assert.deepEqual([status.provenance!.loops, status.provenance!.duplicates], [1, 0]);
  });

  it('counts only the skips before a record that stops the flow', () => {
    const fail = (records: readonly MirrorRecord[], failures?: RecordFailure[]): readonly MirrorRecord[] => {
      const failing = records.find((r) => r.source.offset === 3)!;
      failures!.push({
        record: failing,
        error: new RecordFailedError(failing.source, { kind: 'transform', plugin: 'x', step: 'flows[0].transforms[0]' }, 'no'),
      });
      return records.filter((r) => r !== failing);
    };
    const { mirror: m } = mirror(fail);
    const out = m.mirror(batch([record(0, [came('a>b', 7)]), record(1), record(2), record(3), record(4, [came('a>b', 8)])])) as DecodedFlowBatch;
    assert.equal(out.nextOffset, 3);
    assert.equal(out.sourceRecords, 3);
    assert.deepEqual(
      out.records.map((r) => r.source.offset),
      [1, 2],
    );
    assert.deepEqual(out.provenance, { loops: 1, duplicates: 0, unchecked: 0 });
  });
});
