import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readEnvelope, SCHEMA_CACHE_SIZE, writeEnvelope } from './json-envelope';
import { SchemaAndValue } from './connect-value';

/**
 * Vectors from Kafka 4.3.1's JsonConverter (schemas.enable=true) on JDK 17: the bytes it writes
 * back (fromConnectData) for what it read (toConnectData), or the message of its DataException.
 */
const VECTORS: readonly (readonly [string, string, string | null])[] = [
  [
    'every type, logical types, defaults, names, versions, docs and parameters',
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"field":"name","type":"string","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"optional":true,"field":"ts"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amt"},{"type":"int32","name":"org.apache.kafka.connect.data.Date","field":"d","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","field":"t","optional":true},{"type":"float","field":"f","optional":true},{"type":"double","field":"g","optional":true},{"type":"array","items":{"type":"string"},"optional":true,"field":"tags"},{"type":"map","keys":{"type":"string"},"values":{"type":"int64","optional":true},"optional":true,"field":"m"},{"type":"boolean","optional":true,"default":true,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16","doc":"a doc"}],"optional":false,"name":"com.x.Order","version":3,"doc":"an order","parameters":{"z":"1","a":"2"}},"payload":{"id":7,"name":"x","ts":1700000000123,"amt":"BNI=","d":19675,"t":3600000,"f":1.5,"g":10000000.0,"tags":["a"],"m":{"z":1,"a":2,"q":null},"b":null,"i8":300,"i16":5}}',
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"field":"name"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amt"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","field":"d"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","field":"t"},{"type":"float","optional":true,"field":"f"},{"type":"double","optional":true,"field":"g"},{"type":"array","items":{"type":"string","optional":false},"optional":true,"field":"tags"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int64","optional":true},"optional":true,"field":"m"},{"type":"boolean","optional":true,"default":true,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"doc":"a doc","field":"i16"}],"optional":false,"name":"com.x.Order","version":3,"doc":"an order","parameters":{"z":"1","a":"2"}},"payload":{"id":7,"name":"x","ts":1700000000123,"amt":"BNI=","d":19675,"t":3600000,"f":1.5,"g":1.0E7,"tags":["a"],"m":{"a":2,"q":null,"z":1},"b":true,"i8":44,"i16":5}}',
  ],
  [
    'numbers of another type are converted as Jackson converts them, missing fields are null, unknown ones ignored',
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"field":"name","type":"string","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"optional":true,"field":"ts"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amt"},{"type":"int32","name":"org.apache.kafka.connect.data.Date","field":"d","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","field":"t","optional":true},{"type":"float","field":"f","optional":true},{"type":"double","field":"g","optional":true},{"type":"array","items":{"type":"string"},"optional":true,"field":"tags"},{"type":"map","keys":{"type":"string"},"values":{"type":"int64","optional":true},"optional":true,"field":"m"},{"type":"boolean","optional":true,"default":true,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16","doc":"a doc"}],"optional":false,"name":"com.x.Order","version":3,"doc":"an order","parameters":{"z":"1","a":"2"}},"payload":{"id":-7.9,"amt":"AIA=","name":5,"f":0.1,"g":-0.0,"i16":70000,"extra":1}}',
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"field":"name"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amt"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","field":"d"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","field":"t"},{"type":"float","optional":true,"field":"f"},{"type":"double","optional":true,"field":"g"},{"type":"array","items":{"type":"string","optional":false},"optional":true,"field":"tags"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int64","optional":true},"optional":true,"field":"m"},{"type":"boolean","optional":true,"default":true,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"doc":"a doc","field":"i16"}],"optional":false,"name":"com.x.Order","version":3,"doc":"an order","parameters":{"z":"1","a":"2"}},"payload":{"id":-7,"name":null,"ts":null,"amt":"AIA=","d":null,"t":null,"f":0.1,"g":0.0,"tags":null,"m":null,"b":true,"i8":null,"i16":4464}}',
  ],
  ['a string where a number is expected is 0', '{"schema":{"type":"int64"},"payload":"abc"}', '{"schema":{"type":"int64","optional":false},"payload":0}'],
  [
    'a null payload of a required schema with a default is the default',
    '{"schema":{"type":"string","optional":false,"default":"dflt"},"payload":null}',
    '{"schema":{"type":"string","optional":false,"default":"dflt"},"payload":"dflt"}',
  ],
  [
    'an optional null payload stays null',
    '{"schema":{"type":"string","optional":true},"payload":null}',
    '{"schema":{"type":"string","optional":true},"payload":null}',
  ],
  [
    "struct fields' defaults replace nulls",
    '{"schema":{"type":"struct","fields":[{"type":"int32","field":"a","default":5},{"type":"string","field":"s","optional":true,"default":"q"}]},"payload":{"a":null,"s":null}}',
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"default":5,"field":"a"},{"type":"string","optional":true,"default":"q","field":"s"}],"optional":false},"payload":{"a":5,"s":"q"}}',
  ],
  [
    "a default is converted to the schema's type",
    '{"schema":{"type":"int32","default":"x"},"payload":1}',
    '{"schema":{"type":"int32","optional":false,"default":0},"payload":1}',
  ],
  [
    'a numeric Decimal with a negative scale',
    '{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"-2"}},"payload":1.5E3}',
    '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"-2"}},"payload":"Dw=="}',
  ],
  [
    'nested structs',
    '{"schema":{"type":"struct","fields":[{"type":"struct","field":"in","fields":[{"type":"int32","field":"x"}],"optional":true},{"type":"bytes","field":"raw","optional":true}]},"payload":{"in":{"x":1},"raw":"AAEC"}}',
    '{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"bytes","optional":true,"field":"raw"}],"optional":false},"payload":{"in":{"x":1},"raw":"AAEC"}}',
  ],
  ['schemaless data in an envelope', '{"schema":null,"payload":{"b":1,"a":2.0}}', '{"schema":null,"payload":{"a":2.0,"b":1}}'],
  [
    'float and double',
    '{"schema":{"type":"struct","fields":[{"type":"float","field":"f"},{"type":"double","field":"d"}]},"payload":{"f":16777217,"d":12345678901234567890}}',
    '{"schema":{"type":"struct","fields":[{"type":"float","optional":false,"field":"f"},{"type":"double","optional":false,"field":"d"}],"optional":false},"payload":{"f":1.6777216E7,"d":1.2345678901234567E19}}',
  ],
];
const ERRORS: readonly (readonly [string, string, string])[] = [
  [
    'plain JSON',
    '{"a":1}',
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.',
  ],
  [
    'an extra top-level field',
    '{"schema":null,"payload":{},"x":1}',
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.',
  ],
  [
    'empty bytes',
    '',
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.',
  ],
  ['a required null', '{"schema":{"type":"string"},"payload":null}', 'Invalid null value for required STRING field'],
  [
    'a required struct field missing',
    '{"schema":{"type":"struct","fields":[{"type":"int32","field":"id"}]},"payload":{"x":1}}',
    'Invalid null value for required INT32 field',
  ],
  [
    'a Decimal of another scale',
    '{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},"payload":12.5}',
    'Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, value has scale 1.',
  ],
  [
    'a Date that is not whole days',
    '{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Date"},"payload":19675.5}',
    'Invalid type for Date, underlying representation should be integer but was NUMBER',
  ],
  [
    'a Time past a day',
    '{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Time"},"payload":90000000}',
    'Time values must use number of milliseconds greater than 0 and less than 86400000',
  ],
  ['an unknown type', '{"schema":{"type":"strin"},"payload":"a"}', 'Unknown schema type: strin'],
  ['a field without a name', '{"schema":{"type":"struct","fields":[{"type":"int32"}]},"payload":{}}', "Struct schema's field name not specified properly"],
  [
    'a repeated field',
    '{"schema":{"type":"struct","fields":[{"type":"int32","field":"a"},{"type":"int32","field":"a"}]},"payload":{}}',
    'Cannot create field because of field name duplication a',
  ],
  ['a parameter that is not a string', '{"schema":{"type":"string","parameters":{"a":1}},"payload":"x"}', 'Schema parameters must have string values.'],
  ['bytes that are not base64', '{"schema":{"type":"bytes"},"payload":"not base64!"}', 'Invalid bytes field'],
  ['a struct that is not an object', '{"schema":{"type":"struct","fields":[]},"payload":[1]}', 'Structs should be encoded as JSON objects, but found ARRAY'],
];

