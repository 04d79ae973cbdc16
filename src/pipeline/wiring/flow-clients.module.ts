import { ContainerModule } from '#inversify';
import { KafkaClients } from '../../core/ports/kafka-clients';
import { OffsetSyncsAdmin, SourceAdmin, TargetAdmin } from '../../core/ports/cluster-admin';
import {
  CheckpointsReader,
  OffsetSyncsReader,
  ProgressReader,
  SourceRecordLookup,
  SourceRecords,
  TargetRecordLookup,
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
import { SourceRangeReader, TargetRangeReader, type RangeReader } from '../../core/ports/range-reader';
import type { Token } from '../../core/ports/token';
import { offsetSyncsPlace } from '../flow-names';
import { bindParts } from './bind-parts';
import { internalWriterOptions, replicationWriterOptions, sourceConsumerOptions, transactionsOptions } from './settings/client-settings';
import { FlowConfig, PipelineConfig } from './tokens';

/** Which cluster of a flow a client is on. */
type Cluster = (flow: FlowConfig) => string;
const source: Cluster = (flow) => flow.source;
const target: Cluster = (flow) => flow.target;
const offsetSyncs: Cluster = (flow) => offsetSyncsPlace(flow).cluster;

/**
 * The flow's ports, one binding per role, made from the pipeline's clients when first asked
 * for: a role no enabled part uses opens no client.
 */
export const flowClientsModule = new ContainerModule(({ bind }) => {
  const clients = { clients: KafkaClients, flow: FlowConfig };

  bindParts(bind, SourceAdmin, clients, (p) => p.clients.admin(source(p.flow)));
  bindParts(bind, TargetAdmin, clients, (p) => p.clients.admin(target(p.flow)));
  bindParts(bind, OffsetSyncsAdmin, clients, (p) => p.clients.admin(offsetSyncs(p.flow)));

  bindParts(bind, SourceRecords, clients, (p) => p.clients.source(p.flow.source, sourceConsumerOptions(p.flow)));

  const reader = (role: Token<TopicReader>, cluster: Cluster): void => bindParts(bind, role, clients, (p) => p.clients.reader(cluster(p.flow)));
  reader(ProgressReader, target);
  reader(CheckpointsReader, target);
  reader(OffsetSyncsReader, offsetSyncs);
  reader(SourceRecordLookup, source);
  reader(TargetRecordLookup, target);

  // Continuous verification's readers; each a client of its own, closed with the flow's clients.
  const rangeReader = (role: Token<RangeReader>, cluster: Cluster, name: string): void =>
    bindParts(bind, role, clients, (p) => {
      if (p.clients.rangeReader === undefined) throw new Error('These Kafka clients cannot read ranges of partitions (verify.enabled).');
      return p.clients.rangeReader(cluster(p.flow), `${p.flow.name}|${name}`);
    });
  rangeReader(SourceRangeReader, source, 'verify-source');
  rangeReader(TargetRangeReader, target, 'verify-target');

  bindParts(bind, ReplicationWriter, clients, (p) => p.clients.writer(p.flow.target, replicationWriterOptions(p.flow)));
  bindParts(bind, SlotTransactions, { ...clients, pipeline: PipelineConfig }, (p) => {
    if (p.clients.transactions === undefined) throw new Error('These Kafka clients have no transactional writer (delivery: exactly_once).');
    return p.clients.transactions(p.flow.target, transactionsOptions(p.pipeline.name, p.flow));
  });
  // The internal topics' writers never compress.
  const internal = (role: Token<RecordWriter>, name: string, cluster: Cluster = target): void =>
    bindParts(bind, role, clients, (p) => p.clients.writer(cluster(p.flow), internalWriterOptions(p.flow, name)));
  internal(ProgressWriter, 'progress');
  internal(OffsetSyncsWriter, 'offset-syncs', offsetSyncs);
  internal(DeadLetterWriter, 'dead-letters');
  internal(CheckpointsWriter, 'checkpoints');
  internal(HeartbeatsWriter, 'heartbeats');
});
