/**
 * `mask_field`: replaces fields of the key or value by an empty value of their type (Kafka
 * Connect's MaskField): false, 0, 0.0, "", an empty list or map, a decimal 0 (of scale 0, as
 * Java's BigDecimal.ZERO, which a Decimal field of another scale cannot be written with) and the
 * epoch for a date, time or timestamp; or, with `replacement`, by that string (string fields) or
 * number (number and decimal fields). Schemaless, of a map, where a field the record lacks is set
 * to null; with a schema (json_envelope), of a struct, whose schema stays, and where a field the
 * schema lacks is left out. A struct or bytes field cannot be masked; a null key or value fails
 * the record, as in Connect.
 */
import { PluginError, z } from '../api';
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  JavaHashMap,
  javaClassName,
  requireMap,
  requireStruct,
  SchemaAndValue,
  Struct,
  type ConnectValue,
} from '../connect/connect-value';
import { put } from '../connect/connect-schema';
import { defineFieldTransform, onSide } from '../connect/field-transform';

export const maskField = defineFieldTransform({
  name: 'mask_field',
  connectClass: 'MaskField',
  summary: "Replaces fields of the record's key or value (a JSON object) by an empty value of their type, or by a replacement.",
  configSchema: z.strictObject({
    on: onSide,
    fields: z.array(z.string()).min(1).describe('Fields to mask.'),
    replacement: z.string().optional().describe('What string and number fields get instead of the empty value (a number field needs a number).'),
  }),
  sides: (config) => [config.on],
  createField({ on, fields, replacement }) {
    const maskedFields = new Set(fields);
    return {
      applyData(record) {
        const data = record.side(on);
        if (data instanceof SchemaAndValue) {
          const struct = requireStruct(data.value, 'mask fields');
          const updated = new Struct(struct.schema);
          for (const field of struct.schema.fields) {
            // `Struct.get`: a null takes the field's default.
            const value = struct.get(field.name);
            put(updated, field.name, maskedFields.has(field.name) ? masked(value, replacement, field.name) : value);
          }
          return record.with(on, new SchemaAndValue(data.schema, updated));
        }
        const map = requireMap(record.side(on), 'mask fields');
        const updated = JavaHashMap.copyOf(map);
        for (const field of fields) updated.set(field, masked(map.get(field) ?? null, replacement, field));
        return record.with(on, updated);
      },
    };
  },
});

function masked(value: ConnectValue, replacement: string | undefined, field: string): ConnectValue {
  if (value === null) return null;
  if (replacement === undefined) {
    if (typeof value === 'boolean') return false;
    if (typeof value === 'string') return '';
    if (value instanceof ConnectInt) return new ConnectInt(value.type, 0n);
    if (value instanceof ConnectFloat) return new ConnectFloat(value.type, 0);
    if (value instanceof JavaHashMap) return JavaHashMap.create<ConnectValue>();
    if (Array.isArray(value)) return [];
    if (value instanceof ConnectDecimal) return new ConnectDecimal(0n, 0);
    if (value instanceof ConnectDate) return new ConnectDate(0);
    throw new ConnectDataError(`Cannot mask value of type: class ${javaClassName(value)}`);
  }
  if (typeof value === 'string') return replacement;
  if (value instanceof ConnectInt && /^[+-]?\d+$/.test(replacement.trim())) return new ConnectInt(value.type, BigInt.asIntN(64, BigInt(replacement.trim())));
  if (value instanceof ConnectFloat && replacement.trim() !== '' && Number.isFinite(Number(replacement))) {
    const number = Number(replacement);
    return new ConnectFloat(value.type, value.type === 'float32' ? Math.fround(number) : number);
  }
  if (value instanceof ConnectDecimal) {
    // `new BigDecimal(replacement)`: its scale is the replacement's.
    const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(replacement);
    if (match !== null && `${match[2]}${match[3] ?? ''}` !== '') {
      const fraction = match[3] ?? '';
      return new ConnectDecimal(BigInt(`${match[1]}${match[2]}${fraction}`), fraction.length - Number(match[4] ?? 0));
    }
  }
  if (value instanceof ConnectInt || value instanceof ConnectFloat || value instanceof ConnectDecimal) {
    throw new PluginError(
      'mask_field',
      `the replacement is not a ${value instanceof ConnectInt ? 'whole ' : ''}number, so it cannot replace the number in field "${field}"`,
    );
  }
  throw new ConnectDataError(`Cannot mask value of type ${javaClassName(value)} with custom replacement (field "${field}")`);
}
