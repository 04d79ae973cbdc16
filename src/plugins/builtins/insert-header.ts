/**
 * `insert_header`: appends a fixed header to every record (Kafka Connect's InsertHeader).
 */
import { defineTransform, z, type RecordHeader } from '../api';

export const insertHeader = defineTransform({
  name: 'insert_header',
  summary: 'Appends a header with a fixed value to every record, after the headers it already has.',
  configSchema: z
    .strictObject({
      header: z.string().min(1).describe('Key of the header to append. Existing headers with this key are kept.'),
      value: z
        .string()
        .nullable()
        .optional()
        .describe('Header value as text, written as UTF-8; null writes a null value. Give exactly one of value and value_base64.'),
      value_base64: z.base64().optional().describe('Header value as base64, for binary values. Give exactly one of value and value_base64.'),
    })
    .superRefine((config, ctx) => {
      if ((config.value === undefined) === (config.value_base64 === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'Give exactly one of value and value_base64', path: ['value'] });
      }
    }),
  create(config) {
    const value =
      config.value_base64 !== undefined
        ? Buffer.from(config.value_base64, 'base64')
        : config.value === null || config.value === undefined
          ? null
          : Buffer.from(config.value, 'utf8');
    // One header object shared by every record: records are never mutated downstream.
    const header: RecordHeader = Object.freeze({ key: config.header, value });
    return {
      apply(record) {
        return { ...record, headers: [...record.headers, header] };
      },
    };
  },
});
