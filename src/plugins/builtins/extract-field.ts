/**
 * `extract_field`: replaces a map key or value by one of its fields (Kafka Connect's
 * ExtractField, field names as written: `field.syntax.version=V1`); schemaless, a missing field
 * gives null; with a schema, the field's schema comes along and a field the schema lacks fails
 * the record; a null key or value passes unchanged, anything but a map fails the record.
 */
import { z } from '../api';
import { ConnectDataError, requireMap, requireStruct, SchemaAndValue } from '../connect/connect-value';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const extractField = defineFieldTransform({
  name: 'extract_field',
  connectClass: 'ExtractField',
  summary: "Replaces the record's key or value (a JSON object) by one of its fields.",
  configSchema: z.strictObject({ on: onSide, field: z.string().describe('Name of the field to keep.') }),
  sides: (config) => [config.on],
  createField({ on, field }) {
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (data instanceof SchemaAndValue) {
          const value = data.value === null ? null : requireStruct(data.value, 'field extraction');
          const extracted = data.schema.field(field);
          if (extracted === undefined) throw new ConnectDataError(`Unknown field: ${field}`);
          return record.with(on, new SchemaAndValue(extracted.schema, value === null ? null : value.get(field)));
        }
        return record.with(on, requireMap(data, 'field extraction').get(field) ?? null);
      },
    };
  },
});
