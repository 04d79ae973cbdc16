/**
 * Confluent's wire format for Schema Registry serializers (Avro, JSON Schema, Protobuf): a magic
 * byte 0, the schema id as a 4-byte big-endian int, then the serializer's payload (for Protobuf,
 * message indexes come first; they do not depend on the id). Only the framing is read here; the
 * payload is never decoded.
 */
export const CONFLUENT_MAGIC_BYTE = 0;
export const CONFLUENT_HEADER_BYTES = 5;

/** The schema id of a framed key or value; undefined when the bytes are not in the wire format. */
export function confluentSchemaId(bytes: Buffer | null): number | undefined {
  if (bytes === null || bytes.length < CONFLUENT_HEADER_BYTES || bytes[0] !== CONFLUENT_MAGIC_BYTE) return undefined;
  return bytes.readInt32BE(1);
}

/** A copy of framed bytes with another schema id; the payload is copied unchanged. */
export function withConfluentSchemaId(bytes: Buffer, id: number): Buffer {
  if (confluentSchemaId(bytes) === undefined) throw new RangeError('not in the Confluent wire format');
  const copy = Buffer.from(bytes);
  copy.writeInt32BE(id, 1);
  return copy;
}
