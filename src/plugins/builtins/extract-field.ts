/**
 * `extract_field`: replaces a map key or value by one of its fields (Kafka Connect's
 * ExtractField, schemaless, field names as written: `field.syntax.version=V1`); a missing field
 * gives null, a null key or value passes unchanged, anything but a map fails the record.
 */
import { z } from '../api';
import { requireMap } from '../connect/connect-value';
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
        return record.with(on, requireMap(data, 'field extraction').get(field) ?? null);
      },
    };
  },
});
