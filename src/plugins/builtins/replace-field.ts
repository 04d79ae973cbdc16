/**
 * `replace_field`: keeps, drops and renames fields of a map key or value (Kafka Connect's
 * ReplaceField, schemaless): a field is kept when it is not in `exclude` and, if `include` is
 * given, in `include`; kept fields get their new names from `renames`. A null key or value
 * passes unchanged; anything but a map fails the record.
 */
import { z } from '../api';
import { JavaHashMap, requireMap, type ConnectValue } from '../connect/connect-value';
import { defineFieldTransform, onSide } from '../connect/field-transform';

const renameSchema = z
  .string()
  .regex(/^[^:]*:[^:]*$/, 'a rename is old:new')
  .transform((pair) => pair.split(':') as [string, string]);

export const replaceField = defineFieldTransform({
  name: 'replace_field',
  connectClass: 'ReplaceField',
  summary: "Keeps (include), drops (exclude) and renames (renames: old:new) fields of the record's key or value (a JSON object).",
  configSchema: z.strictObject({
    on: onSide,
    exclude: z.array(z.string()).default([]).describe('Fields to drop.'),
    include: z.array(z.string()).default([]).describe('Fields to keep; when given, every other field is dropped.'),
    renames: z.array(renameSchema).default([]).describe('Renames, each `old:new`.'),
  }),
  sides: (config) => [config.on],
  createField(config) {
    const { on } = config;
    const exclude = new Set(config.exclude);
    const include = new Set(config.include);
    const renames = new Map(config.renames);
    const keeps = (field: string): boolean => !exclude.has(field) && (include.size === 0 || include.has(field));
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        const map = requireMap(data, 'field replacement');
        const updated = JavaHashMap.withCapacity<ConnectValue>(map.size);
        for (const [field, value] of map) if (keeps(field)) updated.set(renames.get(field) ?? field, value);
        return record.with(on, updated);
      },
    };
  },
});
