/**
 * `insert_field`: adds fields to the key or value (Kafka Connect's InsertField): the record's
 * topic (as the flow names it at this step), partition, source offset, timestamp and a fixed
 * string, in that order. Schemaless, to a map; with a schema (json_envelope), to a struct whose
 * schema is the old one's fields, then the new ones — optional unless the name ends in `!`
 * (`?` or nothing: optional), the timestamp as Connect's Timestamp — with the old schema's name,
 * version, doc and parameters, built once per schema. A null key or value passes unchanged;
 * anything but a map (a struct) fails the record, as in Connect.
 */
import { z } from '../api';
import {
  ConnectDate,
  ConnectInt,
  JavaHashMap,
  requireMap,
  requireStruct,
  SchemaAndValue,
  type ConnectSchema,
  type ConnectValue,
} from '../connect/connect-value';
import { basicsOf, logicalSchema, primitive, structOf, structSchema, TIMESTAMP } from '../connect/connect-schema';
import { defineFieldTransform, onSide } from '../connect/field-transform';

/** Connect's `InsertionSpec`: `name!` is a required field in a schema, `name?` or `name` an optional one. */
const fieldName = (what: string) =>
  z
    .string()
    .min(1)
    .transform((spec) => ({ name: spec.replace(/[!?]$/, ''), optional: !spec.endsWith('!') }))
    .optional()
    .describe(
      `Field to put the ${what} in; none when not given. With a schema the field is optional, or required when the name ends in ! (a trailing ? is optional too).`,
    );

export const insertField = defineFieldTransform({
  name: 'insert_field',
  connectClass: 'InsertField',
  summary: "Adds fields to the record's key or value (a JSON object or struct): its topic, partition, source offset, timestamp or a fixed string.",
  configSchema: z
    .strictObject({
      on: onSide,
      topic_field: fieldName('topic name'),
      partition_field: fieldName('partition (int32)'),
      offset_field: fieldName('source offset (int64)'),
      timestamp_field: fieldName('timestamp (int64, epoch milliseconds; with a schema a Connect Timestamp)'),
      static_field: fieldName('static value'),
      static_value: z.string().optional().describe('The string static_field gets.'),
    })
    .superRefine((config, ctx) => {
      if (config.static_field !== undefined && config.static_value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'static_field needs static_value', path: ['static_value'] });
      }
    }),
  sides: (config) => [config.on],
  createField(config) {
    const { on } = config;
    const inserted = (record: { topic: string; partition: number; offset: number; timestamp: number }, timestamp: (ms: number) => ConnectValue) => {
      const fields: [string, ConnectValue][] = [];
      if (config.topic_field !== undefined) fields.push([config.topic_field.name, record.topic]);
      if (config.partition_field !== undefined) fields.push([config.partition_field.name, new ConnectInt('int32', BigInt(record.partition))]);
      if (config.offset_field !== undefined) fields.push([config.offset_field.name, new ConnectInt('int64', BigInt(record.offset))]);
      if (config.timestamp_field !== undefined) fields.push([config.timestamp_field.name, timestamp(record.timestamp)]);
      if (config.static_field !== undefined && config.static_value !== undefined) fields.push([config.static_field.name, config.static_value]);
      return fields;
    };

    // Connect's `makeUpdatedSchema`: the old fields, then the new ones in the order above.
    const updatedSchema = (schema: ConnectSchema): ConnectSchema => {
      const added: [string, ConnectSchema][] = [];
      const { topic_field, partition_field, offset_field, timestamp_field, static_field } = config;
      if (topic_field !== undefined) added.push([topic_field.name, primitive('string', topic_field.optional)]);
      if (partition_field !== undefined) added.push([partition_field.name, primitive('int32', partition_field.optional)]);
      if (offset_field !== undefined) added.push([offset_field.name, primitive('int64', offset_field.optional)]);
      if (timestamp_field !== undefined) added.push([timestamp_field.name, logicalSchema(TIMESTAMP, timestamp_field.optional)]);
      if (static_field !== undefined) added.push([static_field.name, primitive('string', static_field.optional)]);
      return structSchema([...schema.fields.map((f) => [f.name, f.schema] as const), ...added], { basics: basicsOf(schema) });
    };
    const cache = new WeakMap<ConnectSchema, ConnectSchema>();

    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (data instanceof SchemaAndValue) {
          if (data.value === null) return record;
          const struct = requireStruct(data.value, 'field insertion');
          let schema = cache.get(struct.schema);
          if (schema === undefined) cache.set(struct.schema, (schema = updatedSchema(struct.schema)));
          // Connect copies each field with `Struct.get`: a null takes the field's default.
          const copied = struct.schema.fields.map((f) => [f.name, struct.get(f.name)] as const);
          const updated = structOf(schema, [...copied, ...inserted(record, (ms) => new ConnectDate(ms))]);
          return record.with(on, new SchemaAndValue(schema, updated));
        }
        const updated = JavaHashMap.copyOf(requireMap(data, 'field insertion'));
        for (const [name, value] of inserted(record, (ms) => new ConnectInt('int64', BigInt(ms)))) updated.set(name, value);
        return record.with(on, updated);
      },
    };
  },
});
