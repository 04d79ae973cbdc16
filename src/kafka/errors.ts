import { ClusterUnavailableError, KafkaTransportError, MirrorflowError, describeError } from '../core/errors';

interface KafkajsErrorShape {
  name?: string;
  message?: string;
  retriable?: boolean;
  type?: string;
}

const AUTH_TYPES = new Set(['SASL_AUTHENTICATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED', 'GROUP_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

/** Wraps a kafkajs failure in our hierarchy, keeping kafkajs's judgement of whether a retry can help. */
export function toTransportError(cluster: string, error: unknown, action: string): MirrorflowError {
  if (error instanceof MirrorflowError) return error;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as KafkajsErrorShape;
  const retriable = shape.retriable === true && !AUTH_TYPES.has(shape.type ?? '');
  return new KafkaTransportError(cluster, `${action} failed: ${describeError(error)}`, retriable, { cause: error });
}

/** Failures that mean "cannot connect or not allowed": the run cannot start. */
export function toUnavailableError(cluster: string, error: unknown): ClusterUnavailableError {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as KafkajsErrorShape;
  const reason =
    shape.name === 'KafkaJSSASLAuthenticationError' || shape.type === 'SASL_AUTHENTICATION_FAILED'
      ? 'authentication failed (check the username and password)'
      : `cannot be reached (${describeError(error)})`;
  return new ClusterUnavailableError(cluster, reason, { cause: error });
}
