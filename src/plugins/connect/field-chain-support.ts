/**
 * For the field-level transforms' specs: a chain of steps over JSON text, as Connect runs SMTs
 * between JsonConverter (schemas.enable=false) reads and writes, on a record of topic
 * `src.orders`, partition 1, source offset 42 and timestamp 1700000000123 — the record the
 * Connect vectors in the specs were made with (Kafka 4.3.1's classes on JDK 17).
 */
import { silentLogger } from '../../core/ports/logger';
import { builtInTransforms } from '../builtins';
import { PluginRegistry } from '../registry';
import { buildTransformChain } from '../transform-chain';
import type { FlowConverters } from './converters';

const registry = new PluginRegistry(builtInTransforms);

/** `[type, options]` steps; the result is the written value as text, `null` for no bytes, or the failure's message. */
export function runFieldChain(
  steps: readonly (readonly [string, Record<string, unknown>])[],
  value: string | null,
  converters: FlowConverters = { key: 'json', value: 'json' },
): string | null {
  const chain = buildTransformChain(
    steps.map(([type, options], index) => ({ type, options, path: `flows[0].transforms[${index}]` })),
    registry,
    { flow: { source: 'src', target: 'dst' }, logger: silentLogger, converters },
  );
  const record = {
    source: { topic: 'orders', partition: 1, offset: 42 },
    topic: 'src.orders',
    partition: 1,
    timestamp: 1_700_000_000_123,
    key: null,
    value: value === null ? null : Buffer.from(value, 'utf8'),
    headers: [],
  };
  try {
    const out = chain([record]);
    if (out.length === 0) return 'DROPPED';
    return out[0]!.value?.toString('utf8') ?? null;
  } catch (error) {
    return `ERR ${(error as Error).message}`;
  }
}

/** What a chain made of one record, as the Connect vectors give it: key and value as text, headers as base64; or the failure's message. */
export type ChainOutcome =
  { readonly key: string | null; readonly value: string | null; readonly headers: readonly (readonly [string, string | null])[] } | { readonly error: string };

/** Runs `[type, options]` steps over a record with these key and value texts, through the converters given. */
export function runRecordChain(
  steps: readonly (readonly [string, Record<string, unknown>])[],
  record: { readonly key: string | null; readonly value: string | null },
  converters: FlowConverters,
): ChainOutcome {
  const chain = buildTransformChain(
    steps.map(([type, options], index) => ({ type, options, path: `flows[0].transforms[${index}]` })),
    registry,
    { flow: { source: 'src', target: 'dst' }, logger: silentLogger, converters },
  );
  const text = (s: string | null): Buffer | null => (s === null ? null : Buffer.from(s, 'utf8'));
  try {
    const [out] = chain([
      {
        source: { topic: 'orders', partition: 1, offset: 42 },
        topic: 'src.orders',
        partition: 1,
        timestamp: 1_700_000_000_123,
        key: text(record.key),
        value: text(record.value),
        headers: [],
      },
    ]);
    return {
      key: out!.key?.toString('utf8') ?? null,
      value: out!.value?.toString('utf8') ?? null,
      headers: out!.headers.map((h) => [h.key, h.value?.toString('base64') ?? null] as const),
    };
  } catch (error) {
    return { error: (error as Error).message.replace(/^.*?\(flows\[0\]\.transforms\[\d+\]\): /, '') };
  }
}
