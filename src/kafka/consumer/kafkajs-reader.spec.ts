import { test } from 'node:test';
import assert from 'node:assert/strict';
import { of, type Observable, type Subscription } from '#rxjs';
import type { Kafka } from '../kafkajs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import { KafkajsTopicReader } from './kafkajs-reader';

/** A kafkajs consumer whose connect waits for `connected()`; it counts as connected until disconnected. */
class SlowConsumer {
  readonly events = { CRASH: 'crash', END_BATCH_PROCESS: 'end-batch' };
  connected = false;
  subscribed = false;
  running = false;
  private finishConnect: () => void = () => {};

  connect(): Promise<void> {
    return new Promise((resolve) => {
      this.finishConnect = () => {
        this.connected = true;
        resolve();
      };
    });
  }

  /** kafkajs completes a connect under way even when disconnect was called meanwhile. */
  connectedNow(): void {
    this.finishConnect();
  }

  disconnect(): Promise<void> {
    this.connected = false;
    this.running = false;
    return Promise.resolve();
  }

  subscribe(): Promise<void> {
    this.subscribed = true;
    return Promise.resolve();
  }

  run(): Promise<void> {
    this.running = true;
    return Promise.resolve();
  }

  on(): void {}
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

for (const [name, read] of [
  ['readToEnd', (reader: KafkajsTopicReader): Observable<unknown> => reader.readToEnd('orders')],
  ['follow', (reader: KafkajsTopicReader): Observable<unknown> => reader.follow('orders', 0)],
] as const) {
  test(`${name}: a read abandoned while its consumer connects leaves no consumer connected`, async () => {
    const consumer = new SlowConsumer();
    const admin = { partitionOffsets: () => of([{ partition: 0, earliest: 0, latest: 5 }]) } as unknown as ClusterAdmin;
    const reader = new KafkajsTopicReader('backup', { consumer: () => consumer } as unknown as Kafka, admin);
    const subscription: Subscription = read(reader).subscribe({ error: () => undefined });
    await settled();
    subscription.unsubscribe();
    consumer.connectedNow();
    await settled();
    assert.equal(consumer.connected, false, 'disconnected once its connect finished');
    assert.equal(consumer.subscribed, false, 'and it never joined a group');
    assert.equal(consumer.running, false);
  });
}
