import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Type as FieldType, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { silentLogger } from '../../core/ports/logger';
import { builtInTransforms } from '../builtins';
import { PluginRegistry } from '../registry';
import { buildTransformChain } from '../transform-chain';
import { ProtobufConverter } from './protobuf-converter';
import { describedFile } from './protobuf-descriptor';
import { toConnectSchema } from './protobuf-schema';
import { readProtobufFrame } from './protobuf-wire';
import { fromConnectSchema } from './protobuf-schema';
import { ConnectDate, ConnectFloat, ConnectInt, ConnectSchema, JavaHashMap, SchemaAndValue, Struct, type ConnectValue } from './connect-value';
import { primitive, structSchema, TIMESTAMP } from './connect-schema';

const SHOP = `syntax = "proto3";
package shop;

import "google/protobuf/timestamp.proto";

message Header {
  string source = 1;
}

message Order {
  int64 id = 1;
  sint32 delta = 2;
  sfixed32 sf32 = 3;
  int32 qty = 4;
  uint32 u32 = 5;
  fixed32 f32 = 6;
  uint64 u64 = 7;
  fixed64 f64 = 8;
  sint64 s64 = 9;
  sfixed64 sf64 = 10;
  float ratio = 11;
  double price = 12;
  bool paid = 13;
  string item = 14;
  bytes blob = 15;
  Status status = 16;
  repeated string tags = 17;
  map<string, int32> counts = 18;
  oneof pick {
    string code = 19;
    int32 number = 20;
  }
  Line line = 21;
  google.protobuf.Timestamp at = 22;
  optional string note = 23;

  enum Status {
    NEW = 0;
    PAID = 1;
  }
  message Line {
    string sku = 1;
  }
}
`;

/**
 * One Order in Protobuf binary, field by field as the Protobuf encoding specification lays it
 * out: a key (field number << 3 | wire type) as a varint, then varints, zig-zag varints (sint*),
 * little-endian fixed-width values, or length-delimited bytes (strings, bytes, messages, map
 * entries, each element of a repeated string).
 */
const ORDER_BYTES = Buffer.from([
  // 1 id = 2^53 + 1 (a long a JavaScript number cannot hold): varint
  0x08, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10,
  // 2 delta = -3: zig-zag 5
  0x10, 0x05,
  // 3 sf32 = -2: 4 bytes little-endian
  0x1d, 0xfe, 0xff, 0xff, 0xff,
  // 4 qty = 7
  0x20, 0x07,
  // 5 u32 = 2^32 - 1: varint
  0x28, 0xff, 0xff, 0xff, 0xff, 0x0f,
  // 6 f32 = 2^32 - 1: 4 bytes
  0x35, 0xff, 0xff, 0xff, 0xff,
  // 7 u64 = 2^64 - 1: ten-byte varint
  0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
  // 8 f64 = 2^63: 8 bytes
  0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
  // 9 s64 = -(2^53 + 1): zig-zag 2^54 + 1
  0x48, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20,
  // 10 sf64 = -1: 8 bytes
  0x51, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  // 11 ratio = 0.5f
  0x5d, 0x00, 0x00, 0x00, 0x3f,
  // 12 price = 1.25
  0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf4, 0x3f,
  // 13 paid = true
  0x68, 0x01,
  // 14 item = "ab"
  0x72, 0x02, 0x61, 0x62,
  // 15 blob = [0x00, 0xff]
  0x7a, 0x02, 0x00, 0xff,
  // 16 status = PAID (1): a two-byte key
  0x80, 0x01, 0x01,
  // 17 tags = ["x", "y"]
  0x8a, 0x01, 0x01, 0x78, 0x8a, 0x01, 0x01, 0x79,
  // 18 counts = {"k": 2}: one entry message (key 1 = "k", value 2 = 2)
  0x92, 0x01, 0x05, 0x0a, 0x01, 0x6b, 0x10, 0x02,
  // 19 code = "z" (of the oneof pick)
  0x9a, 0x01, 0x01, 0x7a,
  // 21 line = Line{sku: "s1"}
  0xaa, 0x01, 0x04, 0x0a, 0x02, 0x73, 0x31,
  // 22 at = Timestamp{seconds: 1700000000, nanos: 123000000}
  0xb2, 0x01, 0x0b, 0x08, 0x80, 0xe2, 0xcf, 0xaa, 0x06, 0x10, 0xc0, 0xa9, 0xd3, 0x3a,
]);

