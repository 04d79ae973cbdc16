/**
 * IncrementalAlterConfigs v0 against bytes Kafka wrote (fixtures/, captured by
 * test/interop/capture-alter-configs-fixtures.ts): the request as Kafka's Java AdminClient's
 * request class encodes it, and a Kafka 4.3.1 broker's response to that request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TOPIC_RESOURCE, decodeIncrementalAlterConfigsV0, encodeIncrementalAlterConfigsV0, incrementalAlterConfigsRequest } from './incremental-alter-configs';

/** `src/kafka/wire/fixtures/<name>`, from `dist/src/kafka/wire/`. */
const fixture = (name: string): Buffer =>
  Buffer.from(readFileSync(resolve(__dirname, '..', '..', '..', '..', 'src', 'kafka', 'wire', 'fixtures', name), 'utf8').replace(/\s/g, ''), 'hex');

test("the request is byte for byte what Kafka's Java AdminClient encodes for the same changes", () => {
  const ours = encodeIncrementalAlterConfigsV0([
    {
      resourceType: TOPIC_RESOURCE,
      resourceName: 'wire-configs',
      configs: [
        { name: 'retention.ms', operation: 'set', value: '3600000' },
        { name: 'retention.bytes', operation: 'delete', value: null },
        { name: 'cleanup.policy', operation: 'set', value: 'compact,delete' },
      ],
    },
    { resourceType: TOPIC_RESOURCE, resourceName: 'wire-configs-refused', configs: [{ name: 'retention.ms', operation: 'set', value: 'forever' }] },
    { resourceType: TOPIC_RESOURCE, resourceName: 'wire-configs-missing', configs: [{ name: 'retention.ms', operation: 'set', value: '1' }] },
  ]);
  assert.equal(ours.toString('hex'), fixture('java-incremental-alter-configs-v0-request.hex').toString('hex'));
});

test("decodes a broker's answer per topic: applied, refused with its reason, unknown topic", () => {
  const response = decodeIncrementalAlterConfigsV0(fixture('broker-incremental-alter-configs-v0.hex'));
  assert.equal(response.throttleTimeMs, 0);
  assert.deepEqual(response.responses, [
    { errorCode: 0, errorMessage: null, resourceType: TOPIC_RESOURCE, resourceName: 'wire-configs' },
    {
      errorCode: 40, // INVALID_CONFIG
      errorMessage: 'Invalid value forever for configuration retention.ms: Not a number of type LONG',
      resourceType: TOPIC_RESOURCE,
      resourceName: 'wire-configs-refused',
    },
    {
      errorCode: 3, // UNKNOWN_TOPIC_OR_PARTITION
      errorMessage: "The topic 'wire-configs-missing' does not exist.",
      resourceType: TOPIC_RESOURCE,
      resourceName: 'wire-configs-missing',
    },
  ]);
});

test('a response cut short is refused with where it ended', () => {
  const cut = fixture('broker-incremental-alter-configs-v0.hex').subarray(0, 30);
  assert.throws(() => decodeIncrementalAlterConfigsV0(cut), /IncrementalAlterConfigs response ends at byte 30/);
});

test('strings are measured in UTF-8 bytes, and a value too long for Kafka is refused before sending', () => {
  const body = encodeIncrementalAlterConfigsV0([{ resourceType: TOPIC_RESOURCE, resourceName: 'é', configs: [] }]);
  assert.deepEqual([...body], [0, 0, 0, 1, 2, 0, 2, 0xc3, 0xa9, 0, 0, 0, 0, 0]);
  const long = [{ resourceType: TOPIC_RESOURCE, resourceName: 't', configs: [{ name: 'x', operation: 'set' as const, value: 'v'.repeat(40_000) }] }];
  assert.throws(() => encodeIncrementalAlterConfigsV0(long), /40000 bytes is longer than Kafka's 32767/);
});

test("the request is v0 of API key 44, non-flexible (request header v1), in kafkajs's request shape", async () => {
  const { request, response } = incrementalAlterConfigsRequest([]);
  assert.equal(request.apiKey, 44);
  assert.equal(request.apiVersion, 0);
  assert.equal((request as { flexible?: boolean }).flexible, undefined);
  assert.deepEqual([...(await request.encode()).buffer], [0, 0, 0, 0, 0]);
  assert.deepEqual(await response.parse(await response.decode(Buffer.from([0, 0, 0, 5, 0, 0, 0, 0]))), { throttleTimeMs: 5, responses: [] });
});
