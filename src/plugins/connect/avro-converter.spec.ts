import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../core/ports/logger';
import { builtInTransforms } from '../builtins';
import { PluginRegistry } from '../registry';
import { buildTransformChain } from '../transform-chain';
import { AvroConverter, avroType } from './avro-converter';
import { fromConnectSchema, toConnectSchema } from './avro-schema';
import { ConnectDate, ConnectDecimal, ConnectFloat, ConnectInt, ConnectSchema, JavaHashMap, SchemaAndValue, Struct } from './connect-value';
import { DATE, DECIMAL, logicalSchema, primitive, structSchema, TIMESTAMP } from './connect-schema';

const ORDER = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'item', type: 'string' },
    { name: 'qty', type: 'int' },
    { name: 'price', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
    { name: 'tags', type: { type: 'map', values: 'double' } },
  ],
};

/**
 * One Order in Avro binary, byte by byte as the Avro specification encodes it: zig-zag varints,
 * length-prefixed strings and bytes, the union's branch index, the enum's symbol index, a map as
 * one block. Values from Confluent's AvroData tests where they have them: the decimal 1.56 is
 * the two bytes 0x00 0x9c (scale 2), the date 10000 days after the epoch.
 */
const ORDER_BYTES = Buffer.from([
  // id 2^53 + 1: a long a JavaScript number cannot hold
  0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20,
  // item "ab"
  0x04, 0x61, 0x62,
  // qty -3
  0x05,
  // price 1.56: bytes [0x00, 0x9c]
  0x04, 0x00, 0x9c,
  // day 10000
  0xa0, 0x9c, 0x01,
  // at 1700000000123
  0xf6, 0xa1, 0xab, 0xfe, 0xf9, 0x62,
  // note: branch 1 (string) "x"
  0x02, 0x02, 0x78,
  // status PAID (symbol 1)
  0x02,
  // tags: one block of 1 entry, "k" → 0.5, then the end block
  0x02, 0x02, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f, 0x00,
]);

const framed = (id: number, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, body]);
};

const registered = (schema: unknown) => ({ schema: JSON.stringify(schema), schemaType: 'AVRO', references: [] });

function converterWithOrder(): AvroConverter {
  const converter = new AvroConverter();
  converter.addSchema(7, registered(ORDER));
  return converter;
}

