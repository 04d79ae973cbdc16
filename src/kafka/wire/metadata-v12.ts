/**
 * Metadata v12 (KIP-516 topic ids; Kafka 3.1+), which kafkajs does not speak (its newest is v6):
 * mirrorflow sends it through a kafkajs broker connection to learn topic ids, so that a topic
 * deleted and created again under the same name is recognised.
 *
 *   Request header v2  => api_key INT16 | api_version INT16 | correlation_id INT32
 *                         | client_id NULLABLE_STRING (int16 length) | TAG_BUFFER
 *   Metadata Request (v12) => topics allow_auto_topic_creation include_topic_authorized_operations TAG_BUFFER
 *     topics   => COMPACT_NULLABLE_ARRAY of (topic_id UUID | name COMPACT_NULLABLE_STRING | TAG_BUFFER)
 *     allow_auto_topic_creation => BOOLEAN
 *     include_topic_authorized_operations => BOOLEAN
 *
 *   Response header v1 => correlation_id INT32 | TAG_BUFFER
 *   Metadata Response (v12) => throttle_time_ms brokers cluster_id controller_id topics TAG_BUFFER
 *     throttle_time_ms => INT32
 *     brokers  => COMPACT_ARRAY of (node_id INT32 | host COMPACT_STRING | port INT32 | rack COMPACT_NULLABLE_STRING | TAG_BUFFER)
 *     cluster_id => COMPACT_NULLABLE_STRING
 *     controller_id => INT32
 *     topics   => COMPACT_ARRAY of (error_code INT16 | name COMPACT_NULLABLE_STRING | topic_id UUID
 *                 | is_internal BOOLEAN | partitions | topic_authorized_operations INT32 | TAG_BUFFER)
 *     partitions => COMPACT_ARRAY of (error_code INT16 | partition_index INT32 | leader_id INT32
 *                 | leader_epoch INT32 | replica_nodes COMPACT_ARRAY INT32 | isr_nodes COMPACT_ARRAY INT32
 *                 | offline_replicas COMPACT_ARRAY INT32 | TAG_BUFFER)
 *
 * COMPACT_* lengths are unsigned varints of length + 1 (0 = null); a TAG_BUFFER is an unsigned
 * varint count of (tag UVARINT | size UVARINT | size bytes); UUID is 16 bytes. kafkajs's connection
 * reads the size and correlation id and hands over the rest, which starts at the response
 * header's TAG_BUFFER. request-frame.ts writes header v2 for requests marked `flexible`.
 */
import { kafkajsApiKeys } from './kafkajs-internals';
import { CompactReader, flexibleRequest, uvarint } from './compact-codec';

export const METADATA_V12 = 12;

export interface MetadataV12Partition {
  readonly errorCode: number;
  readonly partition: number;
  readonly leader: number;
  /** How many replicas the partition has (its replication factor). */
  readonly replicas: number;
}

export interface MetadataV12Topic {
  readonly errorCode: number;
  readonly name: string | null;
  /** Kafka's textual form of the id (URL-safe base64 without padding, as `kafka-topics.sh` prints it). */
  readonly topicId: string;
  readonly isInternal: boolean;
  readonly partitions: readonly MetadataV12Partition[];
}

export interface MetadataV12Response {
  readonly throttleTimeMs: number;
  readonly brokers: readonly { readonly nodeId: number; readonly host: string; readonly port: number; readonly rack: string | null }[];
  readonly clusterId: string | null;
  readonly controllerId: number;
  readonly topics: readonly MetadataV12Topic[];
}

/** The zero UUID: what Kafka sends for a topic it knows no id of (or names a topic by). */
export const ZERO_TOPIC_ID = Buffer.alloc(16).toString('base64url');

/** The request body for `topics` by name (an empty list asks for no topic), or for every topic when not given. */
export function encodeMetadataV12Request(topics: readonly string[] | undefined): Buffer {
  // A null array (0 on the wire) asks for every topic.
  const parts: Buffer[] = [Buffer.from(uvarint(topics === undefined ? 0 : topics.length + 1))];
  for (const topic of topics ?? []) {
    const name = Buffer.from(topic, 'utf8');
    parts.push(Buffer.alloc(16), Buffer.from(uvarint(name.length + 1)), name, Buffer.from([0]));
  }
  // allow_auto_topic_creation false, include_topic_authorized_operations false, no tagged fields.
  parts.push(Buffer.from([0, 0, 0]));
  return Buffer.concat(parts);
}

/** Decodes what kafkajs's connection hands over after the correlation id: header tagged fields, then the body. */
export function decodeMetadataV12Response(payload: Buffer): MetadataV12Response {
  const r = new CompactReader(payload, 'Metadata v12 response');
  r.skipTaggedFields();
  const throttleTimeMs = r.int32();
  const brokers = r.compactArray(() => {
    const broker = { nodeId: r.int32(), host: r.compactString() ?? '', port: r.int32(), rack: r.compactString() };
    r.skipTaggedFields();
    return broker;
  });
  const clusterId = r.compactString();
  const controllerId = r.int32();
  const topics = r.compactArray((): MetadataV12Topic => {
    const errorCode = r.int16();
    const name = r.compactString();
    const topicId = r.uuid();
    const isInternal = r.int8() !== 0;
    const partitions = r.compactArray((): MetadataV12Partition => {
      const errorCode = r.int16();
      const partition = r.int32();
      const leader = r.int32();
      r.int32(); // leader_epoch
      // Counted and skipped, not read into arrays: an answer of 19,000 partitions made 57,000
      // short-lived arrays (about 12 MiB) at every topic refresh.
      const replicas = r.skipCompactInt32Array();
      r.skipCompactInt32Array(); // isr
      r.skipCompactInt32Array(); // offline_replicas
      r.skipTaggedFields();
      return { errorCode, partition, leader, replicas };
    });
    r.int32(); // topic_authorized_operations
    r.skipTaggedFields();
    return { errorCode, name, topicId, isInternal, partitions };
  });
  r.skipTaggedFields();
  return { throttleTimeMs, brokers, clusterId, controllerId, topics };
}

/** A Metadata v12 request for `topics` (every topic when not given), for a kafkajs broker connection's `send`. */
export function metadataV12Request(topics: readonly string[] | undefined) {
  return flexibleRequest(
    { apiKey: kafkajsApiKeys().Metadata, apiVersion: METADATA_V12, apiName: 'Metadata' },
    () => ({ buffer: encodeMetadataV12Request(topics) }),
    decodeMetadataV12Response,
  );
}
