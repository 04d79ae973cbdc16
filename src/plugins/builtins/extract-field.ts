/**
 * `extract_field`: replaces a map key or value by one of its fields (Kafka Connect's
 * ExtractField); with `field_syntax_version: V2` the field is a path of nested fields (KIP-821:
 * `a.b`, `` `a.b`.c ``). Schemaless, a missing field gives null; with a schema, the field's schema
 * comes along and a field the schema lacks fails the record; a null key or value passes
 * unchanged, anything but a map fails the record.
 */
import { z } from '../api';
import { ConnectDataError, requireMap, requireStruct, SchemaAndValue } from '../connect/connect-value';
import { fieldFrom, fieldSyntaxVersion, parseFieldPath, valueFromMap, valueFromStruct } from '../connect/field-path';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const extractField = defineFieldTransform({
  name: 'extract_field',
  connectClass: 'ExtractField',
  summary: "Replaces the record's key or value (a JSON object) by one of its fields, or with field_syntax_version V2 a nested one.",
  configSchema: z
    .strictObject({
      on: onSide,
      field: z.string().describe('Name of the field to keep; with field_syntax_version V2 a path (`a.b`, `` `a.b`.c ``).'),
      field_syntax_version: fieldSyntaxVersion,
    })
    .transform((config, ctx) => {
      try {
        return { ...config, steps: parseFieldPath(config.field, config.field_syntax_version) };
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message, path: ['field'] });
        return z.NEVER;
      }
    }),
  sides: (config) => [config.on],
  createField({ on, field, steps }) {
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (data instanceof SchemaAndValue) {
          const value = data.value === null ? null : requireStruct(data.value, 'field extraction');
          const extracted = fieldFrom(data.schema, steps);
          if (extracted === undefined) throw new ConnectDataError(`Unknown field: ${field}`);
          return record.with(on, new SchemaAndValue(extracted.schema, value === null ? null : valueFromStruct(value, steps)));
        }
        return record.with(on, valueFromMap(requireMap(data, 'field extraction'), steps));
      },
    };
  },
});
