import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { FORWARDING_BROKER_METHODS, untilOffered, type ApiVersionRanges, type OfferedWait } from './forwarded-apis';
import { KAFKAJS_BROKER, kafkajsApiKeys, kafkajsInternal } from './kafkajs-internals';

const { CreateTopics, IncrementalAlterConfigs } = kafkajsApiKeys();
const API_VERSIONS = 18;
const METADATA = 3;
const DESCRIBE_CLUSTER = 60;
const QUICK: OfferedWait = { timeoutMs: 200, initialDelayMs: 5, maxDelayMs: 20 };

const { createLogger, LEVELS } = kafkajsInternal('kafkajs/src/loggers') as { createLogger: (options: object) => object; LEVELS: { NOTHING: number } };
type KafkajsBroker = {
  versions: ApiVersionRanges | null;
  connect(): Promise<void>;
  createTopics(request: { topics: { topic: string }[] }): Promise<unknown>;
} & Record<string, unknown>;
const Broker = kafkajsInternal(KAFKAJS_BROKER) as new (options: object) => KafkajsBroker;

function ranges(...keys: number[]): ApiVersionRanges {
  return Object.fromEntries(keys.map((key) => [key, { minVersion: 0, maxVersion: key === CreateTopics ? 7 : 4 }]));
}

/** A broker that answers ApiVersions with `answers` in turn (the last one again and again), counting the asks. */
function askedBroker(kept: ApiVersionRanges | null, ...answers: ApiVersionRanges[]) {
  const broker = {
    versions: kept,
    asked: 0,
    apiVersions: () => Promise.resolve(answers[Math.min(broker.asked++, answers.length - 1)]!),
  };
  return broker;
}

test('a broker whose kept versions list the request is not asked again', async () => {
  const broker = askedBroker(ranges(METADATA, CreateTopics, DESCRIBE_CLUSTER));
  assert.deepEqual(await untilOffered(broker, 'CreateTopics', QUICK), { offered: true, asked: 0 });
  assert.equal(broker.asked, 0);
});

test('a broker that left the request out is asked until it lists it, and the shared versions keep its answer', async () => {
  const kept = ranges(METADATA, DESCRIBE_CLUSTER);
  const broker = askedBroker(kept, ranges(METADATA, DESCRIBE_CLUSTER), ranges(METADATA, CreateTopics, DESCRIBE_CLUSTER));
  assert.deepEqual(await untilOffered(broker, 'CreateTopics', QUICK), { offered: true, asked: 2 });
  assert.equal(broker.versions, kept, 'the same object: every broker of the client reads it');
  assert.deepEqual(kept[CreateTopics], { minVersion: 0, maxVersion: 7 });
});

test('a broker that never lists the request is asked until the time is up, and the caller learns it', async () => {
  const broker = askedBroker(ranges(METADATA, DESCRIBE_CLUSTER), ranges(METADATA, DESCRIBE_CLUSTER));
  const result = await untilOffered(broker, 'IncrementalAlterConfigs', QUICK);
  assert.equal(result.offered, false);
  assert.ok(result.asked >= 3, `asked ${result.asked} times`);
  assert.equal(broker.versions?.[IncrementalAlterConfigs], undefined);
});

test('a broker older than the request (no API key above it) and one not yet connected are not asked', async () => {
  const old = askedBroker(ranges(METADATA, API_VERSIONS));
  assert.deepEqual(await untilOffered(old, 'CreateTopics', QUICK), { offered: false, asked: 0 });
  const unconnected = askedBroker(null);
  assert.deepEqual(await untilOffered(unconnected, 'CreateTopics', QUICK), { offered: true, asked: 0 });
  assert.equal(old.asked + unconnected.asked, 0);
});

test("every forwarding Broker method named is kafkajs's, and waits for its broker", () => {
  for (const method of Object.keys(FORWARDING_BROKER_METHODS)) {
    const wrapped = Object.getOwnPropertyDescriptor(Broker.prototype, method)?.value as { name?: string } | undefined;
    assert.equal(wrapped?.name, 'forwardOnceOffered', `kafkajs's Broker.${method}`);
  }
});

/**
 * kafkajs's own Broker over a connection pool that answers ApiVersions with `answers` in turn and
 * records every other request's API key and version.
 */
function kafkajsBroker(versions: ApiVersionRanges | null, answers: ApiVersionRanges[]) {
  const sent: { apiKey: number; apiVersion: number }[] = [];
  let connected = false;
  let asked = 0;
  const pool = {
    host: '127.0.0.1',
    port: 9092,
    connectionTimeout: 1000,
    isConnected: () => connected,
    getConnection: () => Promise.resolve({ getSupportAuthenticationProtocol: () => true, authenticate: () => ((connected = true), Promise.resolve()) }),
    setVersions: () => undefined,
    setSupportAuthenticationProtocol: () => undefined,
    destroy: () => ((connected = false), Promise.resolve()),
    send: ({ request }: { request: { apiKey: number; apiVersion: number } }) => {
      if (request.apiKey !== API_VERSIONS) {
        sent.push({ apiKey: request.apiKey, apiVersion: request.apiVersion });
        return Promise.resolve({ topicErrors: [] });
      }
      const answer = answers[Math.min(asked++, answers.length - 1)]!;
      return Promise.resolve({ errorCode: 0, apiVersions: Object.entries(answer).map(([apiKey, range]) => ({ apiKey: Number(apiKey), ...range })) });
    },
  };
  const broker = new Broker({ connectionPool: pool, logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined }), versions });
  return { broker, sent, asked: () => asked };
}

test("kafkajs's Broker connected while CreateTopics was left out asks again and sends it; its client's other brokers need not ask", async () => {
  // A client's first connection: the broker did not know its controller's versions yet.
  const first = kafkajsBroker(null, [ranges(API_VERSIONS, METADATA, DESCRIBE_CLUSTER), ranges(API_VERSIONS, METADATA, CreateTopics, DESCRIBE_CLUSTER)]);
  await first.broker.connect();
  await first.broker.createTopics({ topics: [{ topic: 'orders' }] });
  assert.deepEqual(first.sent, [{ apiKey: CreateTopics, apiVersion: 3 }], "kafkajs's newest CreateTopics (v3), the broker taking 0–7");
  assert.equal(first.asked(), 2, 'once on connect, once more before CreateTopics');
  // kafkajs hands the first broker's versions to the others of its client.
  const second = kafkajsBroker(first.broker.versions, [ranges(API_VERSIONS)]);
  await second.broker.connect();
  await second.broker.createTopics({ topics: [{ topic: 'payments' }] });
  assert.equal(second.asked(), 0);
  assert.deepEqual(second.sent, [{ apiKey: CreateTopics, apiVersion: 3 }]);
});

test("kafkajs's Broker of a broker older than the request fails at once with kafkajs's error", async () => {
  const old = kafkajsBroker(null, [ranges(API_VERSIONS, METADATA)]);
  await old.broker.connect();
  await assert.rejects(old.broker.createTopics({ topics: [{ topic: 'orders' }] }), {
    name: 'KafkaJSServerDoesNotSupportApiKey',
    message: 'The Kafka server does not support the requested API version',
  });
  assert.deepEqual(old.sent, []);
  assert.equal(old.asked(), 1, 'only on connect');
});
