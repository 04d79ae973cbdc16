import type { FlowConfig } from '../../../config';
import type { GroupTimings, SourceOptions, TransactionsOptions, WriterOptions } from '../../../core/ports/kafka-clients';
import { flowGroupId } from '../../flow-names';
import { writesInFlight } from './writes-in-flight';

/**
 * How long a transaction of an exactly-once flow may stay open before the target's coordinator
 * aborts it (a process that died inside one): Java's producer's default, 60 s.
 */
export const TRANSACTION_TIMEOUT_MS = 60_000;

/** The replication consumer of a flow on its source: `consumer.*`. */
export function sourceConsumerOptions(flow: FlowConfig): SourceOptions {
  return {
    role: `${flow.name}|replication-consumer`,
    isolationLevel: flow.consumer.isolation_level,
    maxBytesPerPartition: flow.consumer.max_bytes_per_partition,
    maxWaitMs: flow.consumer.max_wait_ms,
    minBytes: flow.consumer.min_bytes,
    group: groupTimings(flow),
    ...(flow.consumer.client_rack === undefined ? {} : { rackId: flow.consumer.client_rack }),
  };
}

/** The timings of the flow's groups: the source group that shares its partitions, and its election. */
export function groupTimings(flow: FlowConfig): GroupTimings {
  return {
    sessionTimeoutMs: flow.consumer.session_timeout_ms,
    heartbeatIntervalMs: flow.consumer.heartbeat_interval_ms,
    rebalanceTimeoutMs: flow.consumer.rebalance_timeout_ms,
  };
}

/** The replication producer: it compresses as configured, with `writesInFlight` writes in flight. */
export function replicationWriterOptions(flow: FlowConfig): WriterOptions {
  return {
    role: `${flow.name}|replication-producer`,
    compression: flow.producer.compression,
    idempotent: flow.producer.idempotent,
    maxInFlight: writesInFlight(flow),
  };
}

/** A writer of an internal topic (`role`: progress, offset syncs, …), which never compresses. */
export function internalWriterOptions(flow: FlowConfig, role: string): WriterOptions {
  return { role: `${flow.name}|${role}`, compression: 'none', idempotent: flow.producer.idempotent };
}

/** delivery exactly_once: one transactional producer per slot, ids `<flow group>-<slot>`. */
export function transactionsOptions(pipelineName: string, flow: FlowConfig): TransactionsOptions {
  return {
    role: `${flow.name}|transactional-producer`,
    compression: flow.producer.compression,
    transactionalIdPrefix: flowGroupId(pipelineName, flow),
    transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
  };
}
