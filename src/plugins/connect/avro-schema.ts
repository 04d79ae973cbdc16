/**
 * Avro schemas as Confluent's AvroConverter (its `AvroData`, default settings) sees them in
 * Connect terms, both ways.
 *
 * Avro → Connect (`toConnectSchema`): a record is a struct named by the record's full name; int
 * is int32 (int8 / int16 when the schema says `"connect.type"`), long int64, float float32,
 * double float64; a union of null and one type is that type, optional; the logical types
 * decimal (on bytes), date, time-millis and timestamp-millis are Connect's Decimal (parameters
 * `scale` and `connect.decimal.precision`), Date, Time and Timestamp; an enum is a string named
 * by the enum, its symbols in the parameters `io.confluent.connect.avro.Enum` (the name) and
 * `io.confluent.connect.avro.Enum.<symbol>`; a fixed is bytes named by the fixed, its size in the
 * parameter `connect.fixed.size`. `connect.name`, `connect.version`, `connect.doc` and
 * `connect.parameters` (what AvroData writes) are read back into the name, version, doc and
 * parameters. Field defaults become the fields' defaults. Other logical types are their
 * underlying type, as in AvroData.
 *
 * Connect → Avro (`fromConnectSchema`), as AvroData writes: a struct is a record (an unnamed one
 * `io.confluent.connect.avro.ConnectDefault`, the next ones `ConnectDefault2`, …), an optional
 * schema a union with null (null first, so a field's default is null, unless the field has
 * another default: then its type comes first), int8 / int16 an int with `"connect.type"`, a name
 * in `connect.name`, a version in `connect.version`, a doc in `connect.doc` (and a record's
 * `doc`), parameters in `connect.parameters`; Decimal, Date, Time and Timestamp their Avro logical
 * types; bytes with `connect.fixed.size` a fixed; a map with string keys an Avro map. A named type
 * met again is referred to by its name.
 *
 * Refused, with a message saying so (AvroData maps them, mirrorflow does not): unions other than
 * null and one type, recursive records, decimal on fixed, maps whose keys are not strings.
 */
import { ConnectDataError, ConnectSchema, type ConnectValue, type SchemaType } from './connect-value';
import { DATE, DECIMAL, structSchema, TIME, TIMESTAMP } from './connect-schema';
import { avroDefaultToConnect, connectDefaultToAvro, type AvroJson } from './avro-values';

export type { AvroJson };
type AvroObject = { [key: string]: AvroJson };

export const ENUM_PARAMETER = 'io.confluent.connect.avro.Enum';
export const FIXED_SIZE_PARAMETER = 'connect.fixed.size';
export const PRECISION_PARAMETER = 'connect.decimal.precision';
const DEFAULT_NAMESPACE = 'io.confluent.connect.avro';
const DEFAULT_RECORD = 'ConnectDefault';
/** AvroData's precision for a Decimal without `connect.decimal.precision`. */
const DEFAULT_PRECISION = 64;

const PRIMITIVES: Readonly<Record<string, SchemaType>> = {
  boolean: 'boolean',
  int: 'int32',
  long: 'int64',
  float: 'float32',
  double: 'float64',
  bytes: 'bytes',
  string: 'string',
};

/** The Connect schema of an Avro schema (parsed JSON), named types resolved within it. */
export function toConnectSchema(avro: AvroJson): ConnectSchema {
  return new AvroReader().read(avro, '', false);
}

class AvroReader {
  /** Named types by full name, as defined so far (null while a record's fields are being read: a reference then is recursion). */
  private readonly named = new Map<string, ConnectSchema | null>();

