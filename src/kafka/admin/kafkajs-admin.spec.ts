import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import { KafkaJSAggregateError, KafkaJSProtocolError, type Kafka } from '../kafkajs';
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

/**
 * A broker's CreateTopics as kafkajs's admin answers it (node_modules/kafkajs/src/admin/index.js):
 * each topic is created or refused on its own; true when none was refused, false when every
 * refusal is TOPIC_ALREADY_EXISTS (without saying which), else a KafkaJSAggregateError with one
 * error per refused topic, each with its `topic` and `type`. `refuse` says why a topic is refused
 * (once, or `always`) other than existing.
 */
function brokerAdmin(options: { listed: readonly string[]; existing: readonly string[]; refuse?: Record<string, { type: string; always?: boolean }> }) {
  const existing = new Set(options.existing);
  const refuse = new Map(Object.entries(options.refuse ?? {}));
  const requests: string[][] = [];
  const fake = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    listTopics: () => Promise.resolve([...options.listed]),
    createTopics: ({ topics: asked }: { topics: { topic: string }[] }) => {
      requests.push(asked.map((t) => t.topic));
      const errors: { topic: string; type: string }[] = [];
      for (const { topic } of asked) {
        const refusal = refuse.get(topic);
        if (existing.has(topic)) errors.push({ topic, type: 'TOPIC_ALREADY_EXISTS' });
        else if (refusal !== undefined) {
          errors.push({ topic, type: refusal.type });
          if (refusal.always !== true) refuse.delete(topic);
        } else existing.add(topic);
      }
      if (errors.length === 0) return Promise.resolve(true);
      if (errors.every((e) => e.type === 'TOPIC_ALREADY_EXISTS')) return Promise.resolve(false);
      const refused = errors.map((e) =>
        Object.assign(new KafkaJSProtocolError(`${e.type} for ${e.topic}`), { type: e.type, topic: e.topic, name: 'KafkaJSCreateTopicError' }),
      );
      return Promise.reject(new KafkaJSAggregateError('Topic creation errors', refused));
    },
  };
  return { admin: new KafkajsAdmin('backup', { admin: () => fake } as unknown as Kafka), requests, existing };
}

test('createTopics creates many topics request by request; a request that meets a topic someone else made asks for nothing again', async () => {
  const topics = [...Array.from({ length: 25 }, (_, i) => newTopic(`t${i}`, 20)), newTopic('taken', 20)];
  // t3 was there before; "taken" was made by someone else after the topics were listed.
  const { admin, requests, existing } = brokerAdmin({ listed: ['t3'], existing: ['t3', 'taken'] });
  const created = await firstValueFrom(admin.createTopics(topics, { served: false }));
  assert.deepEqual(
    requests.map((r) => r.length),
    [5, 5, 5, 5, 5],
    'five topics of 20 partitions a request; the one that met "taken" made the other four and is not followed by more',
  );
  assert.deepEqual([...existing].sort(), [...topics.map((t) => t.name)].sort(), 'every topic is there');
  // kafkajs does not say which topics of the last request were refused: its four count as existing.
  assert.deepEqual(created, ['t0', 't1', 't2', ...Array.from({ length: 17 }, (_, i) => `t${i + 4}`)]);
  await admin.close();
});

test("createTopics counts the topics kafkajs's error does not name as created and asks again, in one request, only for those refused for another reason than existing", async () => {
  const topics = ['a', 'taken', 'b', 'moved', 'timed-out'].map((n) => newTopic(n, 1));
  const { admin, requests, existing } = brokerAdmin({
    listed: [],
    existing: ['taken'],
    refuse: { moved: { type: 'NOT_CONTROLLER' }, 'timed-out': { type: 'REQUEST_TIMED_OUT' } },
  });
  const created = await firstValueFrom(admin.createTopics(topics, { served: false }));
  assert.deepEqual(requests, [
    ['a', 'taken', 'b', 'moved', 'timed-out'],
    ['moved', 'timed-out'],
  ]);
  assert.deepEqual(created, ['a', 'b', 'moved', 'timed-out'], 'not "taken", made by someone else');
  assert.deepEqual([...existing].sort(), ['a', 'b', 'moved', 'taken', 'timed-out']);
  await admin.close();
});

test('createTopics fails with the refusal when a topic is refused again, after one more request for it alone', async () => {
  const topics = ['a', 'taken', 'bad'].map((n) => newTopic(n, 1));
  const { admin, requests } = brokerAdmin({ listed: [], existing: ['taken'], refuse: { bad: { type: 'POLICY_VIOLATION', always: true } } });
  await assert.rejects(firstValueFrom(admin.createTopics(topics, { served: false })), /Creating topics failed: .*Topic creation errors/);
  assert.deepEqual(requests, [['a', 'taken', 'bad'], ['bad']]);
  await admin.close();
});
