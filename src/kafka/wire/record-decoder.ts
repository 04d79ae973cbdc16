/**
 * Decoder for one record of a v2 record batch, installed in place of kafkajs's own.
 *
 *   Record =>
 *     Length         varint
 *     Attributes     int8 (unused)
 *     TimestampDelta varlong
 *     OffsetDelta    varint
 *     Key            varint length (-1 = null) + bytes
 *     Value          varint length (-1 = null) + bytes
 *     Headers        varint count, then [varint key length + UTF-8 key, varint value length (-1 = null) + bytes]
 *
 * Why replace kafkajs's decoder: it folds headers into an object, which loses the order of
 * headers with different keys (a, b, a comes back as a, a, b), and it decodes each header with
 * a promise. Replication must copy headers exactly, so this decoder keeps them as an ordered
 * list of `{ key, value }`. Offsets and timestamps stay decimal strings, as kafkajs's consumer
 * expects them.
 */
import type { RecordHeader } from '../../core/record';
import type { KafkajsDecoder } from './kafkajs-internals';

export interface RecordBatchContext {
  readonly firstOffset: string;
  readonly firstTimestamp: string;
  readonly maxTimestamp?: string;
  readonly magicByte?: number;
  readonly isControlBatch?: boolean;
  readonly timestampType?: number;
}

export interface DecodedRecord {
  readonly magicByte: number | undefined;
  readonly attributes: number;
  readonly timestamp: string;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: RecordHeader[];
  readonly isControlRecord: boolean;
  readonly batchContext: RecordBatchContext;
}

const LOG_APPEND_TIME = 1;

/** Reads a zigzag varint of up to 64 bits as a JS number (exact up to 2^53). */
export function readVarLongNumber(decoder: KafkajsDecoder): number {
  const buffer = decoder.buffer;
  let offset = decoder.offset;
  let result = 0;
  let scale = 1;
  let byte: number;
  do {
    if (offset >= buffer.length) throw new RangeError('Truncated varlong in record.');
    byte = buffer[offset++]!;
    result += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte >= 0x80);
  decoder.offset = offset;
  return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
}

function readBytes(decoder: KafkajsDecoder): Buffer | null {
  const length = decoder.readVarInt();
  if (length < 0) return null;
  const start = decoder.offset;
  decoder.offset = start + length;
  return decoder.buffer.subarray(start, start + length);
}

export function decodeRecord(decoder: KafkajsDecoder, batchContext: RecordBatchContext): DecodedRecord {
  const attributes = decoder.readInt8();
  const timestampDelta = readVarLongNumber(decoder);
  const offsetDelta = decoder.readVarInt();
  const key = readBytes(decoder);
  const value = readBytes(decoder);
  const headerCount = decoder.readVarInt();
  const headers: RecordHeader[] = new Array<RecordHeader>(Math.max(headerCount, 0));
  for (let i = 0; i < headerCount; i++) {
    const keyBytes = readBytes(decoder);
    headers[i] = { key: keyBytes === null ? '' : keyBytes.toString('utf8'), value: readBytes(decoder) };
  }
  const timestamp =
    batchContext.timestampType === LOG_APPEND_TIME && batchContext.maxTimestamp !== undefined
      ? batchContext.maxTimestamp
      : String(Number(batchContext.firstTimestamp) + timestampDelta);
  return {
    magicByte: batchContext.magicByte,
    attributes,
    timestamp,
    offset: String(Number(batchContext.firstOffset) + offsetDelta),
    key,
    value,
    headers,
    isControlRecord: batchContext.isControlBatch === true,
    batchContext,
  };
}
