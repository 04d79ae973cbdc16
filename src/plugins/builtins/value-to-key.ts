/**
 * `value_to_key`: replaces the record's key by fields of its value (Kafka Connect's ValueToKey):
 * schemaless, a HashMap of the fields (null where the value lacks one); with a schema, a struct
 * whose schema has those fields' schemas, in the order given (a field the value's schema lacks
 * fails the record). The key is written by the flow's key converter.
 */
import { z } from '../api';
import {
  ConnectDataError,
  JavaHashMap,
  requireMap,
  requireStruct,
  SchemaAndValue,
  Struct,
  type ConnectSchema,
  type ConnectValue,
} from '../connect/connect-value';
import { put, structSchema } from '../connect/connect-schema';
import { defineFieldTransform } from '../connect/field-transform';

const PURPOSE = 'copying fields from value to key';

export const valueToKey = defineFieldTransform({
  name: 'value_to_key',
  connectClass: 'ValueToKey',
  summary: "Replaces the record's key by fields of its value (a JSON object or struct).",
  configSchema: z.strictObject({
    fields: z.array(z.string()).min(1).describe('Fields of the value that make the key, in this order (Connect: `fields`).'),
  }),
  sides: () => ['key', 'value'],
  createField({ fields }) {
    const cache = new WeakMap<ConnectSchema, ConnectSchema>();
    return {
      applyData(record) {
        const data = record.value;
        if (data instanceof SchemaAndValue) {
          const value = requireStruct(data.value, PURPOSE);
          let keySchema = cache.get(value.schema);
          if (keySchema === undefined) {
            const keyFields = fields.map((field): [string, ConnectSchema] => {
              const found = value.schema.field(field);
              if (found === undefined) throw new ConnectDataError(`Field does not exist: ${field}`);
              return [field, found.schema];
            });
            cache.set(value.schema, (keySchema = structSchema(keyFields)));
          }
          const key = new Struct(keySchema);
          for (const field of fields) put(key, field, value.get(field));
          return record.with('key', new SchemaAndValue(keySchema, key));
        }
        const value = requireMap(data, PURPOSE);
        const key = JavaHashMap.withCapacity<ConnectValue>(fields.length);
        for (const field of fields) key.set(field, value.get(field) ?? null);
        return record.with('key', key);
      },
    };
  },
});
