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
    ...fetchSizes(flow),
    maxWaitMs: flow.consumer.max_wait_ms,
    minBytes: flow.consumer.min_bytes,
    group: groupTimings(flow),
    ...(flow.consumer.client_rack === undefined ? {} : { rackId: flow.consumer.client_rack }),
  };
}

/** Most bytes a flow fetches from one partition per request, unless its file says otherwise: MM2's (Java's) default. */
export const DEFAULT_MAX_BYTES_PER_PARTITION = 1_048_576;

/** The most a request of few partitions shares among them when the file leaves the per-partition size unset (wire/shared-fetch-bytes.ts). */
export const SHARED_FETCH_BYTES = 4 * 1_048_576;

/**
 * `consumer.max_bytes_per_partition` as the file sets it; unset, MM2's 1 MiB, and a request of few
 * partitions shares 4 MiB among them, within a quarter of the flow's buffer so that one fetched
 * partition never takes more of the budget than four did before.
 */
function fetchSizes(flow: FlowConfig): Pick<SourceOptions, 'maxBytesPerPartition' | 'sharedFetchBytes'> {
  const set = flow.consumer.max_bytes_per_partition;
  if (set !== undefined) return { maxBytesPerPartition: set };
  const shared = Math.min(SHARED_FETCH_BYTES, Math.floor(flow.buffer.max_bytes / 4));
  return { maxBytesPerPartition: DEFAULT_MAX_BYTES_PER_PARTITION, ...(shared > DEFAULT_MAX_BYTES_PER_PARTITION ? { sharedFetchBytes: shared } : {}) };
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
