/**
 * Digests of the records of one fetched v2 record batch, read straight from its bytes: no object
 * per record, nothing kept. What `mirrorflow verify` compares (../../core/record-digest.ts takes
 * the same digest of a decoded record).
 *
 *   Record => Length varint, Attributes int8, TimestampDelta varlong, OffsetDelta varint,
 *             Key (varint length, -1 null), Value (likewise),
 *             Headers varint count, then [key (varint length, UTF-8), value (varint length, -1 null)]
 *
 * Varints are zigzag-encoded (Kafka's ByteUtils.readVarint / readVarlong).
 */
import { RawDigest } from '../../core/record-digest';
import { BASE_TIMESTAMP_OFFSET, BATCH_HEADER_BYTES, CODEC_MASK, ATTRIBUTES_OFFSET, RECORD_COUNT_OFFSET } from '../wire/record-batch-layout';
import { kafkajsLookupCodec } from '../wire/kafkajs-internals';

/** Where digests go: offsets[i] and digests[2i], digests[2i + 1], from `count` on. */
export interface DigestSink {
  count: number;
  offsets: Float64Array;
  digests: Uint32Array;
}

/** Records a batch holds, from its header (capacity for a sink). */
export function batchRecordCount(batch: Buffer): number {
  return batch.readInt32BE(RECORD_COUNT_OFFSET);
}

/** The records section of a batch, decompressed when the batch is compressed. */
export async function batchRecords(batch: Buffer): Promise<Buffer> {
  const codec = batch.readInt16BE(ATTRIBUTES_OFFSET) & CODEC_MASK;
  const records = batch.subarray(BATCH_HEADER_BYTES);
  return codec === 0 ? records : kafkajsLookupCodec()(codec).decompress(records);
}

let position = 0;

function varint(buffer: Buffer): number {
  let result = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = buffer[position++]!;
    result |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte >= 0x80 && shift < 35);
  return (result >>> 1) ^ -(result & 1);
}

/** A zigzag varlong as a JS number (exact up to 2^53). */
function varlong(buffer: Buffer): number {
  let result = 0;
  let scale = 1;
  let byte: number;
  do {
    byte = buffer[position++]!;
    result += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte >= 0x80);
  return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
}

/**
 * Adds the digest of each record of `batch` (whose records section is `records`) with an offset
 * in [from, to) to `sink`; `countOnly` writes 0 digests (only counts are compared).
 */
export function digestBatch(batch: Buffer, records: Buffer, from: number, to: number, sink: DigestSink, countOnly: boolean): void {
  const baseOffset = Number(batch.readBigInt64BE(0));
  const baseTimestamp = Number(batch.readBigInt64BE(BASE_TIMESTAMP_OFFSET));
  const count = batchRecordCount(batch);
  position = 0;
  for (let r = 0; r < count && position < records.length; r++) {
    const length = varint(records);
    const end = position + length;
    position++; // attributes
    const timestamp = baseTimestamp + varlong(records);
    const offset = baseOffset + varint(records);
    if (offset < from || offset >= to) {
      position = end;
      continue;
    }
    const at = sink.count++;
    sink.offsets[at] = offset;
    if (countOnly) {
      sink.digests[2 * at] = 0;
      sink.digests[2 * at + 1] = 0;
      position = end;
      continue;
    }
    const d = RawDigest.begin(timestamp);
    const keyLength = varint(records);
    d.bytes(records, position, keyLength);
    if (keyLength > 0) position += keyLength;
    const valueLength = varint(records);
    d.bytes(records, position, valueLength);
    if (valueLength > 0) position += valueLength;
    const headers = varint(records);
    d.word(headers);
    for (let h = 0; h < headers; h++) {
      const headerKeyLength = varint(records);
      // A null header key reads as '' (record-decoder.ts): the same words.
      d.bytes(records, position, Math.max(0, headerKeyLength));
      if (headerKeyLength > 0) position += headerKeyLength;
      const headerValueLength = varint(records);
      d.bytes(records, position, headerValueLength);
      if (headerValueLength > 0) position += headerValueLength;
    }
    d.end(sink.digests, at);
    position = end;
  }
}
