import type { ClusterConnection } from '../../core/cluster';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { Logger } from '../../core/ports/logger';
import { KafkajsClients } from '../../kafka';

/** Kafka clients for tools outside a pipeline (the demo, `plan`): the same adapters flows use. */
export function createKafkaClients(clusters: readonly ClusterConnection[], logger: Logger, clientIdPrefix = 'mirrorflow'): KafkaClients {
  return new KafkajsClients({ clusters, logger, clientIdPrefix });
}

/** A plaintext connection to a cluster by address, e.g. a local one. */
export function plaintextConnection(alias: string, bootstrapServers: string): ClusterConnection {
  return { alias, bootstrapServers: [bootstrapServers], security: { protocol: 'plaintext' }, connectionTimeoutMs: 10_000, requestTimeoutMs: 30_000 };
}