  read(avro: AvroJson, namespace: string, optional: boolean, defaultJson?: AvroJson, fieldDoc?: string): ConnectSchema {
    if (typeof avro === 'string') {
      const primitive = PRIMITIVES[avro];
      if (primitive !== undefined) return withDefault(new ConnectSchema(primitive, optional, {}), defaultJson, fieldDoc);
      if (avro === 'null') throw new ConnectDataError('an Avro null outside a union with one other type is not supported by the avro converter');
      const full = fullName(avro, namespace);
      const known = this.named.get(full) ?? this.named.get(avro);
      if (known === null) throw new ConnectDataError(`the Avro record ${full} refers to itself: recursive schemas have no Connect form`);
      if (known === undefined) throw new ConnectDataError(`the Avro schema refers to ${full}, which it does not define (schema references are not supported)`);
      return withDefault(withOptional(known, optional), defaultJson, fieldDoc);
    }
    if (Array.isArray(avro)) return this.union(avro, namespace, optional, defaultJson, fieldDoc);
    if (avro === null || typeof avro !== 'object') throw new ConnectDataError('an Avro schema is a name, an object or a union');
    return this.complex(avro, namespace, optional, defaultJson, fieldDoc);
  }

  private union(branches: AvroJson[], namespace: string, optional: boolean, defaultJson: AvroJson | undefined, fieldDoc?: string): ConnectSchema {
    const others = branches.filter((b) => b !== 'null');
    if (others.length !== 1 || branches.length !== 2) {
      throw new ConnectDataError(`Avro unions other than null and one type are not supported by the avro converter (a union of ${branches.length})`);
    }
    // A null default is the optional field's: Connect keeps no default for it.
    return this.read(others[0]!, namespace, true, defaultJson === null ? undefined : defaultJson, fieldDoc);
  }

  private complex(avro: AvroObject, namespace: string, optional: boolean, defaultJson: AvroJson | undefined, fieldDoc?: string): ConnectSchema {
    const type = avro['type'];
    const meta = connectMeta(avro);
    if (type === 'record' || type === 'error') {
      const full = fullName(text(avro['name']) ?? '', text(avro['namespace']) ?? namespace);
      const space = full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : '';
      this.named.set(full, null);
      const fields = Array.isArray(avro['fields']) ? avro['fields'] : [];
      const read = fields.map((field): [string, ConnectSchema] => {
        const f = field as AvroObject;
        const doc = text(f['doc']);
        return [text(f['name']) ?? '', this.read(f['type']!, space, false, f['default'], doc)];
      });
      // AvroData reads its own name for an unnamed struct back as no name.
      const name = meta.name ?? (full === `${DEFAULT_NAMESPACE}.${DEFAULT_RECORD}` ? undefined : full);
      const schema = structSchema(read, { basics: { ...meta, name, doc: meta.doc ?? text(avro['doc']) ?? fieldDoc } });
      this.named.set(full, schema);
      return withDefault(withOptional(schema, optional), defaultJson, undefined);
    }
    if (type === 'enum') {
      const full = fullName(text(avro['name']) ?? '', text(avro['namespace']) ?? namespace);
      const symbols = (Array.isArray(avro['symbols']) ? avro['symbols'] : []).map(String);
      const parameters = new Map<string, string>([[ENUM_PARAMETER, full], ...symbols.map((s): [string, string] => [`${ENUM_PARAMETER}.${s}`, s])]);
      for (const [k, v] of meta.parameters ?? []) parameters.set(k, v);
      const schema = new ConnectSchema('string', false, { ...meta, name: meta.name ?? full, doc: meta.doc ?? text(avro['doc']) ?? fieldDoc, parameters });
      this.named.set(full, schema);
      return withDefault(withOptional(schema, optional), defaultJson, undefined);
    }
    if (type === 'fixed') {
      const full = fullName(text(avro['name']) ?? '', text(avro['namespace']) ?? namespace);
      if (avro['logicalType'] === 'decimal')
        throw new ConnectDataError(`the Avro fixed ${full} is a decimal: decimals on fixed are not supported by the avro converter`);
      const parameters = new Map<string, string>([[FIXED_SIZE_PARAMETER, String(avro['size'])], ...(meta.parameters ?? [])]);
      const schema = new ConnectSchema('bytes', false, { ...meta, name: meta.name ?? full, doc: meta.doc ?? fieldDoc, parameters });
      this.named.set(full, schema);
      return withDefault(withOptional(schema, optional), defaultJson, undefined);
    }
    if (type === 'array') {
      const items = this.read(avro['items']!, namespace, false);
      return withDefault(new ConnectSchema('array', optional, { ...meta, doc: meta.doc ?? fieldDoc, valueSchema: items }), defaultJson, undefined);
    }
    if (type === 'map') {
      const values = this.read(avro['values']!, namespace, false);
      const keys = new ConnectSchema('string', false, {});
      return withDefault(
        new ConnectSchema('map', optional, { ...meta, doc: meta.doc ?? fieldDoc, keySchema: keys, valueSchema: values }),
        defaultJson,
        undefined,
      );
    }
    if (typeof type === 'string' && PRIMITIVES[type] !== undefined) {
      return withDefault(this.logical(avro, type, optional, { ...meta, doc: meta.doc ?? fieldDoc }), defaultJson, undefined);
    }
    return this.read(type ?? null, namespace, optional, defaultJson, fieldDoc);
  }

