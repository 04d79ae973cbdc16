import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaJSProtocolError } from '../kafkajs';
import type { KafkajsMetadata, RawBroker, RawCluster } from '../wire/raw-cluster';
import { untilTopicsServed, type ReadinessWait } from './topic-readiness';

const protocolError = (type: string, retriable: boolean): Error =>
  new KafkaJSProtocolError({ type, code: 0, retriable, message: `${type} from the broker` } as unknown as Error);

interface Broker {
  /** Leaders per topic, as this broker's metadata answers (-1: none yet). */
  leaders: Record<string, number[]>;
  /** What each ListOffsets answers, in turn; the last one stays. */
  answers: (Error | undefined)[];
  asked: { nodeId: number; topics: { topic: string; partitions: number[] }[] }[];
}

/** A cluster of brokers 1 and 2 whose metadata and ListOffsets answer as `broker` says. */
function cluster(broker: Broker): RawCluster {
  const node = (nodeId: number): RawBroker =>
    ({
      metadata: async (topics: string[]): Promise<KafkajsMetadata> => ({
        topicMetadata: topics
          .filter((topic) => broker.leaders[topic] !== undefined)
          .map((topic) => ({ topic, partitionMetadata: broker.leaders[topic]!.map((leader, partitionId) => ({ partitionId, leader })) })),
      }),
      listOffsets: async (request: { topics: readonly { topic: string; partitions: readonly { partition: number }[] }[] }) => {
        broker.asked.push({ nodeId, topics: request.topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => p.partition) })) });
        const answer = broker.answers.length > 1 ? broker.answers.shift() : broker.answers[0];
        if (answer !== undefined) throw answer;
        return {};
      },
    }) as unknown as RawBroker;
  return {
    refreshMetadataIfNecessary: async () => undefined,
    anyBroker: async () => node(1),
    broker: async (nodeId: number) => node(nodeId),
  } as unknown as RawCluster;
}

/** A virtual clock: sleeping moves it on at once, and the sleeps are recorded. */
function clock(timeoutMs = 1000): ReadinessWait & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    timeoutMs,
    firstDelayMs: 10,
    maxDelayMs: 40,
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

test('waits until every leader answers for its partitions, asking each leader once per round', async () => {
  const broker: Broker = { leaders: { a: [1, 2, 1], b: [2] }, answers: [protocolError('NOT_LEADER_OR_FOLLOWER', true), undefined], asked: [] };
  const wait = clock();
  assert.equal(
    await untilTopicsServed(
      cluster(broker),
      new Map([
        ['a', 3],
        ['b', 1],
      ]),
      wait,
    ),
    true,
  );
  const last = broker.asked.slice(-2).sort((x, y) => x.nodeId - y.nodeId);
  assert.deepEqual(last, [
    { nodeId: 1, topics: [{ topic: 'a', partitions: [0, 2] }] },
    {
      nodeId: 2,
      topics: [
        { topic: 'a', partitions: [1] },
        { topic: 'b', partitions: [0] },
      ],
    },
  ]);
  assert.deepEqual(wait.slept, [10], 'one short wait after the leader said it was not yet the leader');
});

test('waits while a partition has no leader or a topic is not in the metadata yet', async () => {
  const broker: Broker = { leaders: { a: [1, -1] }, answers: [undefined], asked: [] };
  const wait = clock();
  const served = untilTopicsServed(
    cluster(broker),
    new Map([
      ['a', 2],
      ['b', 1],
    ]),
    {
      ...wait,
      sleep: async (ms) => {
        await wait.sleep!(ms);
        // The leaders arrive after the second wait.
        if (wait.slept.length === 2) broker.leaders = { a: [1, 2], b: [1] };
      },
    },
  );
  assert.equal(await served, true);
  assert.deepEqual(wait.slept, [10, 20], 'the waits grow');
  assert.equal(broker.asked.length > 0, true);
});

test('gives up at once on an error that waiting cannot cure', async () => {
  const broker: Broker = { leaders: { a: [1] }, answers: [protocolError('TOPIC_AUTHORIZATION_FAILED', false)], asked: [] };
  const wait = clock();
  assert.equal(await untilTopicsServed(cluster(broker), new Map([['a', 1]]), wait), false);
  assert.deepEqual(wait.slept, []);
});

test('gives up after its timeout, with waits no longer than the longest', async () => {
  const broker: Broker = { leaders: { a: [1] }, answers: [protocolError('NOT_LEADER_OR_FOLLOWER', true)], asked: [] };
  const wait = clock(200);
  assert.equal(await untilTopicsServed(cluster(broker), new Map([['a', 1]]), wait), false);
  assert.deepEqual(wait.slept, [10, 20, 40, 40, 40, 40]);
});

test('nothing to wait for when nothing was created', async () => {
  const broker: Broker = { leaders: {}, answers: [undefined], asked: [] };
  assert.equal(await untilTopicsServed(cluster(broker), new Map(), clock()), true);
  assert.deepEqual(broker.asked, []);
});