const roundTrip = (json: string): string | null => writeEnvelope(readEnvelope(Buffer.from(json, 'utf8')))?.toString('utf8') ?? null;

describe("JsonConverter with schemas (Connect's {schema, payload} envelope)", () => {
  for (const [what, input, expected] of VECTORS) {
    it(`writes what it read as Connect does: ${what}`, () => assert.equal(roundTrip(input), expected));
  }

  for (const [what, input, message] of ERRORS) {
    it(`refuses ${what} with Connect's message`, () => assert.throws(() => roundTrip(input), { message }));
  }

  it('reads and writes no bytes as a tombstone', () => {
    assert.equal(readEnvelope(null), null);
    assert.equal(writeEnvelope(null), null);
  });

  it('never quotes the record in a refusal', () => {
    assert.throws(
      () => readEnvelope(Buffer.from('{"schema":{"type":"bytes"},"payload":"secret!"}')),
      (error: Error) => !error.message.includes('secret'),
    );
  });

  describe('the schemas it read, kept by their text', () => {
    const read = (json: string): SchemaAndValue => {
      const value = readEnvelope(Buffer.from(json, 'utf8'));
      assert.ok(value instanceof SchemaAndValue);
      return value;
    };
    /** A schema text no other test reads. */
    let unique = 0;
    const schemaText = (type = 'int64'): string => `{"type":"${type}","optional":true,"doc":"cache ${++unique}"}`;

    for (const [what, input, expected] of VECTORS) {
      it(`writes the same bytes when it reads a schema again: ${what}`, () => {
        assert.equal(roundTrip(input), expected);
        assert.equal(roundTrip(input), expected);
      });
    }

    it('gives records with the same schema text one schema, and reads each payload by it', () => {
      const schema = schemaText();
      const first = read(`{"schema":${schema},"payload":1}`);
      const second = read(`{"schema":${schema},"payload":"2"}`);
      assert.equal(second.schema, first.schema);
      assert.equal(writeEnvelope(second)?.toString(), `{"schema":{"type":"int64","optional":true,"doc":"cache ${unique}"},"payload":0}`);
    });

    it('reads a schema written with other whitespace as a schema of its own, to the same effect', () => {
      const schema = schemaText();
      const spaced = read(`{"schema": ${schema.replaceAll(',', ', ')} ,"payload":5}`);
      const tight = read(`{"schema":${schema},"payload":5}`);
      assert.notEqual(spaced.schema, tight.schema);
      assert.equal(writeEnvelope(spaced)?.toString(), writeEnvelope(tight)?.toString());
    });

    it(`keeps the ${SCHEMA_CACHE_SIZE} schemas used last`, () => {
      const kept = schemaText();
      const dropped = schemaText();
      const keptSchema = read(`{"schema":${kept},"payload":1}`).schema;
      const droppedSchema = read(`{"schema":${dropped},"payload":1}`).schema;
      for (let i = 0; i < SCHEMA_CACHE_SIZE - 1; i++) {
        read(`{"schema":${schemaText()},"payload":1}`);
        if (i % 100 === 0) read(`{"schema":${kept},"payload":1}`);
      }
      assert.equal(read(`{"schema":${kept},"payload":1}`).schema, keptSchema);
      assert.notEqual(read(`{"schema":${dropped},"payload":1}`).schema, droppedSchema);
    });

    it('reads a refused schema again, and refuses it again', () => {
      const bad = '{"schema":{"type":"struct","fields":[{"type":"int32","field":"a"},{"type":"int32","field":"a"}],"doc":"cache bad"},"payload":{}}';
      assert.throws(() => read(bad), { message: 'Cannot create field because of field name duplication a' });
      assert.throws(() => read(bad), { message: 'Cannot create field because of field name duplication a' });
    });

    it('takes the last of a repeated "schema", whether it was read before or not', () => {
      const a = schemaText('int64');
      const b = schemaText('string');
      read(`{"schema":${a},"payload":1}`);
      assert.equal(read(`{"schema":${a},"payload":"x","schema":${b}}`).schema.type, 'string');
      assert.equal(read(`{"schema":${b},"payload":"7","schema":${a}}`).schema.type, 'int64');
    });

    it('still refuses a payload that does not fit a schema read before', () => {
      const schema = '{"type":"struct","fields":[{"type":"int32","field":"id"}],"doc":"cache fit"}';
      read(`{"schema":${schema},"payload":{"id":1}}`);
      assert.throws(() => read(`{"schema":${schema},"payload":{"x":1}}`), { message: 'Invalid null value for required INT32 field' });
      assert.throws(() => read(`{"schema":${schema},"payload":{"id":1},"x":1}`), { message: /requires "schema" and "payload" fields/ });
      assert.throws(() => read(`{"schema":${schema},"payload":{"id":1`), { message: /not JSON \(expected ',' or '}' at character \d+\)/ });
    });
  });
});
