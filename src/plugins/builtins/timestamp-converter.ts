/**
 * `timestamp_converter`: converts a timestamp — the whole key or value, or one `field` of it —
 * between a formatted string, Unix time (int64 in `unix_precision`), and Connect's Date, Time and
 * Timestamp logical types (Kafka Connect's TimestampConverter). The source type comes from the
 * field's schema, or schemaless from the value (a string, an int64 as Unix time). Dates are UTC
 * (Java's SimpleDateFormat in UTC, as Connect sets it); Date keeps the day, Time the time of day.
 * With a schema, the field's schema becomes the target type's, optional as it was. Schemaless,
 * Date, Time and Timestamp cannot be written by JsonConverter (Connect fails them the same way).
 */
import { z } from '../api';
import {
  ConnectDataError,
  ConnectDate,
  ConnectInt,
  JavaHashMap,
  javaClassName,
  requireMap,
  SchemaAndValue,
  Struct,
  type ConnectSchema,
  type ConnectValue,
} from '../connect/connect-value';
import { basicsOf, DATE, describeSchema, logicalSchema, primitive, put, structSchema, TIME, TIMESTAMP } from '../connect/connect-schema';
import { defineFieldTransform, onSide } from '../connect/field-transform';
import { JavaDateFormat } from '../java-date-format';

const TYPES = ['string', 'unix', 'Date', 'Time', 'Timestamp'] as const;
type TimestampType = (typeof TYPES)[number];
const MILLIS_PER_DAY = 86_400_000;
const PRECISION_MS: Readonly<Record<string, bigint>> = { seconds: 1000n, milliseconds: 1n };
const PURPOSE = 'converting timestamp formats';

