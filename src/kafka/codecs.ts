/**
 * Registers the compression codecs kafkajs lacks (it ships gzip only). All three install from the
 * npm registry alone: snappy is pure JS; lz4 and zstd are native builds shipped inside registry
 * packages. `@mongodb-js/zstd` stays pinned at 1.2.2: later versions download binaries at install.
 */
import LZ4Codec from '@2l/kafkajs-lz4';
import { compress as zstdCompress, decompress as zstdDecompress } from '@mongodb-js/zstd';
import { CompressionCodecs, CompressionTypes } from './kafkajs';

type CodecFactory = () => { compress(encoder: { buffer: Buffer }): Promise<Buffer>; decompress(buffer: Buffer): Promise<Buffer> };

// kafkajs-snappy ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SnappyCodec = require('kafkajs-snappy') as CodecFactory;

let registered = false;

export function registerCodecs(): void {
  if (registered) return;
  registered = true;
  CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec;
  CompressionCodecs[CompressionTypes.LZ4] = new LZ4Codec().codec;
  CompressionCodecs[CompressionTypes.ZSTD] = () => ({
    compress: async (encoder: { buffer: Buffer }) => zstdCompress(encoder.buffer, 3),
    decompress: async (buffer: Buffer) => zstdDecompress(buffer),
  });
}
