import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSNonRetriableError } from './kafkajs';
import { toTransportError } from './errors';
import { KafkaTransportError } from '../core/errors';

const protocolError = (type: string, retriable: boolean): Error =>
  new KafkaJSProtocolError({ type, code: 0, retriable, message: `${type} from the broker` } as unknown as Error);
const exhausted = (cause: Error): Error => new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 5, retryTime: 7000 });

test('a failure kafkajs gave up retrying stays retriable when what failed is', () => {
  for (const cause of [protocolError('NOT_ENOUGH_REPLICAS', true), protocolError('UNKNOWN_TOPIC_OR_PARTITION', true), new KafkaJSConnectionError('Connection closed')]) {
    const error = toTransportError('backup', exhausted(cause), 'Writing records');
    assert.ok(error instanceof KafkaTransportError);
    assert.equal(error.retriable, true, `${cause.message}: a longer retry can still succeed`);
    assert.match(error.message, /Cluster "backup": Writing records failed/);
  }
});

test('a failure that cannot pass by retrying is not made retriable', () => {
  assert.equal(toTransportError('backup', exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', false)), 'Writing records').retriable, false);
  assert.equal(toTransportError('backup', exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', true)), 'Writing records').retriable, false, 'authorization failures never are');
  assert.equal(toTransportError('backup', new KafkaJSNonRetriableError('bad request'), 'Writing records').retriable, false);
  assert.equal(toTransportError('backup', protocolError('CORRUPT_MESSAGE', false), 'Writing records').retriable, false);
});
