import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confluentSchemaId, withConfluentSchemaId } from './confluent-wire-format';

// An Avro record {"name":"ab"} written by Confluent's serializer with schema id 258: 00 | 00 00 01 02 | 04 61 62.
const framed = Buffer.from([0, 0, 0, 1, 2, 4, 0x61, 0x62]);

test('the schema id is the 4 big-endian bytes after the magic byte', () => {
  assert.equal(confluentSchemaId(framed), 258);
  assert.equal(confluentSchemaId(Buffer.from([0, 0x7f, 0xff, 0xff, 0xff])), 2_147_483_647, 'a header with an empty payload');
});

test('bytes without the magic byte, too short, or null are not in the wire format', () => {
  assert.equal(confluentSchemaId(null), undefined);
  assert.equal(confluentSchemaId(Buffer.from('{"name":"ab"}')), undefined);
  assert.equal(confluentSchemaId(Buffer.from([0, 0, 0, 1])), undefined);
});

test('another id is written into a copy; the payload and the original stay as they were', () => {
  const moved = withConfluentSchemaId(framed, 7);
  assert.deepEqual([...moved], [0, 0, 0, 0, 7, 4, 0x61, 0x62]);
  assert.equal(confluentSchemaId(framed), 258);
  assert.throws(() => withConfluentSchemaId(Buffer.from('plain'), 7), /not in the Confluent wire format/);
});
