/**
 * MM2's source offsets in Kafka Connect's offsets topic (`mm2-offsets.<source>.internal`, on the
 * target cluster): what lets a user switch between MM2 and mirrorflow without re-replicating.
 *
 *   key    JSON  ["<connector>",{<source partition map>}]   compact, no whitespace
 *   value  JSON  {"offset":<n>}                               null bytes = tombstone (offset removed)
 *
 * Field order is Java `HashMap` iteration order of MM2's maps (checked with Kafka 4.3.1):
 *   MirrorSourceConnector      {"cluster":"A","partition":0,"topic":"orders"}     offset = last replicated source offset
 *   MirrorCheckpointConnector  {"partition":0,"topic":"A.orders","group":"g1"}    offset = 0 (unused)
 *   MirrorHeartbeatConnector   {"sourceClusterAlias":"A","targetClusterAlias":"B"} offset = 0 (unused)
 *
 * Strings are escaped as Connect's JsonConverter (Jackson) does: `\"`, `\\`, `\b \f \n \r \t`,
 * other controls and every UTF-16 surrogate as `\uXXXX` with upper-case hex; all else raw UTF-8.
 * Connect finds offsets by the exact key bytes; the producer puts a key on partition
 * toPositive(murmur2(key)) % partitions (25 by default).
 */
import { partitionForKey } from './murmur2';
import { RecordFormatError } from './record-format-error';

export const MIRROR_SOURCE_CONNECTOR = 'MirrorSourceConnector';
export const MIRROR_CHECKPOINT_CONNECTOR = 'MirrorCheckpointConnector';
export const MIRROR_HEARTBEAT_CONNECTOR = 'MirrorHeartbeatConnector';
/** Connect's `offset.storage.partitions` default, used for `mm2-offsets.<source>.internal`. */
export const DEFAULT_OFFSETS_TOPIC_PARTITIONS = 25;

/** Source partition of MirrorSourceConnector: one source topic-partition of one flow. */
export interface SourceOffsetPartition {
  /** The source cluster's alias. */
  readonly sourceClusterAlias: string;
  /** The source topic (not renamed). */
  readonly topic: string;
  readonly partition: number;
}

/** Source partition of MirrorCheckpointConnector: one group on one target-side topic-partition. */
export interface CheckpointOffsetPartition {
  readonly consumerGroupId: string;
  /** The target-side (renamed) topic. */
  readonly topic: string;
  readonly partition: number;
}

/** Source partition of MirrorHeartbeatConnector. */
export interface HeartbeatOffsetPartition {
  readonly sourceClusterAlias: string;
  readonly targetClusterAlias: string;
}

/** A JSON value as `JSON.parse` returns it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Any Connect offsets-topic key: the connector's name and its source-partition map. */
export interface ConnectOffsetKey {
  readonly connector: string;
  /** Connect allows a null partition map; MM2 never writes one. */
  readonly partition: { readonly [key: string]: JsonValue } | null;
}

export function encodeSourceOffsetKey(p: SourceOffsetPartition, connector: string = MIRROR_SOURCE_CONNECTOR): Buffer {
  checkPartition(p.partition);
  return json(`[${jsonString(connector)},{"cluster":${jsonString(p.sourceClusterAlias)},"partition":${p.partition},"topic":${jsonString(p.topic)}}]`);
}

export function encodeCheckpointOffsetKey(p: CheckpointOffsetPartition, connector: string = MIRROR_CHECKPOINT_CONNECTOR): Buffer {
  checkPartition(p.partition);
  return json(`[${jsonString(connector)},{"partition":${p.partition},"topic":${jsonString(p.topic)},"group":${jsonString(p.consumerGroupId)}}]`);
}

export function encodeHeartbeatOffsetKey(p: HeartbeatOffsetPartition, connector: string = MIRROR_HEARTBEAT_CONNECTOR): Buffer {
  return json(`[${jsonString(connector)},{"sourceClusterAlias":${jsonString(p.sourceClusterAlias)},"targetClusterAlias":${jsonString(p.targetClusterAlias)}}]`);
}

/**
 * `{"offset":n}`. For MirrorSourceConnector `n` is the last replicated source offset (a restart
 * resumes at n + 1); the checkpoint and heartbeat connectors always write 0.
 */
export function encodeConnectOffsetValue(offset: number | bigint): Buffer {
  if (typeof offset === 'number' && !Number.isSafeInteger(offset)) {
    throw new RecordFormatError(`Cannot write Connect offset ${offset}: not a safe integer`);
  }
  return json(`{"offset":${offset}}`);
}

/** The partition of the Connect offsets topic that Java's producer writes this key to. */
export function connectOffsetsPartition(key: Buffer, numPartitions: number = DEFAULT_OFFSETS_TOPIC_PARTITIONS): number {
  return partitionForKey(key, numPartitions);
}

