import { ClusterUnavailableError, KafkaTransportError, MirrorflowError, describeError } from '../core/errors';

interface KafkajsErrorShape {
  name?: string;
  message?: string;
  retriable?: boolean;
  type?: string;
  cause?: unknown;
}

function shapeOf(error: unknown): KafkajsErrorShape {
  return (typeof error === 'object' && error !== null ? error : {}) as KafkajsErrorShape;
}

/**
 * kafkajs retries a few times on its own and then throws KafkaJSNumberOfRetriesExceeded, which
 * always says "not retriable" — even when what failed (a leader change, a topic not there yet, a
 * target under its ISR minimum) will pass. Whether our own, longer retry can help is decided by
 * the error that was retried.
 */
function isRetriable(error: unknown): boolean {
  let shape = shapeOf(error);
  while (shape.name === 'KafkaJSNumberOfRetriesExceeded' && shape.cause !== undefined) shape = shapeOf(shape.cause);
  return shape.retriable === true && !AUTH_TYPES.has(shape.type ?? '');
}

const AUTH_TYPES = new Set(['SASL_AUTHENTICATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED', 'GROUP_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

/** Wraps a kafkajs failure in our hierarchy, keeping kafkajs's judgement of whether a retry can help. */
export function toTransportError(cluster: string, error: unknown, action: string): MirrorflowError {
  if (error instanceof MirrorflowError) return error;
  return new KafkaTransportError(cluster, `${action} failed: ${describeError(error)}`, isRetriable(error), { cause: error });
}

/** Failures that mean "cannot connect or not allowed": the run cannot start. */
export function toUnavailableError(cluster: string, error: unknown): ClusterUnavailableError {
  const shape = shapeOf(error);
  const reason =
    shape.name === 'KafkaJSSASLAuthenticationError' || shape.type === 'SASL_AUTHENTICATION_FAILED'
      ? 'authentication failed (check the username and password)'
      : `cannot be reached (${describeError(error)})`;
  return new ClusterUnavailableError(cluster, reason, { cause: error });
}