  private logical(avro: AvroObject, type: string, optional: boolean, meta: ConnectSchema['meta']): ConnectSchema {
    const logicalType = avro['logicalType'];
    if (type === 'bytes' && logicalType === 'decimal') {
      const scale = typeof avro['scale'] === 'number' ? avro['scale'] : 0;
      const precision = typeof avro['precision'] === 'number' ? avro['precision'] : undefined;
      const parameters = new Map<string, string>([['scale', String(scale)]]);
      if (precision !== undefined) parameters.set(PRECISION_PARAMETER, String(precision));
      for (const [k, v] of meta.parameters ?? []) if (k !== 'scale') parameters.set(k, v);
      return new ConnectSchema('bytes', optional, { ...meta, name: DECIMAL, version: 1, parameters });
    }
    if (type === 'int' && logicalType === 'date') return new ConnectSchema('int32', optional, { ...meta, name: DATE, version: 1 });
    if (type === 'int' && logicalType === 'time-millis') return new ConnectSchema('int32', optional, { ...meta, name: TIME, version: 1 });
    if (type === 'long' && logicalType === 'timestamp-millis') return new ConnectSchema('int64', optional, { ...meta, name: TIMESTAMP, version: 1 });
    const connectType = avro['connect.type'];
    const base = type === 'int' && (connectType === 'int8' || connectType === 'int16') ? connectType : PRIMITIVES[type]!;
    return new ConnectSchema(base, optional, meta);
  }
}

/** `connect.name`, `connect.version`, `connect.doc`, `connect.parameters` of an Avro schema. */
function connectMeta(avro: AvroObject): { name?: string; version?: number; doc?: string; parameters?: Map<string, string> } {
  const parametersJson = avro['connect.parameters'];
  const parameters =
    parametersJson !== null && typeof parametersJson === 'object' && !Array.isArray(parametersJson)
      ? new Map(Object.entries(parametersJson).map(([k, v]): [string, string] => [k, String(v)]))
      : undefined;
  const version = avro['connect.version'];
  return {
    ...(text(avro['connect.name']) === undefined ? {} : { name: text(avro['connect.name'])! }),
    ...(typeof version === 'number' ? { version } : {}),
    ...(text(avro['connect.doc']) === undefined ? {} : { doc: text(avro['connect.doc'])! }),
    ...(parameters === undefined ? {} : { parameters }),
  };
}

function withOptional(schema: ConnectSchema, optional: boolean): ConnectSchema {
  return schema.optional === optional ? schema : new ConnectSchema(schema.type, optional, schema.meta);
}

function withDefault(schema: ConnectSchema, defaultJson: AvroJson | undefined, doc: string | undefined): ConnectSchema {
  const withDoc = doc !== undefined && schema.meta.doc === undefined ? new ConnectSchema(schema.type, schema.optional, { ...schema.meta, doc }) : schema;
  if (defaultJson === undefined || defaultJson === null) return withDoc;
  const defaultValue: ConnectValue = avroDefaultToConnect(withDoc, defaultJson);
  return new ConnectSchema(withDoc.type, withDoc.optional, { ...withDoc.meta, defaultValue });
}

