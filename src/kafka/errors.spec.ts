import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSNonRetriableError } from './kafkajs';
import { isRetriableKafkajsError, toTransportError } from './errors';
import { KafkaAuthorizationError, KafkaTransportError } from '../core/errors';

const protocolError = (type: string, retriable: boolean): Error =>
  new KafkaJSProtocolError({ type, code: 0, retriable, message: `${type} from the broker` } as unknown as Error);
const exhausted = (cause: Error): Error => new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 5, retryTime: 7000 });

test('a failure kafkajs gave up retrying stays retriable when what failed is', () => {
  for (const cause of [
    protocolError('NOT_ENOUGH_REPLICAS', true),
    protocolError('UNKNOWN_TOPIC_OR_PARTITION', true),
    new KafkaJSConnectionError('Connection closed'),
  ]) {
    const error = toTransportError('backup', exhausted(cause), 'Writing records');
    assert.ok(error instanceof KafkaTransportError);
    assert.equal(error.retriable, true, `${cause.message}: a longer retry can still succeed`);
    assert.match(error.message, /Cluster "backup": Writing records failed/);
  }
});

test('a failure that cannot pass by retrying is not made retriable', () => {
  assert.equal(toTransportError('backup', exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', false)), 'Writing records').retriable, false);
  assert.equal(
    toTransportError('backup', exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', true)), 'Writing records').retriable,
    false,
    'authorization failures never are',
  );
  assert.equal(toTransportError('backup', new KafkaJSNonRetriableError('bad request'), 'Writing records').retriable, false);
  assert.equal(toTransportError('backup', protocolError('CORRUPT_MESSAGE', false), 'Writing records').retriable, false);
});

/**
 * What kafkajs throws when a broker refuses connections: its connection error, retried by its
 * retrier (KafkaJSNumberOfRetriesExceeded), then wrapped by an outer retrier as not retriable
 * (a producer's connect inside its send, an admin call's metadata refresh).
 */
function refusedConnection(): Error {
  const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092', { broker: '127.0.0.1:9092', code: 'ECONNREFUSED' });
  const exhaustedRetries = exhausted(refused);
  const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: unknown }) => Error;
  return new NonRetriable(exhaustedRetries, { cause: refused });
}

/** A kafkajs error by name, as kafkajs makes it (these classes are not all exported). */
function kafkajsError(name: string, message: string, retriable: boolean): Error {
  return Object.assign(new Error(message), { name, retriable });
}

test('a broker refusing connections is retriable, however kafkajs wrapped its connection error', () => {
  const error = toTransportError('B', refusedConnection(), 'Writing records');
  assert.equal(error.retriable, true, 'the outage the user reported ended the run here');
  assert.match(error.message, /Cluster "B": Writing records failed: Connection error: connect ECONNREFUSED/);
  const bare = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9092'), { code: 'ECONNREFUSED' });
  assert.equal(isRetriableKafkajsError(bare), true, 'a socket error');
});

test('request timeouts, lost metadata, no broker, no coordinator and lock timeouts are retriable, also after kafkajs gave up', () => {
  const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: unknown }) => Error;
  for (const cause of [
    kafkajsError('KafkaJSRequestTimeoutError', 'Request Metadata(key: 3, version: 6) timed out', true),
    kafkajsError('KafkaJSConnectionClosedError', 'Closed connection', true),
    new KafkaJSConnectionError('Not connected'),
    // A kafkajs Broker asked for a request before its connection was made again (seen with several produce requests in flight through a cut).
    new Error('Broker not connected'),
    kafkajsError('KafkaJSMetadataNotLoaded', 'Metadata not loaded', true),
    kafkajsError('KafkaJSNoBrokerAvailableError', 'No broker available', true),
    kafkajsError('KafkaJSBrokerNotFound', 'Broker 1 not found in the cached metadata', true),
    // Non-retriable by kafkajs's own judgement, yet each passes once the broker is back.
    kafkajsError('KafkaJSGroupCoordinatorNotFound', 'Failed to find group coordinator', false),
    kafkajsError('KafkaJSLockTimeout', 'Timeout while acquiring lock (1 waiting locks): "connect to broker 127.0.0.1:9092"', false),
    // kafkajs's admin reading the null that its broker pool answers when no broker did (seen with the target down).
    new TypeError("Cannot read properties of null (reading 'topicMetadata')"),
    new TypeError("Cannot destructure property 'topicMetadata' of '(intermediate value)' as it is null."),
  ]) {
    assert.equal(isRetriableKafkajsError(cause), true, cause.message);
    assert.equal(isRetriableKafkajsError(exhausted(cause)), true, `${cause.message}, retries exhausted`);
    assert.equal(isRetriableKafkajsError(new NonRetriable(exhausted(cause), { cause })), true, `${cause.message}, wrapped as not retriable`);
  }
});

test('authentication, authorization and programming errors stay fatal, however they are wrapped', () => {
  const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: unknown }) => Error;
  for (const cause of [
    kafkajsError('KafkaJSSASLAuthenticationError', 'SASL SCRAM SHA512 authentication failed: bad credentials', false),
    protocolError('SASL_AUTHENTICATION_FAILED', false),
    protocolError('CLUSTER_AUTHORIZATION_FAILED', false),
    protocolError('GROUP_AUTHORIZATION_FAILED', false),
    protocolError('TRANSACTIONAL_ID_AUTHORIZATION_FAILED', false),
    new TypeError("Cannot read properties of undefined (reading 'partition')"),
    new RangeError('The value of "offset" is out of range'),
  ]) {
    assert.equal(isRetriableKafkajsError(cause), false, cause.message);
    assert.equal(isRetriableKafkajsError(new NonRetriable(cause, { cause })), false, `${cause.message}, wrapped`);
    assert.equal(isRetriableKafkajsError(exhausted(cause)), false, `${cause.message}, retries exhausted`);
  }
  assert.equal(isRetriableKafkajsError(protocolError('MESSAGE_TOO_LARGE', false)), false, 'a record too large stays too large');
  assert.equal(isRetriableKafkajsError(new KafkaJSNonRetriableError('Invalid topics array')), false, 'kafkajs refusing an argument');
});

test('a missing ACL becomes a KafkaAuthorizationError naming the operation and the refusal, whatever kafkajs wrapped it in', () => {
  const error = toTransportError('backup', exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', false)), 'Writing records to topic "primary.orders"');
  assert.ok(error instanceof KafkaAuthorizationError);
  assert.equal(error.retriable, false);
  assert.match(error.message, /^Cluster "backup": Writing records to topic "primary.orders" failed: .* \(TOPIC_AUTHORIZATION_FAILED\)$/);
  assert.match(error.as('User:mirror, SASL PLAIN').message, /\(TOPIC_AUTHORIZATION_FAILED\) \(as User:mirror, SASL PLAIN\)$/);
});

test('a CreateTopics refusal names the topics it was refused for', () => {
  const refused = Object.assign(new Error('Topic creation errors'), {
    name: 'KafkaJSAggregateError',
    errors: [Object.assign(protocolError('TOPIC_AUTHORIZATION_FAILED', false), { topic: 'primary.orders' })],
  });
  const error = toTransportError('backup', refused, 'Creating topics');
  assert.ok(error instanceof KafkaAuthorizationError);
  assert.match(error.message, /^Cluster "backup": Creating topics failed for "primary.orders": .*\(TOPIC_AUTHORIZATION_FAILED\)$/);
});
