import { ContainerModule } from 'inversify';
import type { FlowConfig } from '../../config';
import { KafkaClients } from '../../core/ports/kafka-clients';
import { OffsetSyncsAdmin, SourceAdmin, TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import {
  CheckpointsReader,
  OffsetSyncsReader,
  ProgressReader,
  SourceRecordLookup,
  SourceRecords,
  TargetRecordLookup,
  type RecordSource,
  type TopicReader,
} from '../../core/ports/record-source';
import {
  CheckpointsWriter,
  DeadLetterWriter,
  HeartbeatsWriter,
  OffsetSyncsWriter,
  ProgressWriter,
  ReplicationWriter,
  type RecordWriter,
} from '../../core/ports/record-writer';
import { SlotTransactions } from '../../core/ports/slot-transactions';
import { FlowConfigToken, PipelineConfigToken } from './tokens';
import { writesInFlight } from './writes-in-flight';
import { flowGroupId, offsetSyncsPlace } from '../flow-names';
import type { PipelineConfig } from '../../config';

/**
 * How long a transaction of an exactly-once flow may stay open before the target's coordinator
 * aborts it (a process that died inside one): Java's producer's default, 60 s.
 */
export const TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * The flow's ports, one binding per role, made from the pipeline's clients when first asked
 * for: a role no enabled part uses opens no client.
 */
export const flowClientsModule = new ContainerModule(({ bind }) => {
  const admin = (cluster: (flow: FlowConfig) => string) => (clients: KafkaClients, flow: FlowConfig) => clients.admin(cluster(flow));
  bind<ClusterAdmin>(SourceAdmin)
    .toResolvedValue(
      admin((f) => f.source),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  bind<ClusterAdmin>(TargetAdmin)
    .toResolvedValue(
      admin((f) => f.target),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  bind<ClusterAdmin>(OffsetSyncsAdmin)
    .toResolvedValue(
      admin((f) => offsetSyncsPlace(f).cluster),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();

  bind<RecordSource>(SourceRecords)
    .toResolvedValue(
      (clients: KafkaClients, flow: FlowConfig) =>
        clients.source(flow.source, {
          role: `${flow.name}|replication-consumer`,
          isolationLevel: flow.consumer.isolation_level,
          maxBytesPerPartition: flow.consumer.max_bytes_per_partition,
          maxWaitMs: flow.consumer.max_wait_ms,
          minBytes: flow.consumer.min_bytes,
        }),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();

  const reader = (cluster: (flow: FlowConfig) => string) => (clients: KafkaClients, flow: FlowConfig) => clients.reader(cluster(flow));
  bind<TopicReader>(ProgressReader)
    .toResolvedValue(
      reader((f) => f.target),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  bind<TopicReader>(CheckpointsReader)
    .toResolvedValue(
      reader((f) => f.target),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  bind<TopicReader>(OffsetSyncsReader)
    .toResolvedValue(
      reader((f) => offsetSyncsPlace(f).cluster),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();

  bind<TopicReader>(SourceRecordLookup)
    .toResolvedValue(
      reader((f) => f.source),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  bind<TopicReader>(TargetRecordLookup)
    .toResolvedValue(
      reader((f) => f.target),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();

  // The replication producer compresses as configured; the internal topics' writers never do.
  const writer =
    (role: string, cluster: (flow: FlowConfig) => string = (f) => f.target) =>
    (clients: KafkaClients, flow: FlowConfig) =>
      clients.writer(cluster(flow), { role: `${flow.name}|${role}`, compression: 'none', idempotent: flow.producer.idempotent });
  bind<RecordWriter>(ReplicationWriter)
    .toResolvedValue(
      (clients: KafkaClients, flow: FlowConfig) =>
        clients.writer(flow.target, {
          role: `${flow.name}|replication-producer`,
          compression: flow.producer.compression,
          idempotent: flow.producer.idempotent,
          maxInFlight: writesInFlight(flow),
        }),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  // delivery exactly_once: one transactional producer per slot, ids `<flow group>-<slot>`.
  bind<SlotTransactions>(SlotTransactions)
    .toResolvedValue(
      (clients: KafkaClients, flow: FlowConfig, pipeline: PipelineConfig) => {
        if (clients.transactions === undefined) throw new Error('These Kafka clients have no transactional writer (delivery: exactly_once).');
        return clients.transactions(flow.target, {
          role: `${flow.name}|transactional-producer`,
          compression: flow.producer.compression,
          transactionalIdPrefix: flowGroupId(pipeline.name, flow),
          transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
        });
      },
      [KafkaClients, FlowConfigToken, PipelineConfigToken],
    )
    .inSingletonScope();
  bind<RecordWriter>(ProgressWriter).toResolvedValue(writer('progress'), [KafkaClients, FlowConfigToken]).inSingletonScope();
  bind<RecordWriter>(OffsetSyncsWriter)
    .toResolvedValue(
      writer('offset-syncs', (f) => offsetSyncsPlace(f).cluster),
      [KafkaClients, FlowConfigToken],
    )
    .inSingletonScope();
  bind<RecordWriter>(DeadLetterWriter).toResolvedValue(writer('dead-letters'), [KafkaClients, FlowConfigToken]).inSingletonScope();
  bind<RecordWriter>(CheckpointsWriter).toResolvedValue(writer('checkpoints'), [KafkaClients, FlowConfigToken]).inSingletonScope();
  bind<RecordWriter>(HeartbeatsWriter).toResolvedValue(writer('heartbeats'), [KafkaClients, FlowConfigToken]).inSingletonScope();
});
