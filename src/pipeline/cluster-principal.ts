import type { PipelineConfig } from '../config';
import { KafkaAuthorizationError } from '../core/errors';
import { principalOf } from '../kafka';
import { toClusterConnection } from './wiring/cluster-connection';

/**
 * An authorization failure names the principal that was refused, as Kafka's default principal
 * builders make it from the cluster's credentials (`principalOf`, which also names the principal
 * of a role with its own login): the broker does not say.
 */
export function withClusterPrincipal(error: unknown, config: PipelineConfig): unknown {
  if (!(error instanceof KafkaAuthorizationError) || error.principal !== undefined) return error;
  const cluster = config.clusters[error.cluster];
  if (cluster === undefined) return error;
  return error.as(principalOf(toClusterConnection(cluster).security));
}
