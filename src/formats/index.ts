/**
 * Byte-exact encoders and decoders for MM2's records: offset syncs, checkpoints, heartbeats
 * (Kafka protocol Structs) and Connect source offsets (JSON). Decoders throw
 * `RecordFormatError` on malformed input so callers can skip the record with a warning.
 */
export { RecordFormatError } from './record-format-error';
export { StructReader, StructWriter, MAX_STRING_BYTES, javaUtf8 } from './struct';
export { murmur2, toPositive, partitionForKey } from './murmur2';
export { type OffsetSync, encodeOffsetSyncKey, encodeOffsetSyncValue, decodeOffsetSync, formatOffsetSync } from './offset-sync';
export { type Checkpoint, CHECKPOINT_VERSION, encodeCheckpointKey, encodeCheckpointValue, decodeCheckpoint, formatCheckpoint } from './checkpoint';
export { type Heartbeat, HEARTBEAT_VERSION, encodeHeartbeatKey, encodeHeartbeatValue, decodeHeartbeat, formatHeartbeat } from './heartbeat';
export {
  type SourceOffsetPartition,
  type CheckpointOffsetPartition,
  type HeartbeatOffsetPartition,
  type ConnectOffsetKey,
  type JsonValue,
  MIRROR_SOURCE_CONNECTOR,
  MIRROR_CHECKPOINT_CONNECTOR,
  MIRROR_HEARTBEAT_CONNECTOR,
  DEFAULT_OFFSETS_TOPIC_PARTITIONS,
  encodeSourceOffsetKey,
  encodeCheckpointOffsetKey,
  encodeHeartbeatOffsetKey,
  encodeConnectOffsetValue,
  connectOffsetsPartition,
  decodeConnectOffsetKey,
  decodeSourceOffsetKey,
  decodeCheckpointOffsetKey,
  decodeHeartbeatOffsetKey,
  decodeConnectOffsetValue,
  jsonString,
} from './connect-offsets';
export { DEAD_LETTER_HEADERS, type DeadLetterRecord, deadLetterRecord } from './dead-letter';
export {
  type Provenance,
  PROVENANCE_HEADER,
  PROVENANCE_VERSION,
  provenancePrefix,
  provenanceValue,
  encodeProvenance,
  splitProvenance,
  parseProvenancePrefix,
  decodeProvenance,
  lastProvenanceHeader,
} from './provenance-header';