/** Magic byte, schema id, then the message indexes as given (zig-zag varints). */
const framed = (id: number, indexes: readonly number[], body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, Buffer.from(indexes), body]);
};
/** Index [1] (Order, the second top-level message): count 1, index 1, zig-zag: 0x02 0x02. */
const ORDER_INDEXES = [0x02, 0x02];

const registered = (schema: string) => ({ schema, schemaType: 'PROTOBUF', references: [] });

function converterWithShop(): ProtobufConverter {
  const converter = new ProtobufConverter();
  converter.addSchema(7, registered(SHOP));
  return converter;
}

/** A Struct as field name → value, union structs and nested structs too. */
function plain(value: ConnectValue): unknown {
  if (value instanceof Struct) return Object.fromEntries(value.schema.fields.map((f) => [f.name, plain(value.values[f.index] ?? null)]));
  if (value instanceof JavaHashMap) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v as ConnectValue)]));
  if (Array.isArray(value)) return value.map((v: ConnectValue) => plain(v));
  return value;
}

const int32 = (n: bigint) => new ConnectInt('int32', n);
const int64 = (n: bigint) => new ConnectInt('int64', n);

describe('protobuf converter: wire format', () => {
  it('reads message indexes as zig-zag varints: the single byte 0 is [0], then a count and the path', () => {
    assert.deepEqual(readProtobufFrame(framed(7, [0x00], Buffer.alloc(0))), { id: 7, indexes: [0], bodyStart: 6 });
    assert.deepEqual(readProtobufFrame(framed(7, [0x02, 0x02], Buffer.alloc(0))).indexes, [1]);
    assert.deepEqual(readProtobufFrame(framed(7, [0x04, 0x02, 0x00], Buffer.alloc(0))).indexes, [1, 0]);
    // 300 zig-zag is 600: 0xd8 0x04.
    assert.deepEqual(readProtobufFrame(framed(7, [0x02, 0xd8, 0x04], Buffer.from([9]))), { id: 7, indexes: [300], bodyStart: 8 });
    assert.throws(() => readProtobufFrame(Buffer.from('{"a":1}')), /not in Confluent's wire format/);
    assert.throws(() => readProtobufFrame(framed(7, [0x04, 0x02], Buffer.alloc(0))), /message indexes \(after schema id 7\) are not zig-zag varints/);
    assert.throws(() => readProtobufFrame(framed(7, [0x01], Buffer.alloc(0))), /message indexes/);
  });

  it('finds the message the indexes name: top-level messages in order, then the ones declared inside', () => {
    const converter = converterWithShop();
    const header = converter.read(framed(7, [0x00], Buffer.from([0x0a, 0x01, 0x61]))) as SchemaAndValue;
    assert.equal(header.schema.name, 'Header');
    assert.deepEqual(plain(header.value), { source: 'a' });
    const line = converter.read(framed(7, [0x04, 0x02, 0x00], Buffer.from([0x0a, 0x02, 0x73, 0x31]))) as SchemaAndValue;
    assert.equal(line.schema.name, 'Line');
    assert.deepEqual(plain(line.value), { sku: 's1' });
    assert.throws(() => converter.read(framed(7, [0x02, 0x06], Buffer.alloc(0))), /message indexes \[3\] name no message of its schema/);
  });
});

describe('protobuf converter: reading', () => {
  it('reads every scalar type, an enum, a repeated field, a map, a oneof, a nested message and a Timestamp as ProtobufData does', () => {
    const read = converterWithShop().read(framed(7, ORDER_INDEXES, ORDER_BYTES)) as SchemaAndValue;
    assert.equal(read.schema.name, 'Order', 'the message name, not its full name (enhanced.protobuf.schema.support is off)');
    assert.deepEqual(plain(read.value), {
      pick_0: { code: 'z', number: null },
      id: int64(9_007_199_254_740_993n),
      delta: int32(-3n),
      sf32: int32(-2n),
      qty: int32(7n),
      u32: int64(4_294_967_295n),
      f32: int64(4_294_967_295n),
      u64: int64(-1n),
      f64: int64(-9_223_372_036_854_775_808n),
      s64: int64(-9_007_199_254_740_993n),
      sf64: int64(-1n),
      ratio: new ConnectFloat('float32', 0.5),
      price: new ConnectFloat('float64', 1.25),
      paid: true,
      item: 'ab',
      blob: Buffer.from([0x00, 0xff]),
      status: 'PAID',
      tags: ['x', 'y'],
      counts: { k: int32(2n) },
      line: { sku: 's1' },
      at: new ConnectDate(1_700_000_000_123),
      note: null,
    });
  });

  it('gives proto3 defaults for fields the bytes do not carry; messages, optional fields and oneofs stay null', () => {
    const read = converterWithShop().read(framed(7, ORDER_INDEXES, Buffer.alloc(0))) as SchemaAndValue;
    const struct = read.value as Struct;
    assert.deepEqual(struct.get('id'), int64(0n));
    assert.equal(struct.get('item'), '');
    assert.equal(struct.get('paid'), false);
    assert.deepEqual(struct.get('blob'), Buffer.alloc(0));
    assert.equal(struct.get('status'), 'NEW');
    assert.deepEqual(struct.get('tags'), []);
    assert.equal((struct.get('counts') as JavaHashMap<unknown>).size, 0);
    assert.equal(struct.get('line'), null);
    assert.equal(struct.get('at'), null);
    assert.equal(struct.get('pick_0'), null);
    assert.equal(struct.get('note'), null);
  });

  it('gives the schema ProtobufData gives: optional fields with their Tag, the Type of other integer types, enum parameters, the union struct', () => {
    const { schema } = converterWithShop().read(framed(7, ORDER_INDEXES, Buffer.alloc(0))) as SchemaAndValue;
    const field = (name: string): ConnectSchema => schema.field(name)!.schema;
    const parameters = (s: ConnectSchema) => [...(s.meta.parameters ?? [])];
    assert.equal(schema.optional, false);
    assert.deepEqual(
      schema.fields.map((f) => f.name),
      [
        'pick_0',
        'id',
        'delta',
        'sf32',
        'qty',
        'u32',
        'f32',
        'u64',
        'f64',
        's64',
        'sf64',
        'ratio',
        'price',
        'paid',
        'item',
        'blob',
        'status',
        'tags',
        'counts',
        'line',
        'at',
        'note',
      ],
      'oneofs first, as ProtobufData adds them',
    );
    assert.ok(schema.fields.every((f) => f.schema.optional));
    assert.deepEqual(parameters(field('id')), [['io.confluent.connect.protobuf.Tag', '1']]);
    assert.deepEqual(parameters(field('delta')), [
      ['io.confluent.connect.protobuf.Type', 'sint32'],
      ['io.confluent.connect.protobuf.Tag', '2'],
    ]);
    assert.equal(field('u32').type, 'int64');
    assert.equal(field('u32').meta.parameters?.get('io.confluent.connect.protobuf.Type'), 'uint32');
    assert.equal(field('status').name, 'Status');
    assert.deepEqual(parameters(field('status')), [
      ['io.confluent.connect.protobuf.Enum', 'Status'],
      ['io.confluent.connect.protobuf.Enum.NEW', '0'],
      ['io.confluent.connect.protobuf.Enum.PAID', '1'],
      ['io.confluent.connect.protobuf.Tag', '16'],
    ]);
    assert.equal(field('tags').type, 'array');
    assert.equal(field('tags').meta.valueSchema!.optional, true);
    assert.equal(field('counts').type, 'map');
    assert.equal(field('counts').name, 'counts');
    assert.deepEqual(parameters(field('counts').meta.keySchema!), [['io.confluent.connect.protobuf.Tag', '1']]);
    assert.equal(field('pick_0').name, 'io.confluent.connect.protobuf.Union.pick');
    assert.deepEqual(parameters(field('pick_0').field('number')!.schema), [['io.confluent.connect.protobuf.Tag', '20']]);
    assert.equal(field('line').name, 'Line');
    assert.equal(field('at').name, TIMESTAMP);
  });

  it('reads a schema in its serialized form (a base64 FileDescriptorProto), as JavaScript serializers register it', () => {
    const text = converterWithShop();
    const written = text.write(text.read(framed(7, ORDER_INDEXES, ORDER_BYTES)))!;
    const serialized = text.writtenSchema(written.readInt32BE(1))!;
    const converter = new ProtobufConverter();
    converter.addSchema(3, registered(serialized));
    const read = converter.read(Buffer.concat([framed(3, [], Buffer.alloc(0)), written.subarray(5)])) as SchemaAndValue;
    const original = plain((text.read(framed(7, ORDER_INDEXES, ORDER_BYTES)) as SchemaAndValue).value) as object;
    // ProtobufData writes no proto3 `optional`: the unset note reads back as its default.
    assert.deepEqual(plain(read.value), { ...original, note: '' });
  });

  it('refuses what it cannot read, naming why and never quoting the data', () => {
    const converter = converterWithShop();
    converter.refuse(8, 'the Schema Registry at http://127.0.0.1:1/ answered 404 (error code 40403)');
    assert.throws(() => converter.read(framed(8, [0], ORDER_BYTES)), /cannot read schema id 8: the Schema Registry .* answered 404/);
    assert.throws(
      () => converter.read(framed(7, ORDER_INDEXES, ORDER_BYTES.subarray(0, 5))),
      /^ConnectDataError: its Protobuf payload does not decode as shop.Order, the message its schema id 7 and indexes name$/,
    );
    converter.addSchema(9, registered('syntax = "proto3"; import "other/thing.proto"; message A { other.Thing t = 1; }'));
    assert.throws(() => converter.read(framed(9, [0], Buffer.alloc(0))), /cannot read schema id 9: it imports "other\/thing.proto", another subject's schema/);
    converter.addSchema(10, { schema: '{"type":"object"}', schemaType: 'JSON', references: [] });
    assert.throws(() => converter.read(framed(10, [0], Buffer.alloc(0))), /it is a JSON schema, not Protobuf/);
    converter.addSchema(11, { ...registered(SHOP), references: [{ name: 'x', subject: 'x', version: 1 }] });
    assert.throws(() => converter.read(framed(11, [0], Buffer.alloc(0))), /schema references are not supported/);
    converter.addSchema(12, registered('syntax = "proto3"; message Node { Node next = 1; }'));
    assert.throws(() => converter.read(framed(12, [0], Buffer.alloc(0))), /Node contains itself: recursive messages/);
    converter.addSchema(13, registered('syntax = "proto3"; message M { map<int32, string> m = 1; }'));
    assert.throws(() => converter.read(framed(13, [0], Buffer.alloc(0))), /int32 keys: the protobuf converter reads maps with string keys only/);
    converter.addSchema(14, registered('syntax = "proto3"; message M { int32 a = ; }'));
    assert.throws(() => converter.read(framed(14, [0], Buffer.alloc(0))), /cannot read schema id 14: its .proto text does not parse/);
    converter.addSchema(15, registered('syntax = "proto3"; message M { Missing m = 1; }'));
    assert.throws(() => converter.read(framed(15, [0], Buffer.alloc(0))), /uses the type Missing, which it does not define/);
  });

  it('a null value is a tombstone both ways', () => {
    const converter = converterWithShop();
    assert.equal(converter.read(null), null);
    assert.equal(converter.write(null), null);
  });
});

describe('protobuf converter: writing', () => {
  it('writes back what it read to the same Protobuf binary, as the first message of its file, under a local id', () => {
    const converter = converterWithShop();
    const written = converter.write(converter.read(framed(7, ORDER_INDEXES, ORDER_BYTES)))!;
    assert.equal(written[0], 0);
    const localId = written.readInt32BE(1);
    assert.ok(localId < 0, 'a local id until the target registry gives one');
    assert.equal(written[5], 0, 'message index [0]: the single byte 0');
    assert.deepEqual(written.subarray(6), ORDER_BYTES);
  });

  it('writes the proto3 file ProtobufData makes of the schema it read: the Tags as numbers, nested enum, message and map entry, the oneof', () => {
    const converter = converterWithShop();
    const written = converter.write(converter.read(framed(7, ORDER_INDEXES, ORDER_BYTES)))!;
    const file = fromBinary(FileDescriptorProtoSchema, Buffer.from(converter.writtenSchema(written.readInt32BE(1))!, 'base64'));
    assert.equal(file.syntax, 'proto3');
    assert.equal(file.package, '');
    assert.deepEqual(file.dependency, ['google/protobuf/timestamp.proto']);
    const [order] = file.messageType;
    assert.equal(order!.name, 'Order');
    assert.deepEqual(
      order!.field.map((f) => [f.name, f.number]),
      [
        ['code', 19],
        ['number', 20],
        ['id', 1],
        ['delta', 2],
        ['sf32', 3],
        ['qty', 4],
        ['u32', 5],
        ['f32', 6],
        ['u64', 7],
        ['f64', 8],
        ['s64', 9],
        ['sf64', 10],
        ['ratio', 11],
        ['price', 12],
        ['paid', 13],
        ['item', 14],
        ['blob', 15],
        ['status', 16],
        ['tags', 17],
        ['counts', 18],
        ['line', 21],
        ['at', 22],
        ['note', 23],
      ],
    );
    assert.deepEqual(
      order!.oneofDecl.map((o) => o.name),
      ['pick'],
    );
    assert.equal(order!.field.find((f) => f.name === 'delta')!.type, FieldType.SINT32);
    assert.equal(order!.field.find((f) => f.name === 'f64')!.type, FieldType.FIXED64);
    assert.deepEqual(
      order!.enumType.map((e) => [e.name, e.value.map((v) => [v.name, v.number])]),
      [
        [
          'Status',
          [
            ['NEW', 0],
            ['PAID', 1],
          ],
        ],
      ],
    );
    assert.deepEqual(
      order!.nestedType.map((t) => [t.name, t.options?.mapEntry ?? false]),
      [
        ['countsEntry', true],
        ['Line', false],
      ],
    );
  });

  it('numbers a field without a Tag (one a transform added) with the next number its message does not use', () => {
    const tagged = (n: number) => primitive('string', true, { parameters: new Map([['io.confluent.connect.protobuf.Tag', String(n)]]) });
    const schema = structSchema([
      ['a', tagged(1)],
      ['added', primitive('string', true)],
      ['b', tagged(2)],
      ['c', primitive('int64', false)],
    ]);
    const file = fromConnectSchema(schema);
    assert.equal(file.messageType[0]!.name, 'ConnectDefault1');
    assert.deepEqual(
      file.messageType[0]!.field.map((f) => [f.name, f.number]),
      [
        ['a', 1],
        ['added', 3],
        ['b', 2],
        ['c', 4],
      ],
    );
    const struct = new Struct(schema);
    struct.values[1] = 'x';
    struct.values[3] = int64(1n << 60n);
    const written = new ProtobufConverter().write(new SchemaAndValue(schema, struct))!;
    // added (3) = "x", c (4) = 2^60: a proto3 field holding its default (a null here) is not written.
    assert.deepEqual(written.subarray(6), Buffer.from([0x1a, 0x01, 0x78, 0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]));
    assert.deepEqual(fromBinary(FileDescriptorProtoSchema, toBinary(FileDescriptorProtoSchema, file)), file);
  });

  it('runs insert_field and cast on a Protobuf value; the written schema decodes the result', () => {
    const converter = converterWithShop();
    const chain = buildTransformChain(
      [
        { type: 'insert_field', options: { static_field: 'origin', static_value: 'eu' }, path: 'flows[0].transforms[0]' },
        { type: 'cast', options: { spec: ['qty:string', 'u32:int32'] }, path: 'flows[0].transforms[1]' },
      ],
      new PluginRegistry(builtInTransforms),
      { flow: { source: 'src', target: 'dst' }, logger: silentLogger, converters: { key: 'bytes', value: 'protobuf', registry: { value: converter } } },
    );
    const record = {
      source: { topic: 'orders', partition: 0, offset: 3 },
      topic: 'src.orders',
      partition: 0,
      timestamp: 1,
      key: null,
      value: framed(7, ORDER_INDEXES, ORDER_BYTES),
      headers: [],
    };
    const [out, second] = chain([record, record]);
    const value = out!.value!;
    const file = fromBinary(FileDescriptorProtoSchema, Buffer.from(converter.writtenSchema(value.readInt32BE(1))!, 'base64'));
    const fields = file.messageType[0]!.field;
    // Cast keeps a field's parameters, so its Tag: qty and u32 keep their numbers with their new types; the added origin takes the next free one.
    assert.deepEqual(
      ['qty', 'u32', 'origin'].map((name) => [name, fields.find((f) => f.name === name)!.number, fields.find((f) => f.name === name)!.type]),
      [
        ['qty', 4, FieldType.STRING],
        ['u32', 5, FieldType.INT32],
        ['origin', 24, FieldType.STRING],
      ],
    );
    const message = describedFile(file).messages[0]!;
    const reader = new ProtobufConverter();
    reader.addSchema(1, registered(converter.writtenSchema(value.readInt32BE(1))!));
    const decoded = (reader.read(Buffer.concat([framed(1, [], Buffer.alloc(0)), value.subarray(5)])) as SchemaAndValue).value as Struct;
    assert.equal(toConnectSchema(message).name, 'Order');
    assert.equal(decoded.get('qty'), '7');
    assert.deepEqual(decoded.get('u32'), int32(-1n), 'cast to int32 wraps as Java does');
    assert.equal(decoded.get('origin'), 'eu');
    assert.deepEqual(decoded.get('id'), int64(9_007_199_254_740_993n));
    assert.equal(decoded.get('status'), 'PAID');
    assert.deepEqual(plain(decoded.get('pick_0')), { code: 'z', number: null });
    // A second record of the same schema is written with the same local id: one registration.
    assert.equal(second!.value!.readInt32BE(1), value.readInt32BE(1));
  });

  it('writes one schema per distinct Connect schema: a second record of it has the same local id', () => {
    const converter = converterWithShop();
    const first = converter.write(converter.read(framed(7, ORDER_INDEXES, ORDER_BYTES)))!;
    const second = converter.write(converter.read(framed(7, ORDER_INDEXES, Buffer.alloc(0))))!;
    assert.equal(second.readInt32BE(1), first.readInt32BE(1));
  });

  it('refuses what it cannot write, saying what to do', () => {
    const converter = new ProtobufConverter();
    assert.throws(() => converter.write('text'), /writes data with a schema only/);
    assert.throws(() => converter.write(new SchemaAndValue(primitive('string', false), 'x')), /writes a struct as the whole key or value, not STRING/);
    const small = structSchema([['s', primitive('int16', true)]]);
    assert.throws(() => converter.write(new SchemaAndValue(small, new Struct(small))), /INT16.*cast it to int32/);
    const named = structSchema([['bad-name', primitive('string', true)]]);
    assert.throws(() => converter.write(new SchemaAndValue(named, new Struct(named))), /the field name "bad-name" is not a Protobuf identifier/);
    const status = new ConnectSchema('string', true, {
      name: 'Status',
      parameters: new Map([
        ['io.confluent.connect.protobuf.Enum', 'Status'],
        ['io.confluent.connect.protobuf.Enum.NEW', '0'],
      ]),
    });
    const withEnum = structSchema([['status', status]]);
    const struct = new Struct(withEnum);
    struct.values[0] = 'GONE';
    assert.throws(() => converter.write(new SchemaAndValue(withEnum, struct)), /the enum field status holds a name its schema has no value for/);
  });
});
