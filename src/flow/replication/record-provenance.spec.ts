import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MirrorRecord, RecordHeader } from '../../core/record';
import { PROVENANCE_HEADER } from '../../formats';
import { DiamondWindow } from './diamond-window';
import { RecordProvenance } from './record-provenance';

const header = (text: string): RecordHeader => ({ key: PROVENANCE_HEADER, value: Buffer.from(text, 'latin1') });

function record(offset: number, headers: readonly RecordHeader[] = [], topic = 'orders'): MirrorRecord {
  return { source: { topic, partition: 2, offset }, topic, partition: 2, timestamp: 1000 + offset, key: Buffer.from(`k${offset}`), value: null, headers };
}

/** admit, no transforms, stamp: what a flow without transforms writes. */
function through(provenance: RecordProvenance, records: readonly MirrorRecord[]) {
  const admitted = provenance.admit(records);
  const stamped = provenance.stamp(admitted, admitted.records);
  return { loops: admitted.loops, ...stamped, texts: stamped.records.map((r) => r.headers.at(-1)!.value!.toString('latin1')) };
}

describe('RecordProvenance', () => {
  it("starts a header on a record produced on the source, after the producer's own headers, changing nothing else", () => {
    const own: RecordHeader[] = [
      { key: 'b', value: Buffer.from('1') },
      { key: 'a', value: null },
      { key: 'b', value: Buffer.from('2') },
    ];
    const source = record(41, own);
    const { records, texts, loops, duplicates } = through(new RecordProvenance({ source: 'west', target: 'east' }), [source]);
    assert.deepEqual(texts, ['1|west>east|orders|2|41']);
    assert.equal(loops, 0);
    assert.equal(duplicates, 0);
    const [written] = records;
    assert.deepEqual(written!.headers.slice(0, -1), own);
    assert.equal(written!.headers.at(-1)!.key, PROVENANCE_HEADER);
    assert.deepEqual({ ...written!, headers: own }, source);
    assert.deepEqual(source.headers, own, 'the source record is not changed');
  });

  it('drops a record whose path holds the target, however many hops ago', () => {
    const provenance = new RecordProvenance({ source: 'c', target: 'a' });
    const { records, loops, texts } = through(provenance, [
      record(0, [header('1|a>b>c|orders|2|7')]),
      record(1, [header('1|b>c|orders|2|9')]),
      record(2),
      record(3, [header('1|b>a>c|orders|2|3')]),
    ]);
    assert.equal(loops, 2);
    assert.deepEqual(
      records.map((r) => r.source.offset),
      [1, 2],
    );
    // The path grows by the target; the origin stays.
    assert.deepEqual(texts, ['1|b>c>a|orders|2|9', '1|c>a|orders|2|2']);
  });

  it("replaces only its own header, the last one: a producer's header of that name elsewhere stays", () => {
    const producers = { key: PROVENANCE_HEADER, value: Buffer.from('not ours') };
    const provenance = new RecordProvenance({ source: 'b', target: 'c' });
    const { records } = through(provenance, [record(5, [producers, { key: 'x', value: null }, header('1|a>b|orders|2|50')])]);
    assert.deepEqual(
      records[0]!.headers.map((h) => [h.key, h.value?.toString('latin1') ?? null]),
      [
        [PROVENANCE_HEADER, 'not ours'],
        ['x', null],
        [PROVENANCE_HEADER, '1|a>b>c|orders|2|50'],
      ],
    );
    // A last header that does not parse is the producer's, kept; ours goes after it.
    const { texts, records: kept } = through(provenance, [record(6, [producers])]);
    assert.deepEqual(texts, ['1|b>c|orders|2|6']);
    assert.equal(kept[0]!.headers.length, 2);
  });

  it('adds the source to a header a copy without provenance passed on as it was', () => {
    const { texts } = through(new RecordProvenance({ source: 'c', target: 'd' }), [record(0, [header('1|a>b|orders|2|7')])]);
    assert.deepEqual(texts, ['1|a>b>c>d|orders|2|7']);
  });

  it('hands the transforms the records without the header, and stamps what they return by source offset', () => {
    const provenance = new RecordProvenance({ source: 'b', target: 'c' });
    const admitted = provenance.admit([record(0, [header('1|a>b|orders|2|70')]), record(1), record(2, [header('1|a>b|orders|2|71')])]);
    assert.ok(admitted.records.every((r) => r.headers.length === 0));
    // A transform that drops the middle record and renames the others.
    const transformed = admitted.records.filter((r) => r.source.offset !== 1).map((r) => ({ ...r, topic: 'renamed' }));
    const stamped = provenance.stamp(admitted, transformed);
    assert.deepEqual(
      stamped.records.map((r) => [r.topic, r.headers.at(-1)!.value!.toString('latin1')]),
      [
        ['renamed', '1|a>b>c|orders|2|70'],
        ['renamed', '1|a>b>c|orders|2|71'],
      ],
    );
  });

  it('writes a diamond once: the second flow into the target drops the origin records the first delivered', () => {
    const window = new DiamondWindow();
    const viaB = new RecordProvenance({ source: 'b', target: 'd' }, window.claimer('b->d', 100));
    const viaC = new RecordProvenance({ source: 'c', target: 'd' }, window.claimer('c->d', 100));
    const fromA = (offset: number, via: string, at: number) => record(at, [header(`1|a>${via}|orders|2|${offset}`)]);
    const first = through(viaB, [fromA(0, 'b', 10), fromA(1, 'b', 11), record(12)]);
    assert.equal(first.records.length, 3);
    const second = through(viaC, [fromA(0, 'c', 20), record(21), fromA(1, 'c', 22), fromA(2, 'c', 23)]);
    assert.equal(second.duplicates, 2);
    assert.deepEqual(second.texts, ['1|c>d|orders|2|21', '1|a>c>d|orders|2|2']);
    // b delivers 2 late: c has it already. Its own records it writes again when it reads them again.
    const late = through(viaB, [fromA(2, 'b', 13), fromA(0, 'b', 10)]);
    assert.equal(late.duplicates, 1);
    assert.deepEqual(late.texts, ['1|a>b>d|orders|2|0']);
  });
});
