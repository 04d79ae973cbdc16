/**
 * `hoist_field`: wraps the key or value in a map with one field (Kafka Connect's HoistField,
 * schemaless); a null becomes `{"field": null}`, as in Connect.
 */
import { z } from '../api';
import { JavaHashMap } from '../connect/connect-value';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const hoistField = defineFieldTransform({
  name: 'hoist_field',
  connectClass: 'HoistField',
  summary: "Wraps the record's key or value in a JSON object with one field.",
  configSchema: z.strictObject({ on: onSide, field: z.string().describe('Name of the one field.') }),
  sides: (config) => [config.on],
  createField({ on, field }) {
    return { applyData: (record) => record.with(on, JavaHashMap.of([[field, record.side(on)]])) };
  },
});
