/**
 * `hoist_field`: wraps the key or value in a map with one field (Kafka Connect's HoistField,
 * schemaless and with a schema: a struct of that one field); a null becomes `{"field": null}`, as
 * in Connect.
 */
import { z } from '../api';
import { JavaHashMap, SchemaAndValue } from '../connect/connect-value';
import { structOf, structSchema } from '../connect/connect-schema';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const hoistField = defineFieldTransform({
  name: 'hoist_field',
  connectClass: 'HoistField',
  summary: "Wraps the record's key or value in a JSON object with one field.",
  configSchema: z.strictObject({ on: onSide, field: z.string().describe('Name of the one field.') }),
  sides: (config) => [config.on],
  createField({ on, field }) {
    return {
      applyData(record) {
        const data = record.side(on);
        if (!(data instanceof SchemaAndValue)) return record.with(on, JavaHashMap.of([[field, data]]));
        // With a schema: a struct of one field with the key's or value's schema.
        const schema = structSchema([[field, data.schema]]);
        return record.with(on, new SchemaAndValue(schema, structOf(schema, [[field, data.value]])));
      },
    };
  },
});
