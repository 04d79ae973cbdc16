import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../core/ports/logger';
import { builtInTransforms } from '../builtins';
import { PluginRegistry } from '../registry';
import { buildTransformChain } from '../transform-chain';
import { ConnectDate, ConnectDecimal, ConnectFloat, ConnectInt, ConnectSchema, JavaHashMap, SchemaAndValue, Struct } from './connect-value';
import { DECIMAL, logicalSchema, primitive, schemasEqual, structSchema, TIMESTAMP } from './connect-schema';
import { JsonSchemaConverter } from './json-schema-converter';
import { connectSchemaToJsonSchemaText, JSON_ENUM_PARAMETER, jsonSchemaToConnectSchema } from './json-schema-schema';

/**
 * An Order as a service's JSON Schema declares it (the properties out of Connect's order, which
 * `connect.index` gives): what Confluent's JsonSchemaData reads it as is checked field by field.
 */
const ORDER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'shop.Order',
  type: 'object',
  properties: {
    item: { type: 'string', 'connect.index': 1 },
    id: { type: 'integer', 'connect.index': 0 },
    qty: { type: 'integer', 'connect.type': 'int32', 'connect.index': 2 },
    note: { oneOf: [{ type: 'null' }, { type: 'string' }], 'connect.index': 3 },
    coupon: { type: ['string', 'null'], 'connect.index': 4 },
    tags: { type: 'array', items: { type: 'string' }, 'connect.index': 5 },
    stock: { type: 'object', additionalProperties: { type: 'integer', 'connect.type': 'int32' }, 'connect.type': 'map', 'connect.index': 6 },
    price: {
      type: 'number',
      title: DECIMAL,
      'connect.type': 'bytes',
      'connect.version': 1,
      'connect.parameters': { scale: '2' },
      'connect.index': 7,
    },
    at: { type: 'integer', title: TIMESTAMP, 'connect.type': 'int64', 'connect.version': 1, 'connect.index': 8 },
    weight: { type: 'number', 'connect.type': 'float32', 'connect.index': 9 },
    status: { type: 'string', enum: ['NEW', 'PAID'], default: 'NEW', 'connect.index': 10 },
    paid: { type: 'boolean', description: 'paid in full', 'connect.index': 11 },
  },
  required: ['id', 'item'],
};

const ORDER_VALUE = {
  id: 9007199254740993,
  item: 'ab',
  qty: -3,
  note: null,
  coupon: 'WINTER',
  tags: ['x', 'y'],
  stock: { eu: 4, us: 0 },
  price: 'AJw=',
  at: 1700000000123,
  weight: 1.1,
  paid: true,
};

const framed = (id: number, json: string): Buffer => {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, Buffer.from(json, 'utf8')]);
};

const registered = (schema: unknown) => ({ schema: JSON.stringify(schema), schemaType: 'JSON', references: [] });

function converterWithOrder(): JsonSchemaConverter {
  const converter = new JsonSchemaConverter();
  converter.addSchema(7, registered(ORDER));
  return converter;
}

// The id's digits are written out: JSON.stringify of the number would round it.
const ORDER_TEXT = JSON.stringify(ORDER_VALUE).replace('9007199254740992', '9007199254740993');