describe('avro converter: reading', () => {
  it('reads a record as AvroData does: a Struct, longs exact, logical types, optional unions, enums and maps', () => {
    const read = converterWithOrder().read(framed(7, ORDER_BYTES));
    assert.ok(read instanceof SchemaAndValue);
    const struct = read.value as Struct;
    assert.equal(read.schema.name, 'shop.Order');
    assert.deepEqual(struct.get('id'), new ConnectInt('int64', 9_007_199_254_740_993n));
    assert.equal(struct.get('item'), 'ab');
    assert.deepEqual(struct.get('qty'), new ConnectInt('int32', -3n));
    assert.deepEqual(struct.get('price'), new ConnectDecimal(156n, 2));
    assert.deepEqual(struct.get('day'), new ConnectDate(10_000 * 86_400_000));
    assert.deepEqual(struct.get('at'), new ConnectDate(1_700_000_000_123));
    assert.equal(struct.get('note'), 'x');
    assert.equal(struct.get('status'), 'PAID');
    assert.deepEqual([...(struct.get('tags') as JavaHashMap<unknown>)], [['k', new ConnectFloat('float64', 0.5)]]);
  });

  it('gives the schema AvroData gives: names, optional, Decimal with scale and precision, Date, Timestamp, enum parameters', () => {
    const schema = toConnectSchema(ORDER as never);
    const field = (name: string): ConnectSchema => schema.field(name)!.schema;
    assert.equal(schema.type, 'struct');
    assert.equal(field('id').type, 'int64');
    assert.equal(field('price').name, DECIMAL);
    assert.deepEqual(
      [...field('price').meta.parameters!],
      [
        ['scale', '2'],
        ['connect.decimal.precision', '10'],
      ],
    );
    assert.equal(field('day').name, DATE);
    assert.equal(field('at').name, TIMESTAMP);
    assert.equal(field('note').optional, true);
    assert.equal(field('note').type, 'string');
    assert.equal(field('status').type, 'string');
    assert.equal(field('status').name, 'shop.Status');
    assert.deepEqual(
      [...field('status').meta.parameters!],
      [
        ['io.confluent.connect.avro.Enum', 'shop.Status'],
        ['io.confluent.connect.avro.Enum.NEW', 'NEW'],
        ['io.confluent.connect.avro.Enum.PAID', 'PAID'],
      ],
    );
    const fixed = toConnectSchema({ type: 'fixed', name: 'md5', size: 16 });
    assert.equal(fixed.type, 'bytes');
    assert.deepEqual([...fixed.meta.parameters!], [['connect.fixed.size', '16']]);
    assert.equal(toConnectSchema({ type: 'int', 'connect.type': 'int16' }).type, 'int16');
  });

  it('a null value is a tombstone both ways', () => {
    const converter = converterWithOrder();
    assert.equal(converter.read(null), null);
    assert.equal(converter.write(null), null);
  });

  it('refuses what it cannot read, naming why and never quoting the data', () => {
    const converter = converterWithOrder();
    converter.refuse(8, 'the Schema Registry at http://127.0.0.1:1/ answered 404 (error code 40403)');
    assert.throws(() => converter.read(Buffer.from('{"a":1}')), /not in Confluent's wire format/);
    assert.throws(() => converter.read(framed(8, ORDER_BYTES)), /cannot read schema id 8: the Schema Registry .* answered 404/);
    assert.throws(
      () => converter.read(framed(7, ORDER_BYTES.subarray(0, 6))),
      /^ConnectDataError: its Avro payload does not decode with the writer schema of id 7$/,
    );
    converter.addSchema(9, registered({ type: 'record', name: 'U', fields: [{ name: 'u', type: ['int', 'string'] }] }));
    assert.throws(() => converter.read(framed(9, Buffer.from([0, 2]))), /cannot read schema id 9: Avro unions other than null and one type are not supported/);
    converter.addSchema(10, { schema: '{"type":"object"}', schemaType: 'JSON', references: [] });
    assert.throws(() => converter.read(framed(10, Buffer.from([0]))), /cannot read schema id 10: it is a JSON schema, not Avro/);
    converter.addSchema(11, { ...registered(ORDER), references: [{ name: 'x', subject: 'x', version: 1 }] });
    assert.throws(() => converter.read(framed(11, ORDER_BYTES)), /schema references are not supported/);
  });
});

describe('avro converter: writing', () => {
  it('writes the Avro schema AvroData makes of a Connect schema: ConnectDefault, optional unions with a null default, connect.* properties', () => {
    const schema = structSchema([
      ['a', primitive('int16', false)],
      ['b', primitive('string', true)],
      ['c', logicalSchema(DATE, false)],
      ['d', new ConnectSchema('bytes', false, { name: DECIMAL, version: 1, parameters: new Map([['scale', '2']]) })],
      ['e', primitive('boolean', true, { defaultValue: true })],
    ]);
    assert.deepEqual(fromConnectSchema(schema), {
      type: 'record',
      name: 'ConnectDefault',
      namespace: 'io.confluent.connect.avro',
      fields: [
        { name: 'a', type: { type: 'int', 'connect.type': 'int16' } },
        { name: 'b', type: ['null', 'string'], default: null },
        { name: 'c', type: { type: 'int', 'connect.version': 1, 'connect.name': DATE, logicalType: 'date' } },
        {
          name: 'd',
          type: {
            type: 'bytes',
            scale: 2,
            precision: 64,
            'connect.version': 1,
            'connect.parameters': { scale: '2' },
            'connect.name': DECIMAL,
            logicalType: 'decimal',
          },
        },
        { name: 'e', type: ['boolean', 'null'], default: true },
      ],
    });
  });

  it('writes back what it read to the same Avro binary when the transforms changed nothing', () => {
    const converter = new AvroConverter();
    const plainOrder = { ...ORDER, fields: ORDER.fields.filter((f) => f.name !== 'status') };
    converter.addSchema(7, registered(plainOrder));
    const body = Buffer.concat([ORDER_BYTES.subarray(0, 27), ORDER_BYTES.subarray(28)]);
    const written = converter.write(converter.read(framed(7, body)))!;
    assert.equal(written[0], 0);
    assert.deepEqual(written.subarray(5), body);
    const localId = written.readInt32BE(1);
    assert.ok(localId < 0, 'a local id until the target registry gives one');
    assert.equal(JSON.parse(converter.writtenSchema(localId)!).name, 'Order');
  });

  it('runs insert_field, cast and replace_field on an Avro value; the written schema decodes the result', () => {
    const converter = converterWithOrder();
    const chain = buildTransformChain(
      [
        { type: 'insert_field', options: { static_field: 'origin', static_value: 'eu' }, path: 'flows[0].transforms[0]' },
        { type: 'cast', options: { spec: ['qty:string'] }, path: 'flows[0].transforms[1]' },
        { type: 'replace_field', options: { renames: ['item:product'], exclude: ['tags'] }, path: 'flows[0].transforms[2]' },
      ],
      new PluginRegistry(builtInTransforms),
      { flow: { source: 'src', target: 'dst' }, logger: silentLogger, converters: { key: 'bytes', value: 'avro', registry: { value: converter } } },
    );
    const record = {
      source: { topic: 'orders', partition: 0, offset: 3 },
      topic: 'src.orders',
      partition: 0,
      timestamp: 1,
      key: null,
      value: framed(7, ORDER_BYTES),
      headers: [],
    };
    const [out] = chain([record, record]);
    const value = out!.value!;
    const text = converter.writtenSchema(value.readInt32BE(1))!;
    const decoded = avroType(JSON.parse(text)).fromBuffer(value.subarray(5)) as Record<string, unknown>;
    assert.equal(decoded['product'], 'ab');
    assert.equal(decoded['qty'], '-3');
    assert.equal(decoded['origin'], 'eu');
    assert.equal(decoded['id'], 9_007_199_254_740_993n);
    assert.equal(decoded['status'], 'PAID', 'an enum is a string with its symbols in connect.parameters, as AvroData writes it by default');
    assert.ok(!('tags' in decoded));
    assert.deepEqual(
      (JSON.parse(text) as { fields: { name: string }[] }).fields.map((f) => f.name),
      ['id', 'product', 'qty', 'price', 'day', 'at', 'note', 'status', 'origin'],
    );
    // A second record of the same schema is written with the same local id: one registration.
    assert.equal(chain([record])[0]!.value!.readInt32BE(1), value.readInt32BE(1));
  });

  it('refuses data without a schema and a decimal of another scale', () => {
    const converter = new AvroConverter();
    assert.throws(() => converter.write('text'), /writes data with a schema only/);
    const decimal = new ConnectSchema('bytes', false, { name: DECIMAL, version: 1, parameters: new Map([['scale', '2']]) });
    assert.throws(() => converter.write(new SchemaAndValue(decimal, new ConnectDecimal(1n, 3))), /mismatching scale/);
  });
});
