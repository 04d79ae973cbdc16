/**
 * `replace_field`: keeps, drops and renames fields of the key or value (Kafka Connect's
 * ReplaceField): a field is kept when it is not in `exclude` and, if `include` is given, in
 * `include`; kept fields get their new names from `renames`. Schemaless, of a map; with a schema
 * (json_envelope), of a struct: the new schema has the kept fields in the old order under the old
 * schema's name, version, doc and parameters (built once per schema), and each new field takes
 * the value of the field whose rename gives its name, as Connect looks it up. A null key or value
 * passes unchanged; anything but a map (a struct) fails the record.
 */
import { z } from '../api';
import { JavaHashMap, requireMap, requireStruct, SchemaAndValue, type ConnectSchema, type ConnectValue } from '../connect/connect-value';
import { basicsOf, structOf, structSchema } from '../connect/connect-schema';
import { defineFieldTransform, onSide } from '../connect/field-transform';

const renameSchema = z
  .string()
  .regex(/^[^:]*:[^:]*$/, 'a rename is old:new')
  .transform((pair) => pair.split(':') as [string, string]);

export const replaceField = defineFieldTransform({
  name: 'replace_field',
  connectClass: 'ReplaceField',
  summary: "Keeps (include), drops (exclude) and renames (renames: old:new) fields of the record's key or value (a JSON object or struct).",
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
    // Java HashMaps, as Connect's: of two renames to one name, the one its inverse keeps is the
    // one the map iterates last.
    const renames = JavaHashMap.of(config.renames);
    const reverse = JavaHashMap.create<string>();
    for (const [from, to] of renames) reverse.set(to, from);
    const keeps = (field: string): boolean => !exclude.has(field) && (include.size === 0 || include.has(field));

    const updatedSchema = (schema: ConnectSchema): ConnectSchema =>
      structSchema(
        schema.fields.filter((f) => keeps(f.name)).map((f) => [renames.get(f.name) ?? f.name, f.schema] as const),
        { basics: basicsOf(schema) },
      );
    const cache = new WeakMap<ConnectSchema, ConnectSchema>();

    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (data instanceof SchemaAndValue) {
          if (data.value === null) return record;
          const struct = requireStruct(data.value, 'field replacement');
          let schema = cache.get(struct.schema);
          if (schema === undefined) cache.set(struct.schema, (schema = updatedSchema(struct.schema)));
          // `Struct.get` of the field the name came from (a null takes the field's default).
          const updated = structOf(
            schema,
            schema.fields.map((f) => [f.name, struct.get(reverse.get(f.name) ?? f.name)] as const),
          );
          return record.with(on, new SchemaAndValue(schema, updated));
        }
        const map = requireMap(data, 'field replacement');
        const updated = JavaHashMap.withCapacity<ConnectValue>(map.size);
        for (const [field, value] of map) if (keeps(field)) updated.set(renames.get(field) ?? field, value);
        return record.with(on, updated);
      },
    };
  },
});
