import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import type { Kafka } from '../kafkajs';
import { createRequests, KafkajsAdmin, PARTITIONS_PER_CREATE } from './kafkajs-admin';
import type { NewTopic } from '../../core/ports/cluster-admin';
import { KafkaTransportError } from '../../core/errors';

/**
 * A kafkajs admin that counts its open connections the way kafkajs keeps them: a request made
 * while disconnected connects again (kafkajs refreshes metadata before retrying).
 */
class FakeAdmin {
  open = 0;
  requests = 0;
  private pending: (() => void)[] = [];

  connect(): Promise<void> {
    this.open = 1;
    return Promise.resolve();
  }

  disconnect(): Promise<void> {
    this.open = 0;
    return Promise.resolve();
  }

  /** Answers when `answer()` is called, reconnecting first as a retrying kafkajs call does. */
  listGroups(): Promise<{ groups: { groupId: string }[] }> {
    this.requests++;
    return new Promise((resolve) =>
      this.pending.push(() => {
        this.open = 1;
        resolve({ groups: [{ groupId: 'orders-app' }] });
      }),
    );
  }

  answer(): void {
    for (const reply of this.pending.splice(0)) reply();
  }
}

function adminOver(fake: FakeAdmin): KafkajsAdmin {
  return new KafkajsAdmin('backup', { admin: () => fake } as unknown as Kafka);
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('a call still under way when the admin closes leaves no connection behind once it ends', async () => {
  const fake = new FakeAdmin();
  const admin = adminOver(fake);
  const answered = firstValueFrom(admin.listGroups());
  await settled();
  assert.equal(fake.requests, 1);

  await admin.close();
  assert.equal(fake.open, 0);
  fake.answer(); // kafkajs reconnected to finish the request
  assert.deepEqual(await answered, ['orders-app']);
  await settled();
  assert.equal(fake.open, 0, 'the connection the late call opened is closed again');
});

test('a closed admin refuses new calls at once, without connecting and without retrying', async () => {
  const fake = new FakeAdmin();
  const admin = adminOver(fake);
  await admin.close();
  await assert.rejects(firstValueFrom(admin.listTopics()), (error: unknown) => {
    assert.ok(error instanceof KafkaTransportError);
    assert.equal(error.retriable, false);
    assert.match(error.message, /Cluster "backup": Listing topics: the admin client is closed/);
    return true;
  });
  assert.equal(fake.requests, 0);
  assert.equal(fake.open, 0);
});

test('an admin connect that failed (the cluster down) is forgotten: the call is retried with a new client and succeeds', async () => {
  const refused = Object.assign(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092'), {
    name: 'KafkaJSConnectionError',
    code: 'ECONNREFUSED',
    retriable: true,
  });
  const clients: FakeAdmin[] = [];
  const kafka = {
    admin: () => {
      const fake = new FakeAdmin();
      // The first client cannot connect; every later one can, and answers at once.
      if (clients.length === 0) fake.connect = () => Promise.reject(refused);
      else fake.listGroups = () => Promise.resolve({ groups: [{ groupId: 'orders-app' }] });
      clients.push(fake);
      return fake;
    },
  } as unknown as Kafka;
  const admin = new KafkajsAdmin('backup', kafka);
  assert.deepEqual(await firstValueFrom(admin.listGroups()), ['orders-app']);
  assert.equal(clients.length, 2, 'a new client replaced the one whose connect failed');
  await admin.close();
});

const newTopic = (name: string, partitions: number): NewTopic => ({ name, partitions, replicationFactor: 1, configs: {} });

test('topics are asked for in requests of at most 100 partitions, in order; a topic larger than that goes alone', () => {
  const names = (requests: NewTopic[][]) => requests.map((r) => r.map((t) => t.name).join(','));
  assert.equal(PARTITIONS_PER_CREATE, 100);
  assert.deepEqual(names(createRequests([newTopic('a', 40), newTopic('b', 60), newTopic('c', 1), newTopic('d', 250), newTopic('e', 99), newTopic('f', 2)])), [
    'a,b',
    'c',
    'd',
    'e',
    'f',
  ]);
  assert.deepEqual(createRequests([]), []);
});

test('createTopics creates many topics request by request; a request that meets a topic someone else made goes topic by topic', async () => {
  const requests: string[][] = [];
  const topics = [...Array.from({ length: 25 }, (_, i) => newTopic(`t${i}`, 20)), newTopic('taken', 20)];
  const fake = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    listTopics: () => Promise.resolve(['t3']),
    createTopics: ({ topics: asked }: { topics: { topic: string }[] }) => {
      requests.push(asked.map((t) => t.topic));
      if (asked.some((t) => t.topic === 'taken'))
        return Promise.reject(Object.assign(new Error('Topic with this name already exists'), { type: 'TOPIC_ALREADY_EXISTS' }));
      return Promise.resolve(true);
    },
  };
  const admin = new KafkajsAdmin('backup', { admin: () => fake } as unknown as Kafka);
  const created = await firstValueFrom(admin.createTopics(topics, { served: false }));
  const expected = topics.map((t) => t.name).filter((n) => n !== 't3' && n !== 'taken');
  assert.deepEqual(created, expected, 'every topic this call made, and neither the one there before nor the one made meanwhile');
  assert.deepEqual(
    requests.map((r) => r.length),
    [5, 5, 5, 5, 5, 1, 1, 1, 1, 1],
    'five topics of 20 partitions a request; the last request of five met "taken" and went again topic by topic',
  );
  assert.deepEqual(requests.slice(-5).flat(), ['t21', 't22', 't23', 't24', 'taken']);
  await admin.close();
});
