/**
 * `header_from`: copies or moves fields of the key or value into headers (Kafka Connect's
 * HeaderFrom), one header per field, appended after the record's headers. Header values are
 * written as MM2 writes them: MM2's header converter is ByteArrayConverter (MirrorMakerConfig
 * sets it; the only one mirrorflow takes), so a bytes field becomes its bytes and a null field a
 * null header, and any other field fails the record with ByteArrayConverter's message. `move`
 * also drops the fields (from the schema too); a null key or value fails the record, as in
 * Connect.
 */
import { z } from '../api';
import {
  ConnectDataError,
  javaClassName,
  requireMap,
  requireStruct,
  SchemaAndValue,
  Struct,
  type ConnectSchema,
  type ConnectValue,
} from '../connect/connect-value';
import { basicsOf, put, structSchema } from '../connect/connect-schema';
import { JavaHashMap } from '../connect/java-hash-map';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const headerFrom = defineFieldTransform({
  name: 'header_from',
  connectClass: 'HeaderFrom',
  summary: "Copies or moves fields of the record's key or value into headers (bytes fields: MM2's header converter is ByteArrayConverter).",
  configSchema: z
    .strictObject({
      on: onSide,
      fields: z.array(z.string()).min(1).describe('Fields to take (Connect: `fields`).'),
      headers: z.array(z.string()).min(1).describe('Header names, one per field, in the same order (Connect: `headers`).'),
      operation: z.enum(['copy', 'move']).describe('`copy` keeps the fields, `move` drops them (Connect: `operation`).'),
    })
    .refine((config) => config.fields.length === config.headers.length, {
      message: "'fields' config must have the same number of elements as 'headers' config.",
      path: ['headers'],
    }),
  sides: (config) => [config.on],
  createField({ on, fields, headers, operation }) {
    const purpose = `header ${operation}`;
    const moved = new WeakMap<ConnectSchema, ConnectSchema>();
    return {
      applyData(record) {
        const data = record.side(on);
        const added: { key: string; value: Buffer | null }[] = [];
        if (data instanceof SchemaAndValue) {
          const value = requireStruct(data.value, purpose);
          let schema = data.schema;
          let updated: Struct = value;
          if (operation === 'move') {
            schema =
              moved.get(data.schema) ??
              structSchema(
                data.schema.fields.filter((f) => !fields.includes(f.name)).map((f) => [f.name, f.schema]),
                { basics: basicsOf(data.schema) },
              );
            moved.set(data.schema, schema);
            updated = new Struct(schema);
            for (const field of schema.fields) put(updated, field.name, value.get(field.name));
          }
          fields.forEach((field, i) => {
            const fieldSchema = data.schema.field(field)?.schema;
            if (fieldSchema === undefined) throw new ConnectDataError(`${field} is not a valid field name`);
            added.push({ key: headers[i]!, value: byteArrayHeader(fieldSchema, value.get(field)) });
          });
          return record.with(on, new SchemaAndValue(schema, updated)).withHeaders([...record.headers, ...added]);
        }
        const value = requireMap(data, purpose);
        const updated = JavaHashMap.copyOf(value);
        fields.forEach((field, i) => {
          if (operation === 'move') updated.delete(field);
          added.push({ key: headers[i]!, value: byteArrayHeader(undefined, value.get(field) ?? null) });
        });
        return record.with(on, updated).withHeaders([...record.headers, ...added]);
      },
    };
  },
});

/** ByteArrayConverter's `fromConnectHeader`. */
function byteArrayHeader(schema: ConnectSchema | undefined, value: ConnectValue): Buffer | null {
  if (schema !== undefined && schema.type !== 'bytes') throw new ConnectDataError(`Invalid schema type for ByteArrayConverter: ${schema.type.toUpperCase()}`);
  if (value !== null && !Buffer.isBuffer(value))
    throw new ConnectDataError(`ByteArrayConverter is not compatible with objects of type class ${javaClassName(value)}`);
  return value;
}