/** Reads any offsets-topic key, in any field order and whitespace. */
export function decodeConnectOffsetKey(key: Buffer | null): ConnectOffsetKey {
  if (key === null) throw new RecordFormatError('Malformed Connect offset key: null');
  const parsed = parseJson(key, 'Connect offset key');
  if (!Array.isArray(parsed) || parsed.length !== 2) {
    throw new RecordFormatError('Malformed Connect offset key: expected a JSON array of [connector, partition]');
  }
  const [connector, partition] = parsed as [JsonValue, JsonValue];
  if (typeof connector !== 'string') {
    throw new RecordFormatError('Malformed Connect offset key: the connector name is not a string');
  }
  if (partition !== null && !isJsonObject(partition)) {
    throw new RecordFormatError('Malformed Connect offset key: the source partition is not a JSON object');
  }
  return { connector, partition };
}

/** Reads a MirrorSourceConnector key; the fields are checked as MM2's `alterOffsets` checks them. */
export function decodeSourceOffsetKey(key: Buffer | null): SourceOffsetPartition & { readonly connector: string } {
  const { connector, partition: map } = decodeConnectOffsetKey(key);
  const what = 'MirrorSourceConnector offset key';
  return {
    connector,
    sourceClusterAlias: stringField(map, 'cluster', what),
    topic: stringField(map, 'topic', what),
    partition: partitionField(map, 'partition', what),
  };
}

export function decodeCheckpointOffsetKey(key: Buffer | null): CheckpointOffsetPartition & { readonly connector: string } {
  const { connector, partition: map } = decodeConnectOffsetKey(key);
  const what = 'MirrorCheckpointConnector offset key';
  return {
    connector,
    consumerGroupId: stringField(map, 'group', what),
    topic: stringField(map, 'topic', what),
    partition: partitionField(map, 'partition', what),
  };
}

export function decodeHeartbeatOffsetKey(key: Buffer | null): HeartbeatOffsetPartition & { readonly connector: string } {
  const { connector, partition: map } = decodeConnectOffsetKey(key);
  const what = 'MirrorHeartbeatConnector offset key';
  return {
    connector,
    sourceClusterAlias: stringField(map, 'sourceClusterAlias', what),
    targetClusterAlias: stringField(map, 'targetClusterAlias', what),
  };
}

/**
 * The offset in a value, or `null` for a tombstone (null bytes, or the JSON `null` that
 * JsonConverter also reads as "no offset"). Only integers are offsets.
 */
export function decodeConnectOffsetValue(value: Buffer | null): number | null {
  if (value === null) return null;
  const parsed = parseJson(value, 'Connect offset value');
  if (parsed === null) return null;
  if (!isJsonObject(parsed)) throw new RecordFormatError('Malformed Connect offset value: not a JSON object');
  const offset = parsed['offset'];
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset)) {
    throw new RecordFormatError(`Malformed Connect offset value: "offset" is ${describe(offset)}, not a safe integer`);
  }
  return offset;
}

/** A JSON string literal escaped exactly as Jackson (Connect's JsonConverter) writes it. */
export function jsonString(s: string): string {
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const escaped = escapeFor(c);
    if (escaped === undefined) continue;
    out += s.slice(from, i) + escaped;
    from = i + 1;
  }
  return `${out}${s.slice(from)}"`;
}

function escapeFor(c: number): string | undefined {
  if (c === 0x22) return '\\"';
  if (c === 0x5c) return '\\\\';
  if (c < 0x20) {
    switch (c) {
      case 0x08:
        return '\\b';
      case 0x09:
        return '\\t';
      case 0x0a:
        return '\\n';
      case 0x0c:
        return '\\f';
      case 0x0d:
        return '\\r';
      default:
        return `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    }
  }
  // Jackson writes surrogates (paired or not) as escapes rather than 4-byte UTF-8.
  if (c >= 0xd800 && c <= 0xdfff) return `\\u${c.toString(16).toUpperCase()}`;
  return undefined;
}

function json(text: string): Buffer {
  // Every surrogate is escaped above, so plain UTF-8 encoding matches Java byte for byte.
  return Buffer.from(text, 'utf8');
}

function checkPartition(partition: number): void {
  if (!Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff) {
    throw new RecordFormatError(`Cannot write Connect offset key: partition ${partition} is not a non-negative INT32`);
  }
}

function parseJson(bytes: Buffer, what: string): JsonValue {
  try {
    return JSON.parse(bytes.toString('utf8')) as JsonValue;
  } catch (error) {
    throw new RecordFormatError(`Malformed ${what}: not JSON`, { cause: error });
  }
}

function isJsonObject(v: JsonValue | undefined): v is { readonly [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringField(map: ConnectOffsetKey['partition'], field: string, what: string): string {
  const v = map?.[field];
  if (typeof v !== 'string') throw new RecordFormatError(`Malformed ${what}: "${field}" is ${describe(v)}, not a string`);
  return v;
}

function partitionField(map: ConnectOffsetKey['partition'], field: string, what: string): number {
  const v = map?.[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0x7fffffff) {
    throw new RecordFormatError(`Malformed ${what}: "${field}" is ${describe(v)}, not a partition number`);
  }
  return v;
}

function describe(v: JsonValue | undefined): string {
  if (v === undefined) return 'missing';
  return JSON.stringify(v);
}
