import type { FlowConfig } from '../../../config';
import type { ForwardRecordBatches } from '../../../core/ports/record-source';
import { BUSY_WAIT_MS, type BatchPolicy } from '../../../flow/operators/write-batches';
import type { ReplicationFlowSettings } from '../../../flow/replication/replication-flow';
import { flowGroupId } from '../../flow-names';
import { writesInFlight } from './writes-in-flight';

/** The replication flow's settings from its flow's config, in the flow's own terms. */
export function replicationFlowSettings(pipelineName: string, flow: FlowConfig): ReplicationFlowSettings {
  const forwarded = forwardedBatches(flow);
  return {
    source: flow.source,
    target: flow.target,
    groupId: flowGroupId(pipelineName, flow),
    start: flow.start,
    autoOffsetReset: flow.consumer.auto_offset_reset,
    refreshTopics: flow.topic_sync.refresh_enabled,
    refreshIntervalMs: flow.topic_sync.refresh_interval_ms,
    flushIntervalMs: flow.progress.flush_interval_ms,
    batching: batchPolicy(flow),
    maxInFlightBytes: flow.buffer.max_bytes,
    errorTolerance: flow.errors.tolerance,
    // Half the rebalance timeout: the rest is the join itself, after which the group would go on without this process.
    drainTimeoutMs: Math.floor(flow.consumer.rebalance_timeout_ms / 2),
    ...(flow.delivery === 'exactly_once' ? { exactlyOnce: { slots: flow.tasks } } : {}),
    ...(forwarded === undefined ? {} : { forwardRecordBatches: forwarded }),
  };
}

/**
 * The batching policy: `batching.*`, with `max_wait_ms` unset a batch goes to an idle target at
 * once (and waits BUSY_WAIT_MS while another write is out); a partition's share of a produce
 * request is bounded by `producer.max_request_bytes`.
 */
export function batchPolicy(flow: FlowConfig): BatchPolicy {
  return {
    maxRecords: flow.batching.max_records,
    maxBytes: flow.batching.max_bytes,
    maxWaitMs: flow.batching.max_wait_ms ?? BUSY_WAIT_MS,
    waitWhenIdle: flow.batching.max_wait_ms !== undefined,
    maxPartitionBytes: flow.producer.max_request_bytes,
    maxInFlight: writesInFlight(flow),
  };
}

/**
 * Which fetched record batches travel whole: only for a flow nobody looks into (no transforms,
 * no schema registry, no provenance headers to read and add) with `batching.forward_batches`;
 * with the target compressing, only batches already compressed that way. Undefined: every
 * record is decoded.
 */
export function forwardedBatches(flow: FlowConfig): ForwardRecordBatches | undefined {
  if (flow.transforms.length > 0 || flow.schema_registry !== undefined || flow.provenance.enabled || !flow.batching.forward_batches) return undefined;
  return {
    minCompressedBytes: flow.batching.forward_compressed_min_bytes,
    maxBytes: flow.producer.max_request_bytes,
    ...(flow.producer.compression === 'none' ? {} : { compression: flow.producer.compression }),
  };
}
