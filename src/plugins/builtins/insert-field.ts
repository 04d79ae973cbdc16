/**
 * `insert_field`: adds fields to a map key or value (Kafka Connect's InsertField, schemaless):
 * the record's topic (as the flow names it at this step), partition, source offset, timestamp
 * and a fixed string, in that order. A null key or value passes unchanged; anything but a map
 * fails the record, as in Connect.
 */
import { z } from '../api';
import { ConnectInt, JavaHashMap, requireMap } from '../connect/connect-value';
import { defineFieldTransform, onSide } from '../connect/field-transform';

/** Connect's `name!` / `name?` (required / optional in a schema): the name is what counts here. */
const fieldName = (what: string) =>
  z
    .string()
    .min(1)
    .transform((name) => name.replace(/[!?]$/, ''))
    .optional()
    .describe(`Field to put the ${what} in; none when not given. A trailing ! or ? (Connect's required/optional mark) is ignored.`);

export const insertField = defineFieldTransform({
  name: 'insert_field',
  connectClass: 'InsertField',
  summary: "Adds fields to the record's key or value (a JSON object): its topic, partition, source offset, timestamp or a fixed string.",
  configSchema: z
    .strictObject({
      on: onSide,
      topic_field: fieldName('topic name'),
      partition_field: fieldName('partition (int32)'),
      offset_field: fieldName('source offset (int64)'),
      timestamp_field: fieldName('timestamp (int64, epoch milliseconds)'),
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
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        const updated = JavaHashMap.copyOf(requireMap(data, 'field insertion'));
        if (config.topic_field !== undefined) updated.set(config.topic_field, record.topic);
        if (config.partition_field !== undefined) updated.set(config.partition_field, new ConnectInt('int32', BigInt(record.partition)));
        if (config.offset_field !== undefined) updated.set(config.offset_field, new ConnectInt('int64', BigInt(record.offset)));
        if (config.timestamp_field !== undefined) updated.set(config.timestamp_field, new ConnectInt('int64', BigInt(record.timestamp)));
        if (config.static_field !== undefined && config.static_value !== undefined) updated.set(config.static_field, config.static_value);
        return record.with(on, updated);
      },
    };
  },
});
