/**
 * Where the fields of a v2 record batch header sit, and the attribute bits, for the code that
 * reads fetched batches (fetch-decoder.ts) and the code that writes or rewrites them
 * (record-batch-encoder.ts). Kafka's DefaultRecordBatch:
 *
 *      0 BaseOffset int64        27 BaseTimestamp int64
 *      8 BatchLength int32       35 MaxTimestamp int64
 *     12 LeaderEpoch int32       43 ProducerId int64
 *     16 Magic int8              51 ProducerEpoch int16
 *     17 CRC uint32              53 BaseSequence int32
 *     21 Attributes int16        57 RecordCount int32
 *     23 LastOffsetDelta int32   61 records
 */
export const BATCH_HEADER_BYTES = 61;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
/** The CRC (CRC-32C) covers everything from the attributes to the end of the batch. */
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORD_COUNT_OFFSET = 57;

/** Attributes bits 0-2: the compression codec (COMPRESSION_CODES). */
export const CODEC_MASK = 0x07;
export const LOG_APPEND_TIME_FLAG = 0x08;
export const TRANSACTIONAL_FLAG = 0x10;
export const CONTROL_FLAG = 0x20;
/** Set by the log cleaner on batches that carry a delete horizon. */
export const DELETE_HORIZON_FLAG = 0x40;
