/**
 * Confluent's wire format for Protobuf (its KafkaProtobufSerializer and ProtobufConverter): the
 * magic byte 0, the schema id as a 4-byte big-endian int, then the message indexes, then the
 * Protobuf binary of the message. The indexes say which message of the schema's file the bytes
 * are: a count, then that many indexes, each a zig-zag varint; `[1, 0]` is the first message
 * declared inside the second top-level message. The count 0 (the single byte 0) stands for `[0]`,
 * the file's first message, which is what serializers write for it.
 */
import { ConnectDataError } from './connect-value';

const ID_END = 5;
/** A varint of a 32-bit value takes at most five bytes. */
const MAX_VARINT_BYTES = 5;
/** More indexes than this is not a message path of any real schema: the bytes are not this format. */
const MAX_INDEXES = 64;

export interface ProtobufFrame {
  readonly id: number;
  readonly indexes: readonly number[];
  /** Where the message's Protobuf binary starts. */
  readonly bodyStart: number;
}

/** The schema id and message indexes of framed bytes; a ConnectDataError when they are not framed so. */
export function readProtobufFrame(bytes: Buffer): ProtobufFrame {
  if (bytes.length < ID_END || bytes[0] !== 0) {
    throw new ConnectDataError("it is not in Confluent's wire format (magic byte 0 and a 4-byte schema id), which the protobuf converter reads");
  }
  const id = bytes.readInt32BE(1);
  let at = ID_END;
  const next = (): number => {
    const [value, end] = readZigZag(bytes, at, id);
    at = end;
    return value;
  };
  const count = next();
  if (count < 0 || count > MAX_INDEXES) throw badIndexes(id);
  if (count === 0) return { id, indexes: [0], bodyStart: at };
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) {
    const index = next();
    if (index < 0) throw badIndexes(id);
    indexes.push(index);
  }
  return { id, indexes, bodyStart: at };
}

/** The wire format of a message of index `[0]` (the file's first message): magic byte, id, the single byte 0, the body. */
export function frameFirstMessage(id: number, body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(ID_END + 1 + body.length);
  out[0] = 0;
  out.writeInt32BE(id, 1);
  out[ID_END] = 0;
  out.set(body, ID_END + 1);
  return out;
}

/** The zig-zag varint at `start` and where it ends. */
function readZigZag(bytes: Buffer, start: number, id: number): [number, number] {
  let raw = 0;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    const byte = bytes[start + i];
    if (byte === undefined) throw badIndexes(id);
    raw |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [(raw >>> 1) ^ -(raw & 1), start + i + 1];
  }
  throw badIndexes(id);
}

function badIndexes(id: number): ConnectDataError {
  return new ConnectDataError(
    `its message indexes (after schema id ${id}) are not zig-zag varints of a message path, as Confluent's Protobuf serializers write them`,
  );
}