export const timestampConverter = defineFieldTransform({
  name: 'timestamp_converter',
  connectClass: 'TimestampConverter',
  summary: 'Converts a timestamp (the key or value, or a field of it) between a formatted string, Unix time and Date / Time / Timestamp.',
  configSchema: z
    .strictObject({
      on: onSide,
      field: z.string().default('').describe('The field holding the timestamp; empty (the default) for the whole key or value (Connect: `field`).'),
      target_type: z.enum(TYPES).describe('What it becomes: string, unix, Date, Time or Timestamp (Connect: `target.type`).'),
      format: z
        .string()
        .default('')
        .describe("Java SimpleDateFormat pattern (UTC) for string timestamps, read or written (Connect: `format`); letters y M d H m s S and 'quoted text'."),
      unix_precision: z
        .enum(['seconds', 'milliseconds', 'microseconds', 'nanoseconds'])
        .default('milliseconds')
        .describe('The unit of Unix times, read or written (Connect: `unix.precision`).'),
    })
    .superRefine((config, ctx) => {
      if (config.target_type === 'string' && config.format.trim() === '') {
        ctx.addIssue({ code: 'custom', message: 'TimestampConverter requires format option to be specified when using string timestamps', path: ['format'] });
        return;
      }
      if (config.format !== '') {
        try {
          JavaDateFormat.parse(config.format);
        } catch (error) {
          ctx.addIssue({
            code: 'custom',
            message: `TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: ${(error as Error).message}`,
            path: ['format'],
          });
        }
      }
    }),
  sides: (config) => [config.on],
  createField(config) {
    const { on, field, target_type: target } = config;
    const format = config.format === '' ? undefined : JavaDateFormat.parse(config.format);
    const scale = PRECISION_MS[config.unix_precision];
    const fromUnix = (v: bigint): number => Number(scale !== undefined ? v * scale : config.unix_precision === 'microseconds' ? v / 1000n : v / 1_000_000n);
    const toUnix = (ms: number): bigint => {
      const v = BigInt(ms);
      if (config.unix_precision === 'seconds') return v / 1000n;
      if (config.unix_precision === 'milliseconds') return v;
      return v * (config.unix_precision === 'microseconds' ? 1000n : 1_000_000n);
    };

    const toRaw = (value: ConnectValue, type: TimestampType): number => {
      if (type === 'string') {
        if (format === undefined) throw new ConnectDataError('TimestampConverter requires format option to be specified when using string timestamps');
        const ms = typeof value === 'string' ? format.parse(value) : undefined;
        if (ms === undefined) throw new ConnectDataError(`Could not parse timestamp: value does not match pattern (${config.format})`);
        return ms;
      }
      if (type === 'unix') {
        if (!(value instanceof ConnectInt) || value.type !== 'int64')
          throw new ConnectDataError(`Expected Unix time as java.lang.Long, found: class ${javaClassName(value)}`);
        return fromUnix(value.value);
      }
      if (!(value instanceof ConnectDate)) throw new ConnectDataError(`Expected ${type} to be a java.util.Date, but found class ${javaClassName(value)}`);
      return value.epochMs;
    };
    const toType = (ms: number): ConnectValue => {
      switch (target) {
        case 'string':
          return format!.format(ms);
        case 'unix':
          return new ConnectInt('int64', toUnix(ms));
        case 'Date':
          return new ConnectDate(Math.floor(ms / MILLIS_PER_DAY) * MILLIS_PER_DAY);
        case 'Time':
          return new ConnectDate(((ms % MILLIS_PER_DAY) + MILLIS_PER_DAY) % MILLIS_PER_DAY);
        case 'Timestamp':
          return new ConnectDate(ms);
      }
    };
    const convert = (value: ConnectValue, type: TimestampType | undefined): ConnectValue =>
      value === null ? null : toType(toRaw(value, type ?? inferType(value)));
    const targetSchema = (optional: boolean): ConnectSchema =>
      target === 'string'
        ? primitive('string', optional)
        : target === 'unix'
          ? primitive('int64', optional)
          : logicalSchema(target === 'Date' ? DATE : target === 'Time' ? TIME : TIMESTAMP, optional);

    const cache = new WeakMap<ConnectSchema, ConnectSchema>();
    return {
      applyData(record) {
        const data = record.side(on);
        if (data instanceof SchemaAndValue) {
          const { schema } = data;
          if (field === '') return record.with(on, new SchemaAndValue(targetSchema(schema.optional), convert(data.value, typeOfSchema(schema))));
          if (data.value !== null && !(data.value instanceof Struct))
            throw new ConnectDataError(`Only Struct objects supported for [${PURPOSE}], found: ${javaClassName(data.value)}`);
          let updated = cache.get(schema);
          if (updated === undefined) {
            const fields = schema.fields.map((f): [string, ConnectSchema] => [f.name, f.name === field ? targetSchema(f.schema.optional) : f.schema]);
            cache.set(schema, (updated = structSchema(fields, { basics: basicsOf(schema), optional: schema.optional })));
          }
          if (data.value === null) return record.with(on, new SchemaAndValue(updated, null));
          const out = new Struct(updated);
          for (const f of schema.fields) put(out, f.name, f.name === field ? convert(data.value.get(f.name), typeOfSchema(f.schema)) : data.value.get(f.name));
          return record.with(on, new SchemaAndValue(updated, out));
        }
        if (data === null || field === '') return record.with(on, convert(data, undefined));
        const value = requireMap(data, PURPOSE);
        const updated = JavaHashMap.copyOf(value);
        updated.set(field, convert(value.get(field) ?? null, undefined));
        return record.with(on, updated);
      },
    };
  },
});

function inferType(value: ConnectValue): TimestampType {
  if (value instanceof ConnectDate) return 'Timestamp';
  if (value instanceof ConnectInt && value.type === 'int64') return 'unix';
  if (typeof value === 'string') return 'string';
  throw new ConnectDataError(`TimestampConverter does not support class ${javaClassName(value)} objects as timestamps`);
}

function typeOfSchema(schema: ConnectSchema): TimestampType {
  if (schema.name === TIMESTAMP) return 'Timestamp';
  if (schema.name === DATE) return 'Date';
  if (schema.name === TIME) return 'Time';
  if (schema.type === 'string') return 'string';
  if (schema.type === 'int64') return 'unix';
  throw new ConnectDataError(`Schema ${describeSchema(schema)} does not correspond to a known timestamp type format`);
}
