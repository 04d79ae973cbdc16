import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { ZERO_TOPIC_ID, decodeMetadataV12Response, encodeMetadataV12Request } from './metadata-v12';
import { frameRequest } from './request-frame';

/**
 * A Metadata v12 response from a Kafka 4.3.1 broker (one node, port 38285), captured after the
 * correlation id (as kafkajs's connection hands it over), for the topics `fixture-orders` (2
 * partitions), `fixture-audit` (1) and `fixture-missing` (does not exist). Kafka's own
 * `TopicCommand --describe` printed the ids asserted below for the two topics.
 */
const CAPTURED = [
  '000000000002000000010a3132372e302e302e310000958d00001756434832556c79475346576a4b774f336b5f424451',
  '51000000010400000f666978747572652d6f7264657273772990e8df8c48f0bcc0ab0df7d22d3b000300000000000000',
  '000001000000000200000001020000000101000000000000010000000100000000020000000102000000010100800000',
  '000000000e666978747572652d6175646974a918f4eca9604670ac89775fef74bfc90002000000000000000000010000',
  '00000200000001020000000101008000000000000310666978747572652d6d697373696e670000000000000000000000',
  '00000000000001800000000000',
].join('');

test('decodes a Metadata v12 response captured from a real broker: topic ids as Kafka prints them', () => {
  const response = decodeMetadataV12Response(Buffer.from(CAPTURED, 'hex'));
  assert.deepEqual(response.brokers, [{ nodeId: 1, host: '127.0.0.1', port: 38285, rack: null }]);
  assert.equal(response.clusterId, 'VCH2UlyGSFWjKwO3k_BDQQ');
  assert.equal(response.controllerId, 1);
  assert.deepEqual(
    response.topics.map((t) => ({ name: t.name, errorCode: t.errorCode, topicId: t.topicId, partitions: t.partitions.map((p) => p.partition) })),
    [
      { name: 'fixture-orders', errorCode: 0, topicId: 'dymQ6N-MSPC8wKsN99ItOw', partitions: [0, 1] },
      { name: 'fixture-audit', errorCode: 0, topicId: 'qRj07KlgRnCsiXdf73S_yQ', partitions: [0] },
      // UNKNOWN_TOPIC_OR_PARTITION, with the zero id.
      { name: 'fixture-missing', errorCode: 3, topicId: ZERO_TOPIC_ID, partitions: [] },
    ],
  );
  assert.deepEqual(
    response.topics.flatMap((t) => t.partitions.map((p) => p.replicas)),
    [1, 1, 1],
    'one replica each on the one-broker cluster',
  );
});

test('a response cut short is refused with where it ended, not read past its end', () => {
  const cut = Buffer.from(CAPTURED, 'hex').subarray(0, 60);
  assert.throws(() => decodeMetadataV12Response(cut), /Metadata v12 response ends at byte 60/);
});

test('the request names topics by name with a zero id, no auto-creation, no authorized operations', () => {
  const expected = Buffer.concat([
    Buffer.from([2]), // compact array: 1 topic
    Buffer.alloc(16), // topic_id: zero, the topic is named
    Buffer.from([3]), // compact string: 2 bytes
    Buffer.from('ab'),
    Buffer.from([0]), // topic's tagged fields
    Buffer.from([0, 0, 0]), // allow_auto_topic_creation, include_topic_authorized_operations, tagged fields
  ]);
  assert.deepEqual(encodeMetadataV12Request(['ab']), expected);
});

test('without topics the request asks for every topic: a null array', () => {
  assert.deepEqual(encodeMetadataV12Request(undefined), Buffer.from([0, 0, 0, 0]));
  assert.deepEqual(encodeMetadataV12Request([]), Buffer.from([1, 0, 0, 0]), 'an empty list asks for none');
});

test('flexible requests get request header v2 (tagged fields after the client id); others keep v1', async () => {
  const body = Buffer.from([9, 9]);
  const request = (flexible: boolean) => ({ apiKey: 3, apiVersion: 12, ...(flexible ? { flexible } : {}), encode: async () => ({ buffer: body }) });
  const v2 = (await frameRequest({ correlationId: 5, clientId: 'c', request: request(true) })).buffer;
  const v1 = (await frameRequest({ correlationId: 5, clientId: 'c', request: request(false) })).buffer;
  assert.deepEqual([...v2], [0, 0, 0, 14, 0, 3, 0, 12, 0, 0, 0, 5, 0, 1, 0x63, 0, 9, 9]);
  assert.deepEqual([...v1], [0, 0, 0, 13, 0, 3, 0, 12, 0, 0, 0, 5, 0, 1, 0x63, 9, 9]);
});
