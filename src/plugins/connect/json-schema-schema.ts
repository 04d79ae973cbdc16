/**
 * JSON Schemas as Confluent's JsonSchemaConverter (its `JsonSchemaData`, default settings) sees
 * them in Connect terms, both ways.
 *
 * JSON Schema → Connect (`jsonSchemaToConnectSchema`): an object with `properties` is a struct,
 * its fields in the order of their `connect.index` (else as declared); `integer` is int64 and
 * `number` float64 unless `connect.type` says int8 / int16 / int32 / float32 (or `bytes`: a
 * Decimal); `string` is a string (bytes with `connect.type: bytes`, base64 text); an `enum` of
 * strings is a string with its symbols in the parameters `io.confluent.connect.json.Enum` and
 * `io.confluent.connect.json.Enum.<symbol>`; `array` is an array of its `items`; an object with
 * `connect.type: map` is a map of string keys to its `additionalProperties`; a `oneOf` or `anyOf`
 * of `{"type": "null"}` and one schema (or a `type` of a name and "null") is that schema,
 * optional. `title` is the name (so `org.apache.kafka.connect.data.Decimal` with the
 * `connect.parameters` `scale`, `…Date`, `…Time` and `…Timestamp` are Connect's logical types),
 * `description` the doc, `connect.version` the version, `connect.parameters` the parameters,
 * `default` the default. `required` does not make fields optional (`use.optional.for.nonrequired`
 * is false by default): a property left out reads as null. A `$ref` to `#…` in the same schema
 * is followed.
 *
 * Where JsonSchemaData reads an object without `properties` but with an `additionalProperties`
 * schema as a struct without fields (dropping every entry), mirrorflow reads it as a map of
 * string keys, so no data is lost; it is written back with `connect.type: map`.
 *
 * Refused, with a message saying so: an object without properties or an `additionalProperties`
 * schema (an empty struct to JsonSchemaData, which drops every field), references to other
 * schemas (other subjects, URLs),
 * recursive `$ref`s, `allOf`, `not`, `if`, `const`, `patternProperties`, tuple `items`, a
 * `oneOf` / `anyOf` other than one schema or null (Connect's union struct), maps whose keys are
 * not strings (`connect.type: map` arrays of key and value: mirrorflow's Connect data holds
 * string map keys only), and schemas without a type mirrorflow can tell.
 *
 * Connect → JSON Schema (`connectSchemaToJsonSchemaText`), as `fromConnectSchema` writes: the
 * type with `connect.type` (every integer and number, bytes, maps), a struct's fields as
 * `properties` with their `connect.index`, an optional schema as `{"oneOf": [{"type": "null"},
 * …]}` (the `connect.index` on the `oneOf`), the name as `title`, the doc as `description`, the
 * version in `connect.version`, the parameters in `connect.parameters` (but for the enum's own),
 * the default in `default`.
 */
import { ConnectDataError, ConnectSchema, type SchemaType } from './connect-value';
import { DECIMAL, structSchema, validateValue } from './connect-schema';
import { parseJsonBytes, type JsonNode } from './json-tree';
import { quote } from './json-write';
import { connectToJsonSchemaText, jsonSchemaToConnect } from './json-schema-values';

export const JSON_ENUM_PARAMETER = 'io.confluent.connect.json.Enum';
const NAMESPACE = 'io.confluent.connect.json';
const NUMBER_TYPES: Readonly<Record<string, SchemaType>> = {
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float32: 'float32',
  float64: 'float64',
  bytes: 'bytes',
};
const UNSUPPORTED_KEYWORDS = ['allOf', 'not', 'if', 'const', 'patternProperties', 'dependentSchemas', 'prefixItems', '$dynamicRef'];
/** Deeper `$ref` chains than this are taken for a cycle. */
const MAX_REF_DEPTH = 32;

type ObjectNode = JsonNode & { readonly kind: 'object' };

/** The Connect schema of a JSON Schema's text. */
export function jsonSchemaToConnectSchema(text: string): ConnectSchema {
  let root: JsonNode | undefined;
  try {
    root = parseJsonBytes(Buffer.from(text, 'utf8'));
  } catch {
    root = undefined;
  }
  if (root === undefined) throw new ConnectDataError('its text is not JSON');
  return new Reader(root).read(root, false, 0);
}

