/**
 * `mask_field`: replaces fields of a map key or value by an empty value of their type (Kafka
 * Connect's MaskField, schemaless): false, 0, 0.0, "", an empty list or map; or, with
 * `replacement`, by that string (string fields) or number (number fields). A field the record
 * lacks is set to null; a null key or value fails the record, as in Connect.
 */
import { PluginError, z } from '../api';
import { ConnectDataError, ConnectFloat, ConnectInt, JavaHashMap, javaClassName, requireMap, type ConnectValue } from '../connect/connect-value';
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
    return {
      applyData(record) {
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
    return Buffer.alloc(0);
  }
  if (typeof value === 'string') return replacement;
  if (value instanceof ConnectInt && /^[+-]?\d+$/.test(replacement.trim())) return new ConnectInt(value.type, BigInt.asIntN(64, BigInt(replacement.trim())));
  if (value instanceof ConnectFloat && replacement.trim() !== '' && Number.isFinite(Number(replacement))) {
    const number = Number(replacement);
    return new ConnectFloat(value.type, value.type === 'float32' ? Math.fround(number) : number);
  }
  if (value instanceof ConnectInt || value instanceof ConnectFloat) {
    throw new PluginError(
      'mask_field',
      `the replacement is not a ${value instanceof ConnectInt ? 'whole ' : ''}number, so it cannot replace the number in field "${field}"`,
    );
  }
  throw new ConnectDataError(`Cannot mask value of type ${javaClassName(value)} with custom replacement (field "${field}")`);
}
