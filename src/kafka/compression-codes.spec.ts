import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionTypes } from './kafkajs';
import { COMPRESSION_CODES } from './compression-codes';

test("compression codes are kafkajs's CompressionTypes, so the writer and the forwarding source agree with it", () => {
  assert.deepEqual(COMPRESSION_CODES, {
    none: CompressionTypes.None,
    gzip: CompressionTypes.GZIP,
    snappy: CompressionTypes.Snappy,
    lz4: CompressionTypes.LZ4,
    zstd: CompressionTypes.ZSTD,
  });
});
