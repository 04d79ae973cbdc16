/**
 * A flow's `key.converter` / `value.converter` (per flow, or top level for every flow) as the
 * flow's `converter`: ByteArrayConverter (MM2's default) is `bytes`, StringConverter `string`,
 * JsonConverter with `schemas.enable=false` `json`, with `schemas.enable=true` (or unset, its
 * default) `json_envelope`. Other converter classes are refused, saying what mirrorflow has. MM2 would run every record
 * through its converters; mirrorflow reads a side only for a field-level transform that works on
 * it, which gives the same bytes for what the transforms change and keeps the rest untouched.
 */
import type { PathSegment } from './config-path';
import type { Mm2Document, Mm2Property, Provenance } from './mm2-document';
import { BYTE_ARRAY_CONVERTER } from './mm2-keys';
import type { Mm2Values } from './mm2-values';

type Props = ReadonlyMap<string, Mm2Property>;

const STRING_CONVERTER = 'org.apache.kafka.connect.storage.StringConverter';
const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';
/** Schema Registry converters mirrorflow does not run, by class, with the format they read. */
const SCHEMA_REGISTRY_CONVERTERS: Readonly<Record<string, string>> = {
  'io.confluent.connect.protobuf.ProtobufConverter': 'Protobuf',
  'io.confluent.connect.json.JsonSchemaConverter': 'JSON Schema',
};

export interface ConverterMappingContext {
  readonly values: Mm2Values;
  readonly document: Mm2Document;
  readonly provenance: (prop: Mm2Property) => Provenance;
}

/** `configs`: where the keys are looked up, first match wins (the flow's connector config, then the worker's). */
export function mapConverters(base: readonly PathSegment[], configs: readonly Props[], context: ConverterMappingContext): void {
  const get = (key: string): Mm2Property | undefined => configs.map((c) => c.get(key)).find((p) => p !== undefined);
  for (const side of ['key', 'value'] as const) {
    const prop = get(`${side}.converter`);
    if (prop === undefined) continue;
    const converter = converterOf(prop, side, get, context);
    if (converter === undefined) context.document.fail([...base, 'converter', side]);
    else context.document.set([...base, 'converter', side], converter, context.provenance(prop));
  }
}

function converterOf(
  prop: Mm2Property,
  side: 'key' | 'value',
  get: (key: string) => Mm2Property | undefined,
  context: ConverterMappingContext,
): string | undefined {
  const { values } = context;
  const className = values.literal(prop, `to know how ${side}s are read`);
  if (className === undefined) return undefined;
  const simple = className.replace(/^.*\./, '');
  if (className === BYTE_ARRAY_CONVERTER || simple === 'ByteArrayConverter') return 'bytes';
  if (className === STRING_CONVERTER || simple === 'StringConverter') return 'string';
  if (className === JSON_CONVERTER || simple === 'JsonConverter') {
    const schemasProp = get(`${side}.converter.schemas.enable`);
    const schemas = schemasProp === undefined ? true : values.boolean(schemasProp);
    if (schemas === undefined) return undefined;
    return schemas ? 'json_envelope' : 'json';
  }
  const registryFormat = SCHEMA_REGISTRY_CONVERTERS[className];
  if (registryFormat !== undefined) {
    values.report(
      prop,
      `names ${className}, Confluent's ${registryFormat} converter, which mirrorflow does not run: it cannot decode ${registryFormat} ${side}s for a field-level transform`,
      `to copy the records with their schema ids moved to the target's Schema Registry, leave ${side}.converter out (the ${side}s are copied as bytes), convert the file (mirrorflow convert) and set the flow's schema_registry (on: [${side}]) in the YAML; a field-level SMT on the ${side} cannot run then`,
    );
    return undefined;
  }
  values.report(
    prop,
    `names Java code, which mirrorflow cannot run: ${className} is not a converter mirrorflow has`,
    `mirrorflow has ByteArrayConverter (bytes, the default), StringConverter and JsonConverter (schemas.enable true or false)`,
  );
  return undefined;
}