class Reader {
  constructor(private readonly root: JsonNode) {}

  read(node: JsonNode, optional: boolean, depth: number): ConnectSchema {
    if (node.kind === 'boolean') throw new ConnectDataError(`the JSON Schema \`${node.value}\` (anything or nothing) has no Connect type`);
    if (node.kind !== 'object') throw new ConnectDataError('a JSON Schema is an object');
    const get = (key: string): JsonNode | undefined => node.fields.get(key);
    const ref = get('$ref');
    if (ref !== undefined) return this.read(this.resolve(ref, depth), optional, depth + 1);
    for (const keyword of UNSUPPORTED_KEYWORDS) {
      if (node.fields.has(keyword)) throw new ConnectDataError(`JSON Schema's ${keyword} is not supported by the json_schema converter`);
    }
    for (const keyword of ['oneOf', 'anyOf']) {
      const branches = get(keyword);
      if (branches === undefined) continue;
      const other = branches.kind === 'array' && branches.items.length === 2 ? nonNullBranch(branches.items) : undefined;
      if (other === undefined) {
        throw new ConnectDataError(
          `a ${keyword} other than one schema or null is a union (Connect's io.confluent.connect.json.OneOf struct), which the json_schema converter does not support`,
        );
      }
      return this.read(other, true, depth);
    }
    const { type, nullable } = typeOf(node);
    const schema = this.typed(node, type, depth);
    return finish(node, schema, optional || nullable);
  }