describe('json_schema converter: reading', () => {
  it('reads a JSON Schema as JsonSchemaData does: connect.index order, connect.type, oneOf / type with null as optional, map, array, logical types, enum, default', () => {
    const schema = jsonSchemaToConnectSchema(JSON.stringify(ORDER));
    assert.equal(schema.type, 'struct');
    assert.equal(schema.name, 'shop.Order');
    assert.deepEqual(
      schema.fields.map((f) => [f.name, f.schema.type, f.schema.optional]),
      [
        ['id', 'int64', false],
        ['item', 'string', false],
        ['qty', 'int32', false],
        ['note', 'string', true],
        ['coupon', 'string', true],
        ['tags', 'array', false],
        ['stock', 'map', false],
        ['price', 'bytes', false],
        ['at', 'int64', false],
        ['weight', 'float32', false],
        ['status', 'string', false],
        ['paid', 'boolean', false],
      ],
    );
    assert.deepEqual([...schema.field('price')!.schema.meta.parameters!], [['scale', '2']]);
    assert.equal(schema.field('price')!.schema.name, DECIMAL);
    assert.equal(schema.field('at')!.schema.name, TIMESTAMP);
    assert.equal(schema.field('stock')!.schema.meta.valueSchema!.type, 'int32');
    assert.deepEqual(
      [...schema.field('status')!.schema.meta.parameters!],
      [
        [JSON_ENUM_PARAMETER, ''],
        [`${JSON_ENUM_PARAMETER}.NEW`, 'NEW'],
        [`${JSON_ENUM_PARAMETER}.PAID`, 'PAID'],
      ],
    );
    assert.equal(schema.field('status')!.schema.meta.defaultValue, 'NEW');
    assert.equal(schema.field('paid')!.schema.meta.doc, 'paid in full');
  });

  it('reads a record into a Struct: int64 past 2^53 exact, the decimal from base64 with the schema scale, a missing property its default or null', () => {
    const read = converterWithOrder().read(framed(7, ORDER_TEXT));
    assert.ok(read instanceof SchemaAndValue);
    const order = read.value as Struct;
    assert.deepEqual(order.get('id'), new ConnectInt('int64', 9_007_199_254_740_993n));
    assert.deepEqual(order.get('qty'), new ConnectInt('int32', -3n));
    assert.equal(order.get('note'), null);
    assert.equal(order.get('coupon'), 'WINTER');
    assert.deepEqual(order.get('tags'), ['x', 'y']);
    const stock = order.get('stock') as JavaHashMap<unknown>;
    assert.deepEqual([...stock].sort(), [
      ['eu', new ConnectInt('int32', 4n)],
      ['us', new ConnectInt('int32', 0n)],
    ]);
    assert.deepEqual(order.get('price'), new ConnectDecimal(156n, 2));
    assert.deepEqual(order.get('at'), new ConnectDate(1_700_000_000_123));
    assert.deepEqual(order.get('weight'), new ConnectFloat('float32', Math.fround(1.1)));
    assert.equal(order.get('status'), 'NEW', 'left out: its default');
    assert.equal(order.get('paid'), true);
  });

  it('follows a $ref into the same schema; a null for a required field fails, a property left out does not', () => {
    const converter = new JsonSchemaConverter();
    converter.addSchema(
      3,
      registered({
        type: 'object',
        properties: { who: { $ref: '#/definitions/Person' }, n: { type: 'integer', 'connect.type': 'int16' } },
        definitions: { Person: { type: 'object', title: 'Person', properties: { name: { type: 'string' } } } },
      }),
    );
    const read = converter.read(framed(3, '{"who":{"name":"ana"}}')) as SchemaAndValue;
    const who = (read.value as Struct).get('who') as Struct;
    assert.equal(who.schema.name, 'Person');
    assert.equal(who.get('name'), 'ana');
    assert.equal((read.value as Struct).get('n'), null);
    assert.throws(() => converter.read(framed(3, '{"n":null}')), /Invalid null value for required INT16 field/);
  });

  it('reads an object with only an additionalProperties schema as a map (JsonSchemaData: an empty struct, every entry dropped), written back with connect.type map', () => {
    const converter = new JsonSchemaConverter();
    converter.addSchema(4, registered({ type: 'object', additionalProperties: { type: 'string' } }));
    const read = converter.read(framed(4, '{"a":"x","b":"y"}')) as SchemaAndValue;
    assert.equal(read.schema.type, 'map');
    assert.deepEqual([...(read.value as JavaHashMap<unknown>)].sort(), [
      ['a', 'x'],
      ['b', 'y'],
    ]);
    const written = converter.write(read)!;
    assert.deepEqual(JSON.parse(written.subarray(5).toString('utf8')), { a: 'x', b: 'y' });
    assert.equal(converter.writtenSchema(written.readInt32BE(1)), '{"type":"object","additionalProperties":{"type":"string"},"connect.type":"map"}');
  });

  it('refuses what it does not read, naming why: other formats, references, unions, allOf, patternProperties, the bytes and the ids', () => {
    const converter = new JsonSchemaConverter();
    const reasons: Record<number, unknown> = {
      1: { type: 'object', properties: { a: { allOf: [{ type: 'string' }, { maxLength: 3 }] } } },
      2: { type: 'object', properties: { a: { $ref: 'other.json' } } },
      3: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      4: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      5: { type: 'array', items: { type: 'object', properties: { key: { type: 'integer' }, value: { type: 'string' } } }, 'connect.type': 'map' },
      10: { type: 'object', title: 'AnyOrder' },
    };
    for (const [id, schema] of Object.entries(reasons)) converter.addSchema(Number(id), registered(schema));
    converter.addSchema(6, { schema: '{"type":"string"}', schemaType: 'JSON', references: [{ name: 'a.json', subject: 'a', version: 1 }] });
    converter.addSchema(8, { schema: '"string"', schemaType: 'AVRO', references: [] });
    const fail = (id: number) => () => converter.read(framed(id, '{}'));
    assert.throws(fail(1), /schema id 1: JSON Schema's allOf is not supported/);
    assert.throws(fail(2), /schema id 2: it refers to "other.json", another schema/);
    assert.throws(fail(3), /schema id 3: a oneOf other than one schema or null is a union/);
    assert.throws(fail(4), /schema id 4: JSON Schema's patternProperties is not supported/);
    assert.throws(fail(5), /schema id 5: a map whose keys are not strings/);
    assert.throws(fail(6), /schema id 6: it refers to other subjects/);
    assert.throws(fail(8), /schema id 8: it is a AVRO schema, not JSON Schema/);
    assert.throws(fail(9), /schema id 9: not fetched/);
    assert.throws(fail(10), /schema id 10: an object without properties or an additionalProperties schema .* would drop every field/);
    assert.ok(converter.knows(1) && !converter.knows(9));
    assert.throws(() => converter.read(Buffer.from('{"plain":"json"}')), /not in Confluent's wire format/);
    assert.throws(() => converterWithOrder().read(framed(7, '{"id": 1,')), /payload after the schema id 7 is not JSON/);
  });
});

describe('json_schema converter: writing', () => {
  it('writes a Connect schema as fromConnectSchema does: connect.type, connect.index, optional as oneOf with null, title, parameters', () => {
    const price = new ConnectSchema('bytes', false, { name: DECIMAL, version: 1, parameters: new Map([['scale', '2']]) });
    const schema = structSchema(
      [
        ['id', primitive('int64', false)],
        ['qty', primitive('int32', false)],
        ['note', primitive('string', true)],
        ['stock', new ConnectSchema('map', false, { keySchema: primitive('string', false), valueSchema: primitive('int32', false) })],
        ['tags', new ConnectSchema('array', true, { valueSchema: primitive('string', false) })],
        ['price', price],
        ['at', logicalSchema(TIMESTAMP, false)],
      ],
      { basics: { name: 'shop.Order' } },
    );
    assert.equal(
      connectSchemaToJsonSchemaText(schema),
      '{"type":"object","properties":{' +
        '"id":{"type":"integer","connect.type":"int64","connect.index":0},' +
        '"qty":{"type":"integer","connect.type":"int32","connect.index":1},' +
        '"note":{"oneOf":[{"type":"null"},{"type":"string"}],"connect.index":2},' +
        '"stock":{"type":"object","additionalProperties":{"type":"integer","connect.type":"int32"},"connect.type":"map","connect.index":3},' +
        '"tags":{"oneOf":[{"type":"null"},{"type":"array","items":{"type":"string"}}],"connect.index":4},' +
        `"price":{"type":"number","connect.type":"bytes","title":"${DECIMAL}","connect.version":1,"connect.parameters":{"scale":"2"},"connect.index":5},` +
        `"at":{"type":"integer","connect.type":"int64","title":"${TIMESTAMP}","connect.version":1,"connect.index":6}` +
        '},"title":"shop.Order"}',
    );
    assert.ok(schemasEqual(jsonSchemaToConnectSchema(connectSchemaToJsonSchemaText(schema)), schema), 'what it writes reads back as the same schema');
  });

  it('writes back what it read as the same JSON when the transforms changed nothing, under a local id kept per schema', () => {
    const converter = converterWithOrder();
    const written = converter.write(converter.read(framed(7, ORDER_TEXT)))!;
    assert.equal(written[0], 0);
    const localId = written.readInt32BE(1);
    assert.ok(localId < 0, 'a local id until the target registry gives one');
    // The decimal as base64 of its unscaled value (decimal.format BASE64); status written as its default.
    assert.equal(written.subarray(5).toString('utf8'), ORDER_TEXT.replace('"paid"', '"status":"NEW","paid"'));
    assert.equal(JSON.parse(converter.writtenSchema(localId)!).title, 'shop.Order');
    assert.equal(converter.write(converter.read(framed(7, ORDER_TEXT)))!.readInt32BE(1), localId);
  });

  it('runs insert_field and cast on a JSON Schema value; the written schema and JSON carry the new field and type', () => {
    const converter = converterWithOrder();
    const chain = buildTransformChain(
      [
        { type: 'insert_field', options: { static_field: 'origin', static_value: 'eu' }, path: 'flows[0].transforms[0]' },
        { type: 'cast', options: { spec: ['qty:string', 'weight:float64'] }, path: 'flows[0].transforms[1]' },
      ],
      new PluginRegistry(builtInTransforms),
      { flow: { source: 'src', target: 'dst' }, logger: silentLogger, converters: { key: 'bytes', value: 'json_schema', registry: { value: converter } } },
    );
    const record = {
      source: { topic: 'orders', partition: 0, offset: 3 },
      topic: 'src.orders',
      partition: 0,
      timestamp: 1,
      key: null,
      value: framed(7, ORDER_TEXT),
      headers: [],
    };
    const [out] = chain([record]);
    const value = out!.value!;
    const body = JSON.parse(value.subarray(5).toString('utf8')) as Record<string, unknown>;
    assert.equal(body['origin'], 'eu');
    assert.equal(body['qty'], '-3');
    assert.equal(body['weight'], 1.100000023841858, 'a float32 cast to float64 keeps its float value, as Java widens it');
    const schema = JSON.parse(converter.writtenSchema(value.readInt32BE(1))!) as { properties: Record<string, Record<string, unknown>> };
    assert.deepEqual(schema.properties['qty'], { type: 'string', 'connect.index': 2 });
    assert.deepEqual(schema.properties['origin'], { oneOf: [{ type: 'null' }, { type: 'string' }], 'connect.index': 12 });
    assert.deepEqual(Object.keys(schema.properties).slice(-2), ['paid', 'origin']);
  });

  it('refuses data without a schema and a decimal of another scale; writes no bytes for null', () => {
    const converter = new JsonSchemaConverter();
    assert.throws(() => converter.write('text'), /writes data with a schema only/);
    const decimal = new ConnectSchema('bytes', false, { name: DECIMAL, version: 1, parameters: new Map([['scale', '2']]) });
    assert.throws(() => converter.write(new SchemaAndValue(decimal, new ConnectDecimal(1n, 3))), /mismatching scale/);
    assert.equal(converter.write(null), null);
    assert.equal(converter.write(new SchemaAndValue(primitive('string', true), null)), null);
  });
});
