import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { KafkaAuthorizationError, KafkaTransportError } from '../../core/errors';
import type { Kafka } from '../kafkajs';
import { initProducerIdFrom } from './idempotence';
import { kafkajsProtocolErrors } from '../wire/kafkajs-internals';

/** A Kafka instance whose private cluster factory makes a cluster with one broker answering InitProducerId as `answer` says. */
function kafkaAnswering(answer: () => Promise<{ producerId: string; producerEpoch: number }>, versions: Record<number, object> | null = { 22: {} }) {
  let disconnected = 0;
  const broker = { versions, connectionPool: {}, initProducerId: answer };
  const cluster = {
    connect: () => Promise.resolve(),
    disconnect: () => (disconnected++, Promise.resolve()),
    refreshMetadataIfNecessary: () => Promise.resolve(),
    findControllerBroker: () => Promise.resolve(broker),
  };
  const kafka = { [Symbol('private:Kafka:createCluster')]: () => cluster } as unknown as Kafka;
  return { kafka, disconnected: () => disconnected };
}

test('InitProducerId hands over the producer id and epoch, and lets its connections go', async () => {
  const { kafka, disconnected } = kafkaAnswering(() => Promise.resolve({ producerId: '4000', producerEpoch: 0 }));
  assert.deepEqual(await initProducerIdFrom(kafka, 'backup')(), { producerId: 4000, producerEpoch: 0 });
  assert.equal(disconnected(), 1);
});

test('a target refusing idempotence (no IDEMPOTENT_WRITE) ends the run naming the cluster, the ACL and the switch', async () => {
  const { kafka, disconnected } = kafkaAnswering(() => Promise.reject(kafkajsProtocolErrors().createErrorFromCode(31)));
  await assert.rejects(initProducerIdFrom(kafka, 'backup')(), (error: unknown) => {
    assert.ok(error instanceof KafkaAuthorizationError, String(error));
    assert.equal(error.retriable, false);
    assert.match(error.message, /^Cluster "backup": Asking for an idempotent producer id \(InitProducerId\) failed: .*\(CLUSTER_AUTHORIZATION_FAILED\)/);
    assert.match(
      error.message,
      /IDEMPOTENT_WRITE operation on the cluster .* flows\[\]\.producer\.idempotent: false \(MM2: producer\.enable\.idempotence=false\)/,
    );
    return true;
  });
  assert.equal(disconnected(), 1);
});

test('a target without InitProducerId (before Kafka 0.11) is told apart, naming the cluster and the switch', async () => {
  const { kafka } = kafkaAnswering(() => Promise.reject(new Error('not asked')), {});
  await assert.rejects(
    initProducerIdFrom(kafka, 'old')(),
    (error: unknown) =>
      error instanceof KafkaTransportError &&
      !error.retriable &&
      /^Cluster "old": the target does not support idempotent writes .*producer\.idempotent: false/.test(error.message),
  );
});

test('a coordinator still loading (a new cluster making __transaction_state) is asked again until it answers', async () => {
  let asked = 0;
  const { kafka } = kafkaAnswering(() =>
    ++asked < 3 ? Promise.reject(kafkajsProtocolErrors().createErrorFromCode(14)) : Promise.resolve({ producerId: '9', producerEpoch: 0 }),
  );
  assert.deepEqual(await initProducerIdFrom(kafka, 'backup')(), { producerId: 9, producerEpoch: 0 });
  assert.equal(asked, 3);
});

test('a coordinator that stays unavailable fails retriably after the attempts, for the flow to retry', async () => {
  const { kafka } = kafkaAnswering(() => Promise.reject(kafkajsProtocolErrors().createErrorFromCode(15)));
  await assert.rejects(initProducerIdFrom(kafka, 'backup')(), (error: unknown) => error instanceof KafkaTransportError && error.retriable);
});