  private resolve(ref: JsonNode, depth: number): JsonNode {
    if (ref.kind !== 'string') throw new ConnectDataError('a $ref is a string');
    if (!ref.value.startsWith('#')) {
      throw new ConnectDataError(`it refers to ${quote(ref.value)}, another schema (references are not supported by the json_schema converter)`);
    }
    if (depth >= MAX_REF_DEPTH) throw new ConnectDataError('its $refs nest deeper than 32: a recursive schema, which Connect cannot hold');
    let at: JsonNode | undefined = this.root;
    const pointer = ref.value.slice(1);
    for (const raw of pointer === '' ? [] : pointer.replace(/^\//, '').split('/')) {
      const step = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      at = at?.kind === 'object' ? at.fields.get(step) : at?.kind === 'array' ? at.items[Number(step)] : undefined;
    }
    if (at === undefined) throw new ConnectDataError(`its $ref ${quote(ref.value)} points at nothing in the schema`);
    return at;
  }

  private typed(node: ObjectNode, type: string, depth: number): ConnectSchema {
    const connectType = stringField(node, 'connect.type');
    switch (type) {
      case 'boolean':
        return new ConnectSchema('boolean', false);
      case 'integer':
      case 'number': {
        if (connectType === undefined) return new ConnectSchema(type === 'integer' ? 'int64' : 'float64', false);
        const numberType = NUMBER_TYPES[connectType];
        if (numberType === undefined) throw new ConnectDataError(`connect.type ${quote(connectType)} is not a Connect number type`);
        return new ConnectSchema(numberType, false);
      }
      case 'string':
        return new ConnectSchema(connectType === 'bytes' ? 'bytes' : 'string', false);
      case 'enum': {
        const parameters = new Map([[JSON_ENUM_PARAMETER, '']]);
        for (const symbol of (node.fields.get('enum') as JsonNode & { kind: 'array' }).items) {
          if (symbol.kind !== 'string') throw new ConnectDataError('an enum of other values than strings is not supported by the json_schema converter');
          parameters.set(`${JSON_ENUM_PARAMETER}.${symbol.value}`, symbol.value);
        }
        return new ConnectSchema('string', false, { parameters });
      }
      case 'array': {
        const items = node.fields.get('items');
        if (items === undefined) throw new ConnectDataError('Array schema did not specify the items type');
        if (items.kind === 'array') throw new ConnectDataError('tuple items (an array of schemas) are not supported by the json_schema converter');
        if (connectType === 'map') {
          throw new ConnectDataError(
            "a map whose keys are not strings (connect.type map on an array of key and value) is not supported: mirrorflow's Connect data holds string map keys only",
          );
        }
        return new ConnectSchema('array', false, { valueSchema: this.read(items, false, depth) });
      }
      case 'object': {
        const properties = node.fields.get('properties');
        const additional = node.fields.get('additionalProperties');
        const mapValues = additional?.kind === 'object' ? additional : undefined;
        if (connectType === 'map' || (mapValues !== undefined && (properties?.kind !== 'object' || properties.fields.size === 0))) {
          if (mapValues === undefined) throw new ConnectDataError('a map (connect.type map) without an additionalProperties schema has no value type');
          return new ConnectSchema('map', false, { keySchema: new ConnectSchema('string', false), valueSchema: this.read(mapValues, false, depth) });
        }
        const declared = properties?.kind === 'object' ? [...properties.fields] : [];
        if (declared.length === 0) {
          throw new ConnectDataError(
            'an object without properties or an additionalProperties schema is a struct without fields to Connect, which would drop every field of the record: not supported by the json_schema converter',
          );
        }
        const ordered = declared
          .map(([name, schema], position) => ({ name, schema, index: connectIndex(schema) ?? position }))
          .sort((a, b) => a.index - b.index);
        return structSchema(ordered.map(({ name, schema }) => [name, this.read(schema, false, depth)] as const));
      }
      default:
        throw new ConnectDataError(`JSON Schema type ${quote(type)} is not supported by the json_schema converter`);
    }
  }
}

/** The branch of a two-branch oneOf / anyOf that is not `{"type": "null"}`, if one is. */
function nonNullBranch(branches: readonly JsonNode[]): JsonNode | undefined {
  const isNull = (b: JsonNode): boolean => b.kind === 'object' && b.fields.get('type')?.kind === 'string' && stringField(b, 'type') === 'null';
  if (isNull(branches[0]!) && !isNull(branches[1]!)) return branches[1];
  if (isNull(branches[1]!) && !isNull(branches[0]!)) return branches[0];
  return undefined;
}

/** The schema's one type (a `type` list of a name and "null" is that name, nullable); `enum` for an enum. */
function typeOf(node: ObjectNode): { type: string; nullable: boolean } {
  const type = node.fields.get('type');
  let named: string | undefined;
  let nullable = false;
  if (type?.kind === 'string') named = type.value;
  else if (type?.kind === 'array') {
    const names = type.items.map((item) => (item.kind === 'string' ? item.value : '?'));
    const others = names.filter((name) => name !== 'null');
    if (others.length !== 1) throw new ConnectDataError(`a type of ${names.length} names is a union, which the json_schema converter does not support`);
    named = others[0];
    nullable = others.length < names.length;
  }
  if (node.fields.get('enum')?.kind === 'array') return { type: 'enum', nullable };
  if (named !== undefined) return { type: named, nullable };
  if (node.fields.has('properties')) return { type: 'object', nullable: false };
  if (node.fields.has('items')) return { type: 'array', nullable: false };
  throw new ConnectDataError('a JSON Schema without a type the json_schema converter can tell (type, properties, items or enum)');
}

/** The name, doc, version, parameters and default, then optional. */
function finish(node: ObjectNode, schema: ConnectSchema, optional: boolean): ConnectSchema {
  const parameters = new Map(schema.meta.parameters ?? []);
  const connectParameters = node.fields.get('connect.parameters');
  if (connectParameters?.kind === 'object') {
    for (const [key, value] of connectParameters.fields) {
      if (value.kind !== 'string') throw new ConnectDataError('connect.parameters have string values');
      parameters.set(key, value.value);
    }
  }
  const version = node.fields.get('connect.version');
  const meta = {
    ...schema.meta,
    name: stringField(node, 'title'),
    version: version?.kind === 'number' && version.integral ? Number(version.text) : undefined,
    doc: stringField(node, 'description'),
    parameters: parameters.size > 0 ? parameters : undefined,
  };
  if (meta.name === DECIMAL && schema.type !== 'bytes') throw new ConnectDataError('a Decimal is a number with connect.type bytes');
  let built = new ConnectSchema(schema.type, false, meta);
  const defaultNode = node.fields.get('default');
  if (defaultNode !== undefined && defaultNode.kind !== 'null') {
    const defaultValue = jsonSchemaToConnect(built, defaultNode);
    try {
      validateValue(undefined, built, defaultValue);
    } catch {
      throw new ConnectDataError('Invalid default value');
    }
    built = new ConnectSchema(schema.type, false, { ...meta, defaultValue });
  }
  return optional ? new ConnectSchema(built.type, true, built.meta) : built;
}

function stringField(node: ObjectNode, key: string): string | undefined {
  const value = node.fields.get(key);
  return value?.kind === 'string' ? value.value : undefined;
}

function connectIndex(node: JsonNode): number | undefined {
  const index = node.kind === 'object' ? node.fields.get('connect.index') : undefined;
  return index?.kind === 'number' && index.integral ? Number(index.text) : undefined;
}

/** A schema is immutable, and records read with one writer schema share its ConnectSchema: its text is made once. */
const written = new WeakMap<ConnectSchema, string>();

/** `fromConnectSchema(schema)`, as the JSON text registered in the target registry. */
export function connectSchemaToJsonSchemaText(schema: ConnectSchema): string {
  let text = written.get(schema);
  if (text === undefined) written.set(schema, (text = raw(schema, undefined)));
  return text;
}

function raw(schema: ConnectSchema, index: number | undefined): string {
  const parts = [...typeParts(schema), ...metaParts(schema)];
  if (schema.optional) {
    const wrapper = [`"oneOf":[{"type":"null"},{${parts.join(',')}}]`];
    if (index !== undefined) wrapper.push(`"connect.index":${index}`);
    return `{${wrapper.join(',')}}`;
  }
  if (index !== undefined) parts.push(`"connect.index":${index}`);
  return `{${parts.join(',')}}`;
}

function typeParts(schema: ConnectSchema): string[] {
  const { meta } = schema;
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return ['"type":"integer"', `"connect.type":"${schema.type}"`];
    case 'float32':
    case 'float64':
      return ['"type":"number"', `"connect.type":"${schema.type}"`];
    case 'boolean':
      return ['"type":"boolean"'];
    case 'string': {
      if (!meta.parameters?.has(JSON_ENUM_PARAMETER)) return ['"type":"string"'];
      const prefix = `${JSON_ENUM_PARAMETER}.`;
      const symbols = [...meta.parameters.keys()].filter((key) => key.startsWith(prefix)).map((key) => quote(key.slice(prefix.length)));
      return [`"enum":[${symbols.join(',')}]`];
    }
    case 'bytes':
      return [meta.name === DECIMAL ? '"type":"number"' : '"type":"string"', '"connect.type":"bytes"'];
    case 'array':
      return ['"type":"array"', `"items":${raw(meta.valueSchema!, undefined)}`];
    case 'map':
      if (meta.keySchema!.type !== 'string' || meta.keySchema!.optional) {
        throw new ConnectDataError('maps whose keys are not required strings are not written by the json_schema converter');
      }
      return ['"type":"object"', `"additionalProperties":${raw(meta.valueSchema!, undefined)}`, '"connect.type":"map"'];
    case 'struct':
      return ['"type":"object"', `"properties":{${schema.fields.map((field) => `${quote(field.name)}:${raw(field.schema, field.index)}`).join(',')}}`];
  }
}

function metaParts(schema: ConnectSchema): string[] {
  const { meta } = schema;
  const parts: string[] = [];
  if (meta.name !== undefined) parts.push(`"title":${quote(meta.name)}`);
  if (meta.version !== undefined) parts.push(`"connect.version":${meta.version}`);
  if (meta.doc !== undefined) parts.push(`"description":${quote(meta.doc)}`);
  const parameters = [...(meta.parameters ?? [])].filter(([key]) => !key.startsWith(NAMESPACE));
  if (parameters.length > 0) parts.push(`"connect.parameters":{${parameters.map(([k, v]) => `${quote(k)}:${quote(v)}`).join(',')}}`);
  if (meta.defaultValue !== undefined && meta.defaultValue !== null) {
    const text = connectToJsonSchemaText(new ConnectSchema(schema.type, false, { ...meta, defaultValue: undefined }), meta.defaultValue);
    if (text !== undefined) parts.push(`"default":${text}`);
  }
  return parts;
}
