import { topicPartitionKey } from '../core/record';
import type { FlowStatus } from '../flow/flow-status';
import type { FlowSnapshot, HeartbeatState } from '../telemetry/flow-snapshot';

/**
 * Copies a flow's live status into the shape the HTTP endpoints and metrics read. Runs per
 * request or scrape, never on the replication path. Fields that only some versions of the flow
 * status carry (source resets, dead-lettered records, outages) are read when present.
 */
export function toFlowSnapshot(status: FlowStatus, replicating: boolean): FlowSnapshot {
  const cp = status.checkpoints;
  const hb = status.heartbeats;
  const extra = status as unknown as Readonly<Record<string, unknown>>;
  const sourceResets = numberField(extra, 'sourceResets');
  const recordsDeadLettered = numberField(extra, 'recordsDeadLettered') ?? numberField(extra, 'deadLettered');
  return {
    source: status.source,
    target: status.target,
    replicating,
    state: replicating ? status.state : heartbeatsOnlyState(hb.state),
    topics: status.topics,
    recordsReplicated: status.recordsReplicated,
    recordsDropped: status.recordsDropped,
    bytesReplicated: status.bytesReplicated,
    recordBatchesForwarded: status.recordBatchesForwarded,
    writes: status.writes,
    lastReplicationLatencyMs: status.lastReplicationLatencyMs,
    partitions: [...status.partitions.values()].map((p) => {
      const totals = status.partitionTotals.get(topicPartitionKey(p));
      return { topic: p.topic, partition: p.partition, nextOffset: p.nextOffset, highWatermark: p.highWatermark, records: totals?.records ?? 0, bytes: totals?.bytes ?? 0 };
    }),
    buffer: status.buffer === undefined ? undefined : { inFlightBytes: status.buffer.inFlightBytes, maxBytes: status.buffer.maxBytes },
    checkpoints: {
      state: cp.state,
      groups: cp.groups,
      checkpointsWritten: cp.checkpointsWritten,
      lastPassAt: cp.lastPassAt,
      lastCheckpointLatencyMs: cp.lastCheckpointLatencyMs,
      errors: cp.errors,
      groupSync: {
        enabled: cp.groupSync.enabled,
        groupsSynced: cp.groupSync.groupsSynced,
        offsetsCommitted: cp.groupSync.offsetsCommitted,
        skippedActive: cp.groupSync.skippedActive,
        activeGroups: [...cp.groupSync.activeGroups],
        errors: cp.groupSync.errors,
      },
    },
    heartbeats: { state: hb.state, written: hb.written, lastAt: hb.lastAt, errors: hb.errors },
    ...(sourceResets === undefined ? {} : { sourceResets }),
    ...(recordsDeadLettered === undefined ? {} : { recordsDeadLettered }),
    ...('outage' in extra ? { outage: outageField(extra['outage']) } : {}),
  };
}

/** A heartbeats-only flow never starts replication; its heartbeats say whether it works. */
function heartbeatsOnlyState(state: HeartbeatState): FlowSnapshot['state'] {
  return state === 'disabled' ? 'stopped' : state;
}

function numberField(record: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An outage as a flow may describe it: absent/undefined/false = none; an object with `since`/`reason`, or true. */
function outageField(value: unknown): FlowSnapshot['outage'] {
  if (value === undefined || value === null || value === false) return undefined;
  if (value === true) return { since: undefined, reason: undefined };
  if (typeof value !== 'object') return undefined;
  const o = value as Readonly<Record<string, unknown>>;
  if (o['active'] === false) return undefined;
  const since = typeof o['since'] === 'number' ? o['since'] : undefined;
  const reason = typeof o['reason'] === 'string' ? o['reason'] : typeof o['error'] === 'string' ? o['error'] : undefined;
  return { since, reason };
}
