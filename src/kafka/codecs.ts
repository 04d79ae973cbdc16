/**
 * Registers the compression codecs kafkajs lacks (it ships gzip only). All three install from the
 * npm registry alone: snappy is pure JS; lz4 and zstd are native builds shipped inside registry
 * packages. `@mongodb-js/zstd` stays pinned at 1.2.2: later versions download binaries at install.
 *
 * Each package is loaded when kafkajs first asks for its codec (a batch to compress or
 * decompress), not at start: a flow of uncompressed topics never needs them, and loading the
 * three, two of them native libraries, was about 20 ms of every start's CPU (issue 42 item 9).
 */
import type LZ4CodecClass from '@2l/kafkajs-lz4';
import { CompressionCodecs, CompressionTypes } from './kafkajs';

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}
type CodecFactory = () => Codec;

/** A codec factory that loads its package at the first call and hands out that codec from then on. */
function loadedOnUse(load: () => Codec): CodecFactory {
  let codec: Codec | undefined;
  return () => (codec ??= load());
}

let registered = false;

export function registerCodecs(): void {
  if (registered) return;
  registered = true;
  // kafkajs-snappy ships no type declarations.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  CompressionCodecs[CompressionTypes.Snappy] = loadedOnUse(() => (require('kafkajs-snappy') as CodecFactory)());
  CompressionCodecs[CompressionTypes.LZ4] = loadedOnUse(() => {
    // Its module.exports is the class itself (its `default` export, to TypeScript).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const LZ4Codec = require('@2l/kafkajs-lz4') as typeof LZ4CodecClass;
    return new LZ4Codec().codec();
  });
  CompressionCodecs[CompressionTypes.ZSTD] = loadedOnUse(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const zstd = require('@mongodb-js/zstd') as typeof import('@mongodb-js/zstd');
    return {
      compress: async (encoder: { buffer: Buffer }) => zstd.compress(encoder.buffer, 3),
      decompress: async (buffer: Buffer) => zstd.decompress(buffer),
    };
  });
}
