import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from 'rxjs';
import type { Kafka } from './kafkajs';
import { KafkajsAdmin } from './kafkajs-admin';
import { KafkaTransportError } from '../core/errors';

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
  fetchTopicMetadata(): Promise<{ topics: { name: string; partitions: unknown[] }[] }> {
    this.requests++;
    return new Promise((resolve) =>
      this.pending.push(() => {
        this.open = 1;
        resolve({ topics: [{ name: 'orders', partitions: [{}, {}] }] });
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
  const answered = firstValueFrom(admin.listTopics());
  await settled();
  assert.equal(fake.requests, 1);

  await admin.close();
  assert.equal(fake.open, 0);
  fake.answer(); // kafkajs reconnected to finish the request
  assert.deepEqual(await answered, [{ name: 'orders', partitions: 2 }]);
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
      else fake.fetchTopicMetadata = () => Promise.resolve({ topics: [{ name: 'orders', partitions: [{}] }] });
      clients.push(fake);
      return fake;
    },
  } as unknown as Kafka;
  const admin = new KafkajsAdmin('backup', kafka);
  assert.deepEqual(await firstValueFrom(admin.listTopics()), [{ name: 'orders', partitions: 1 }]);
  assert.equal(clients.length, 2, 'a new client replaced the one whose connect failed');
  await admin.close();
});
