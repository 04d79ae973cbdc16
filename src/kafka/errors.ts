import { ClusterUnavailableError, KafkaAuthorizationError, KafkaTransportError, MirrorflowError, describeError } from '../core/errors';
import { OAuthTokenError } from './auth/oauth-token-source';
import { KerberosLoginError } from './auth/kerberos-environment';

interface KafkajsErrorShape {
  name?: string;
  message?: string;
  retriable?: boolean;
  type?: string;
  /** A Node system error code (ECONNREFUSED), or a Kafka error code on protocol errors. */
  code?: unknown;
  cause?: unknown;
  /** KafkaJSAggregateError's parts (CreateTopics: one per refused topic, each with its `topic`). */
  errors?: readonly { type?: string; message?: string; topic?: string }[];
}

function shapeOf(error: unknown): KafkajsErrorShape {
  return (typeof error === 'object' && error !== null ? error : {}) as KafkajsErrorShape;
}

/**
 * Whether trying again later can help, judged by the error that actually failed. kafkajs wraps
 * that error when its own retries end: KafkaJSNumberOfRetriesExceeded always says "not
 * retriable", and a retrier nested in another (a producer's connect inside its send, say) wraps
 * that again in a KafkaJSNonRetriableError, even when what failed (a broker refusing connections,
 * a leader change, a topic not there yet, a target under its ISR minimum) will pass. Both
 * wrappers are looked through to their cause.
 *
 * Retriable: kafkajs errors marked retriable, connection failures (refused, reset, closed,
 * timed out, a host not resolving), request timeouts, metadata not loaded or no broker known,
 * a group coordinator not found, a lock not acquired in time (kafkajs waits on one while it
 * connects), a broker asked before its connection is made again. Never retriable: authentication and authorization failures, and programming errors
 * (TypeError and the like), whatever they are wrapped in.
 */
export function isRetriableKafkajsError(error: unknown): boolean {
  const shape = rootCause(error);
  if (isMetadataOfNoBroker(shape) || isBrokerNotConnected(shape)) return true;
  if (PROGRAMMING_ERRORS.has(shape.name ?? '')) return false;
  if (isAuthFailure(shape)) return false;
  if (UNAVAILABLE_NAMES.has(shape.name ?? '')) return true;
  if (shape.code !== undefined && NETWORK_CODES.has(String(shape.code))) return true;
  return shape.retriable === true;
}

/** The error under kafkajs's "gave up" wrappers. */
function rootCause(error: unknown): KafkajsErrorShape {
  let shape = shapeOf(error);
  for (let depth = 0; depth < 10 && WRAPPERS.has(shape.name ?? '') && shape.cause !== undefined && shape.cause !== shape; depth++) {
    shape = shapeOf(shape.cause);
  }
  return shape;
}

/**
 * kafkajs 2.2.4 (pinned): when no broker answers a metadata request, BrokerPool.withBroker
 * swallows each broker's error and answers null, and the admin client then reads `topicMetadata`
 * of it. That TypeError means "the cluster did not answer", not a bug of ours.
 */
function isMetadataOfNoBroker(shape: KafkajsErrorShape): boolean {
  return shape.name === 'TypeError' && /\btopicMetadata\b/.test(shape.message ?? '');
}

/**
 * kafkajs 2.2.4: a Broker whose connection is not (or no longer) made answers every request with
 * a plain `Error('Broker not connected')` (its `notInitializedLookup`). Several produce requests in
 * flight meet it when one of them failed on a lost connection and the others are sent through the
 * broker before it connected again: the broker is unreachable, not a bug of ours.
 */
function isBrokerNotConnected(shape: KafkajsErrorShape): boolean {
  return shape.name === 'Error' && shape.message === 'Broker not connected';
}

function isAuthFailure(shape: KafkajsErrorShape): boolean {
  return shape.name === 'KafkaJSSASLAuthenticationError' || AUTH_TYPE.test(shape.type ?? '');
}

const WRAPPERS = new Set(['KafkaJSNumberOfRetriesExceeded', 'KafkaJSNonRetriableError']);
const PROGRAMMING_ERRORS = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError']);
/** Failures of reaching a cluster, which end when it is back. */
const UNAVAILABLE_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSBrokerNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSLockTimeout',
]);
/** Node's socket and DNS error codes, as kafkajs's connection errors carry them. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SASL_AUTHENTICATION_FAILED, TOPIC_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED …, and SASL set-up refusals. */
const AUTH_TYPE = /_AUTHENTICATION_FAILED$|_AUTHORIZATION_FAILED$|^ILLEGAL_SASL_STATE$|^UNSUPPORTED_SASL_MECHANISM$/;

/** A missing ACL: TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED, … */
const AUTHORIZATION_TYPE = /_AUTHORIZATION_FAILED$/;

/** Wraps a kafkajs failure in our hierarchy, keeping kafkajs's judgement of whether a retry can help. */
export function toTransportError(cluster: string, error: unknown, action: string): MirrorflowError {
  if (error instanceof MirrorflowError) return error;
  const root = rootCause(error);
  if (AUTHORIZATION_TYPE.test(root.type ?? '')) {
    return new KafkaAuthorizationError(cluster, `${action} failed: ${describeError(error)} (${root.type})`, undefined, { cause: error });
  }
  // kafkajs answers a CreateTopics request with one error per refused topic.
  const refused = (root.errors ?? []).filter((e) => AUTHORIZATION_TYPE.test(e.type ?? ''));
  if (refused.length > 0) {
    const topics = refused.map((e) => (e.topic === undefined ? '' : `"${e.topic}"`)).filter((t) => t !== '');
    const what = `${refused[0]!.message ?? 'not authorized'} (${refused[0]!.type})`;
    return new KafkaAuthorizationError(cluster, `${action} failed${topics.length > 0 ? ` for ${topics.join(', ')}` : ''}: ${what}`, undefined, {
      cause: error,
    });
  }
  return new KafkaTransportError(cluster, `${action} failed: ${describeError(error)}`, isRetriableKafkajsError(error), { cause: error });
}

/** Failures that mean "cannot connect or not allowed": the run cannot start. */
export function toUnavailableError(cluster: string, error: unknown): ClusterUnavailableError {
  const shape = shapeOf(error);
  // The OAuth token endpoint failing says so itself, naming the endpoint (kafkajs wraps it when its retries end).
  const root = rootCause(error);
  if (root instanceof OAuthTokenError) return new ClusterUnavailableError(cluster, root.reason, { cause: error });
  // A KDC that cannot be reached may come back; a Kerberos login refused or misconfigured will not.
  if (root instanceof KerberosLoginError) return new ClusterUnavailableError(cluster, root.reason, { cause: error, retriable: root.retriable });
  const authFailed = shape.name === 'KafkaJSSASLAuthenticationError' || shape.type === 'SASL_AUTHENTICATION_FAILED';
  const reason = !authFailed
    ? `cannot be reached (${describeError(error)})`
    : /AWS MSK IAM token/.test(shape.message ?? '')
      ? "authentication failed: the broker refused the AWS MSK IAM token (check the AWS credentials, the region, and the cluster's IAM access policy)"
      : /OAUTHBEARER/.test(shape.message ?? '')
        ? 'authentication failed: the broker refused the OAuth token (check the scope and the audience the broker expects)'
        : 'authentication failed (check the username and password)';
  // Not reached (refused, timed out, no such host): it may come up. A refusal of our login will not go away.
  return new ClusterUnavailableError(cluster, reason, { cause: error, retriable: !authFailed });
}
