import type { Compression } from '../core/ports/record-writer';

/**
 * Kafka's compression codes, as in bits 0-2 of a record batch's attributes (and as kafkajs's
 * `CompressionTypes` numbers them): what the writer asks kafkajs for, and which fetched batches
 * the source may forward as they are.
 */
export const COMPRESSION_CODES: Readonly<Record<Compression, number>> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
