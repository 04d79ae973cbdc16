/**
 * `flatten`: turns nested maps or structs of the key or value into top-level fields named by
 * their path, joined by `delimiter` (Kafka Connect's Flatten). Schemaless, the result is a
 * LinkedHashMap in the order the nested maps iterate; with a schema, the struct schema gets one
 * field per leaf, optional when it or a parent was, with the parent's default where the leaf
 * has none; arrays are kept as they are, and a map field fails the record (Connect 4.3.1 has no
 * flattening for maps with a schema). A null key or value passes.
 */
import { z } from '../api';
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  JavaHashMap,
  javaClassName,
  requireMap,
  SchemaAndValue,
  Struct,
  type ConnectMap,
  type ConnectSchema,
  type ConnectValue,
} from '../connect/connect-value';
import { basicsOf, put, structSchema, withFlags } from '../connect/connect-schema';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const flatten = defineFieldTransform({
  name: 'flatten',
  connectClass: 'Flatten',
  summary: "Flattens nested objects (structs) of the record's key or value into top-level fields named by their path (`a.b`).",
  configSchema: z.strictObject({
    on: onSide,
    delimiter: z.string().default('.').describe('What joins the names along a path (Connect: `delimiter`, default `.`).'),
  }),
  sides: (config) => [config.on],
  createField({ on, delimiter }) {
    const name = (prefix: string, field: string): string => (prefix === '' ? field : `${prefix}${delimiter}${field}`);

    const flattenMap = (map: ConnectMap, prefix: string, out: ConnectMap): void => {
      for (const [key, value] of map) {
        const field = name(prefix, key);
        if (value instanceof JavaHashMap) flattenMap(requireMap(value, 'flattening'), field, out);
        else if (value instanceof Struct || value instanceof SchemaAndValue || value instanceof ConnectDecimal || value instanceof ConnectDate) {
          throw new ConnectDataError(`Flatten transformation does not support class ${javaClassName(value)} for record without schemas (for field ${field}).`);
        } else out.set(field, value);
      }
    };

    const flatSchema = (schema: ConnectSchema): ConnectSchema => {
      const fields: [string, ConnectSchema][] = [];
      const walk = (struct: ConnectSchema, prefix: string, optional: boolean, parentDefault: Struct | undefined): void => {
        for (const field of struct.fields) {
          const fieldName = name(prefix, field.name);
          const fieldOptional = optional || field.schema.optional;
          const own = field.schema.meta.defaultValue;
          const fallback = own !== undefined && own !== null ? own : parentDefault?.get(field.name);
          if (field.schema.type === 'struct') walk(field.schema, fieldName, fieldOptional, (fallback ?? undefined) as Struct | undefined);
          else if (field.schema.type === 'map')
            throw new ConnectDataError(`Flatten transformation does not support MAP for record with schemas (for field ${fieldName}).`);
          else fields.push([fieldName, withFlags(field.schema, fieldOptional, fallback ?? undefined)]);
        }
      };
      const own = schema.meta.defaultValue;
      walk(schema, '', schema.optional, own instanceof Struct ? own : undefined);
      return structSchema(fields, { basics: basicsOf(schema) });
    };

    const flattenStruct = (struct: Struct | null, prefix: string, out: Struct): void => {
      if (struct === null) return;
      for (const field of struct.schema.fields) {
        const fieldName = name(prefix, field.name);
        const value = struct.get(field.name);
        if (field.schema.type === 'struct') flattenStruct(value as Struct | null, fieldName, out);
        else put(out, fieldName, value);
      }
    };

    const cache = new WeakMap<ConnectSchema, ConnectSchema>();
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (data instanceof SchemaAndValue) {
          if (data.schema.type !== 'struct') throw new ConnectDataError(`Only Struct objects supported for [flattening], found: ${javaClassName(data.value)}`);
          let schema = cache.get(data.schema);
          if (schema === undefined) cache.set(data.schema, (schema = flatSchema(data.schema)));
          if (data.value === null) return record.with(on, new SchemaAndValue(schema, null));
          if (!(data.value instanceof Struct))
            throw new ConnectDataError(`Only Struct objects supported for [flattening], found: ${javaClassName(data.value)}`);
          const out = new Struct(schema);
          flattenStruct(data.value, '', out);
          return record.with(on, new SchemaAndValue(schema, out));
        }
        const out = JavaHashMap.createLinked<ConnectValue>();
        flattenMap(requireMap(data, 'flattening'), '', out);
        return record.with(on, out);
      },
    };
  },
});
