/**
 * `set_schema_metadata`: sets the name and/or version of the key's or value's schema (Kafka
 * Connect's SetSchemaMetadata); meaningful only with a schema (`json_envelope`): data without
 * one fails the record, as in Connect, and so does a schema that is not a struct's (Connect
 * 4.3.1 copies the old schema's fields, which only a struct has). A null passes.
 */
import { z } from '../api';
import { ConnectDataError, ConnectSchema, SchemaAndValue, Struct } from '../connect/connect-value';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const setSchemaMetadata = defineFieldTransform({
  name: 'set_schema_metadata',
  connectClass: 'SetSchemaMetadata',
  summary: "Sets the name and/or version of the schema of the record's key or value (Connect's schema envelope).",
  configSchema: z
    .strictObject({
      on: onSide,
      name: z.string().optional().describe('The schema name to set (Connect: `schema.name`).'),
      version: z.number().int().optional().describe('The schema version to set (Connect: `schema.version`).'),
    })
    .refine((config) => config.name !== undefined || config.version !== undefined, { message: 'set name, version or both', path: ['name'] }),
  sides: (config) => [config.on],
  createField({ on, name, version }) {
    const cache = new WeakMap<ConnectSchema, ConnectSchema>();
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (!(data instanceof SchemaAndValue)) throw new ConnectDataError('Schema required for [updating schema metadata]');
        // Connect 4.3.1 builds the new schema with the old one's fields, which only a struct has.
        if (data.schema.type !== 'struct') throw new ConnectDataError('Cannot list fields on non-struct type');
        let schema = cache.get(data.schema);
        if (schema === undefined) {
          const meta = { ...data.schema.meta, name: name ?? data.schema.meta.name, version: version ?? data.schema.meta.version };
          cache.set(data.schema, (schema = new ConnectSchema(data.schema.type, data.schema.optional, meta)));
        }
        let value = data.value;
        if (value instanceof Struct) {
          const moved = new Struct(schema);
          for (const field of schema.fields) moved.values[field.index] = value.getWithoutDefault(field.name);
          value = moved;
        }
        return record.with(on, new SchemaAndValue(schema, value));
      },
    };
  },
});
