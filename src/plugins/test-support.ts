/**
 * Helpers for the plugin unit tests: records and contexts with the fields a test does not
 * care about filled in.
 */
import { silentLogger, type Logger } from '../core/ports/logger';
import type { MirrorRecord, RecordHeader } from '../core/record';
import { noopTransformMetrics, type ContractSamples, type Transform, type TransformContext, type TransformDefinition } from './api';
import { checkPluginContract } from './contract';

/**
 * The built-in transforms, by name, sorted: what the registry and loader specs expect a plain
 * registry to hold. Adding a built-in means adding its name here, once.
 */
export const EXPECTED_BUILT_INS: readonly string[] = [
  'cast',
  'drop',
  'drop_headers',
  'extract_field',
  'flatten',
  'header_from',
  'hoist_field',
  'insert_field',
  'insert_header',
  'mask_field',
  'rename_topic',
  'replace_field',
  'route_by_timestamp',
  'set_schema_metadata',
  'timestamp_converter',
  'value_to_key',
];

export function mirrorRecord(overrides: Partial<MirrorRecord> = {}): MirrorRecord {
  return {
    source: { topic: 'orders', partition: 3, offset: 42 },
    topic: 'primary.orders',
    partition: 3,
    timestamp: 1_700_000_000_000,
    key: Buffer.from('k1'),
    value: Buffer.from('v1'),
    headers: [],
    ...overrides,
  };
}

export function header(key: string, value: string | null): RecordHeader {
  return { key, value: value === null ? null : Buffer.from(value) };
}

export function transformContext(logger: Logger = silentLogger): TransformContext {
  return { flow: { source: 'primary', target: 'backup' }, logger, metrics: noopTransformMetrics };
}

/** Deep-freezes a record so a transform that mutates its input fails the test. */
export function frozen(record: MirrorRecord): MirrorRecord {
  for (const h of record.headers) Object.freeze(h);
  Object.freeze(record.headers);
  Object.freeze(record.source);
  return Object.freeze(record);
}

/** Validates `options` with the definition's schema (throwing on invalid) and creates the transform. */
export function instantiate<C>(definition: TransformDefinition<C>, options: unknown, context: TransformContext = transformContext()): Transform {
  return definition.create(definition.configSchema.parse(options), context);
}

/** The schema's issues for `options` as `path: message` lines, or [] when they are valid. */
export function optionIssues(definition: TransformDefinition, options: unknown): string[] {
  const result = definition.configSchema.safeParse(options);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

/**
 * The plugin contract (src/plugins/contract.ts) on `definition`: throws listing every check
 * that failed, so a plugin's spec keeps it with one call.
 */
export function assertPluginContract(definition: TransformDefinition, samples?: ContractSamples): void {
  const failed = checkPluginContract(definition, samples).filter((c) => c.result === 'fail');
  if (failed.length > 0) {
    throw new Error(`"${definition.name}" breaks the plugin contract:\n${failed.map((c) => `  - ${c.check}: ${c.detail ?? ''}`).join('\n')}`);
  }
}