function text(value: AvroJson | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function fullName(name: string, namespace: string): string {
  return name.includes('.') || namespace === '' ? name : `${namespace}.${name}`;
}

/** The Avro schema (JSON) AvroData writes for a Connect schema. */
export function fromConnectSchema(schema: ConnectSchema): AvroJson {
  return new AvroWriter().write(schema, false);
}

class AvroWriter {
  private readonly defined = new Set<string>();
  private unnamed = 0;

  /** `forField`: the schema of a record field, whose union order follows its default. */
  write(schema: ConnectSchema, forField: boolean): AvroJson {
    const base = this.base(schema);
    if (!schema.optional) return base;
    const hasDefault = forField && schema.meta.defaultValue !== undefined && schema.meta.defaultValue !== null;
    return hasDefault ? [base, 'null'] : ['null', base];
  }

  private base(schema: ConnectSchema): AvroJson {
    const { name, version, doc, parameters } = schema.meta;
    const props: AvroObject = {};
    if (version !== undefined) props['connect.version'] = version;
    if (doc !== undefined) props['connect.doc'] = doc;
    if (parameters !== undefined && parameters.size > 0) props['connect.parameters'] = Object.fromEntries(parameters);
    if (name !== undefined) props['connect.name'] = name;
    switch (name) {
      case DECIMAL: {
        const scale = Number(parameters?.get('scale') ?? '0');
        const precision = Number(parameters?.get(PRECISION_PARAMETER) ?? DEFAULT_PRECISION);
        return { type: 'bytes', scale, precision, ...props, logicalType: 'decimal' };
      }
      case DATE:
        return { type: 'int', ...props, logicalType: 'date' };
      case TIME:
        return { type: 'int', ...props, logicalType: 'time-millis' };
      case TIMESTAMP:
        return { type: 'long', ...props, logicalType: 'timestamp-millis' };
    }
    switch (schema.type) {
      case 'int8':
      case 'int16':
        return { type: 'int', 'connect.type': schema.type, ...props };
      case 'int32':
        return plain('int', props);
      case 'int64':
        return plain('long', props);
      case 'float32':
        return plain('float', props);
      case 'float64':
        return plain('double', props);
      case 'boolean':
        return plain('boolean', props);
      case 'string':
        return plain('string', props);
      case 'bytes': {
        const size = parameters?.get(FIXED_SIZE_PARAMETER);
        if (size === undefined) return plain('bytes', props);
        const fixedName = name ?? this.nextDefaultName();
        if (this.defined.has(fixedName)) return fixedName;
        this.defined.add(fixedName);
        return { type: 'fixed', ...splitName(fixedName), size: Number(size), ...props };
      }
      case 'array':
        return { type: 'array', items: this.write(schema.meta.valueSchema!, false), ...props };
      case 'map':
        if (schema.meta.keySchema!.type !== 'string' || schema.meta.keySchema!.optional) {
          throw new ConnectDataError('maps whose keys are not required strings are not written by the avro converter');
        }
        return { type: 'map', values: this.write(schema.meta.valueSchema!, false), ...props };
      case 'struct': {
        const recordName = name ?? this.nextDefaultName();
        if (this.defined.has(recordName)) return recordName;
        this.defined.add(recordName);
        const fields = schema.fields.map((field) => {
          const out: AvroObject = { name: field.name, type: this.write(field.schema, true) };
          if (field.schema.meta.doc !== undefined) out['doc'] = field.schema.meta.doc;
          const fallback = field.schema.meta.defaultValue;
          if (fallback !== undefined && fallback !== null) out['default'] = connectDefaultToAvro(field.schema, fallback);
          else if (field.schema.optional) out['default'] = null;
          return out;
        });
        return { type: 'record', ...splitName(recordName), ...(doc === undefined ? {} : { doc }), fields, ...props };
      }
    }
  }

  private nextDefaultName(): string {
    this.unnamed++;
    return `${DEFAULT_NAMESPACE}.${DEFAULT_RECORD}${this.unnamed === 1 ? '' : this.unnamed}`;
  }
}

function plain(type: string, props: AvroObject): AvroJson {
  return Object.keys(props).length === 0 ? type : { type, ...props };
}

function splitName(full: string): { name: string; namespace?: string } {
  const dot = full.lastIndexOf('.');
  return dot < 0 ? { name: full } : { name: full.slice(dot + 1), namespace: full.slice(0, dot) };
}
