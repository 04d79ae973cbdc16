/**
 * A flow's `key.converter` / `value.converter` (per flow, or top level for every flow) as the
 * flow's `converter`: ByteArrayConverter (MM2's default) is `bytes`, StringConverter `string`,
 * JsonConverter with `schemas.enable=false` `json`, with `schemas.enable=true` (or unset, its
 * default) `json_envelope`, Confluent's AvroConverter `avro`, JsonSchemaConverter `json_schema` and
 * ProtobufConverter `protobuf`, each with the flow's `schema_registry` from
 * `<side>.converter.schema.registry.url` (one registry, which both sides of the flow use: MM2's
 * converter has one; the YAML can name two) and `<side>.converter.basic.auth.user.info`. Other
 * converter classes are refused, saying what mirrorflow has. MM2 would run every record
 * through its converters; mirrorflow reads a side only for a field-level transform that works on
 * it, which gives the same bytes for what the transforms change and keeps the rest untouched.
 */
import type { PathSegment } from '../config-path';
import type { Mm2Document, Mm2Property, Provenance } from './mm2-document';
import { BYTE_ARRAY_CONVERTER } from './mm2-keys';
import type { Mm2Values } from './mm2-values';

type Props = ReadonlyMap<string, Mm2Property>;

const STRING_CONVERTER = 'org.apache.kafka.connect.storage.StringConverter';
const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';
/** Confluent's Schema Registry converters mirrorflow runs, by class, with their simple names. */
const REGISTRY_CONVERTERS: Readonly<Record<string, { readonly simple: string; readonly converter: 'avro' | 'json_schema' | 'protobuf' }>> = {
  'io.confluent.connect.avro.AvroConverter': { simple: 'AvroConverter', converter: 'avro' },
  'io.confluent.connect.json.JsonSchemaConverter': { simple: 'JsonSchemaConverter', converter: 'json_schema' },
  'io.confluent.connect.protobuf.ProtobufConverter': { simple: 'ProtobufConverter', converter: 'protobuf' },
};

export interface ConverterMappingContext {
  readonly values: Mm2Values;
  readonly document: Mm2Document;
  readonly provenance: (prop: Mm2Property) => Provenance;
}

/** `configs`: where the keys are looked up, first match wins (the flow's connector config, then the worker's). */
export function mapConverters(base: readonly PathSegment[], configs: readonly Props[], context: ConverterMappingContext): void {
  const get = (key: string): Mm2Property | undefined => configs.map((c) => c.get(key)).find((p) => p !== undefined);
  const registrySides: ('key' | 'value')[] = [];
  let registry: { url: string; prop: Mm2Property; userInfo?: Mm2Property } | undefined;
  for (const side of ['key', 'value'] as const) {
    const prop = get(`${side}.converter`);
    if (prop === undefined) continue;
    const converter = converterOf(prop, side, get, context);
    const registryClass = Object.values(REGISTRY_CONVERTERS).find((c) => c.converter === converter);
    const found = registryClass === undefined ? undefined : converterRegistry(registryClass.simple, prop, side, get, context);
    if (converter === undefined || (registryClass !== undefined && found === undefined)) {
      context.document.fail([...base, 'converter', side]);
      continue;
    }
    context.document.set([...base, 'converter', side], converter, context.provenance(prop));
    if (found === undefined) continue;
    if (registry !== undefined && registry.url !== found.url) {
      context.values.report(
        found.prop,
        `names another Schema Registry than ${registry.prop.key}: a flow reads and writes its keys and values in Confluent's wire format through one`,
        'give key.converter and value.converter the same schema.registry.url',
      );
      context.document.fail([...base, 'schema_registry']);
      continue;
    }
    registry = found;
    registrySides.push(side);
  }
  if (registry === undefined || registrySides.length === 0) return;
  const where = context.provenance(registry.prop);
  const auth = registry.userInfo === undefined ? undefined : basicAuth(registry.userInfo, context);
  const endpoint = { url: registry.url, ...(auth === undefined ? {} : { basic_auth: auth }) };
  context.document.set([...base, 'schema_registry', 'source'], endpoint, where);
  context.document.set([...base, 'schema_registry', 'target'], endpoint, where);
  context.document.set([...base, 'schema_registry', 'on'], registrySides, where);
}

/** `<side>.converter.schema.registry.url` (required) and `.basic.auth.user.info` of an AvroConverter, JsonSchemaConverter or ProtobufConverter. */
function converterRegistry(
  simple: string,
  converterProp: Mm2Property,
  side: 'key' | 'value',
  get: (key: string) => Mm2Property | undefined,
  context: ConverterMappingContext,
): { url: string; prop: Mm2Property; userInfo?: Mm2Property } | undefined {
  const prop = get(`${side}.converter.schema.registry.url`);
  if (prop === undefined) {
    context.values.report(
      converterProp,
      `${simple} needs ${side}.converter.schema.registry.url: it reads the writer schemas there and registers what it writes`,
      `set ${side}.converter.schema.registry.url = http://registry:8081`,
    );
    return undefined;
  }
  const url = context.values.literal(prop, 'to know where the Schema Registry is');
  if (url === undefined) return undefined;
  if (url.includes(',')) {
    context.values.report(prop, 'names several Schema Registry URLs; mirrorflow reads one', 'keep one URL');
    return undefined;
  }
  const userInfo = get(`${side}.converter.basic.auth.user.info`);
  return { url, prop, ...(userInfo === undefined ? {} : { userInfo }) };
}

/** `user:password` (Confluent's `basic.auth.user.info`). */
function basicAuth(prop: Mm2Property, context: ConverterMappingContext): { username: string; password: string } | undefined {
  const value = context.values.literal(prop, 'to split it into user and password');
  if (value === undefined) return undefined;
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    context.values.report(prop, 'must be user:password (basic.auth.user.info)', undefined, false);
    return undefined;
  }
  return { username: value.slice(0, colon), password: value.slice(colon + 1) };
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
  const registryConverter = REGISTRY_CONVERTERS[className] ?? Object.values(REGISTRY_CONVERTERS).find((c) => c.simple === simple);
  if (registryConverter !== undefined) return registryConverter.converter;
  values.report(
    prop,
    `names Java code, which mirrorflow cannot run: ${className} is not a converter mirrorflow has`,
    `mirrorflow has ByteArrayConverter (bytes, the default), StringConverter, JsonConverter (schemas.enable true or false) and Confluent's AvroConverter, JsonSchemaConverter and ProtobufConverter`,
  );
  return undefined;
}
