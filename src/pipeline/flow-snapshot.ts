import { topicPartitionKey } from '../core/record';
import type { FlowStatus } from '../flow/flow-status';
import type { FlowSnapshot, HeartbeatState } from '../telemetry/flow-snapshot';

/**
 * Copies a flow's live status into the shape the HTTP endpoints and metrics read. Runs per
 * request or scrape, never on the replication path.
 */
export function toFlowSnapshot(status: FlowStatus, replicating: boolean): FlowSnapshot {
  const cp = status.checkpoints;
  const hb = status.heartbeats;
  return {
    source: status.source,
    target: status.target,
    replicating,
    // A flow that does not replicate (`disabled`) is as well as its heartbeats are.
    // A heartbeats-only flow on a process standing by for election is as well as the election is.
    state: replicating && status.state !== 'disabled' ? status.state : status.campaigning && !status.elected ? 'running' : heartbeatsOnlyState(hb.state),
    topics: status.topics,
    partitionsAssigned: status.partitionsAssigned,
    elected: status.elected,
    recordsReplicated: status.recordsReplicated,
    recordsDropped: status.recordsDropped,
    bytesReplicated: status.bytesReplicated,
    recordBatchesForwarded: status.recordBatchesForwarded,
    writes: status.writes,
    lastReplicationLatencyMs: status.lastReplicationLatencyMs,
    partitions: [...status.partitions.values()].map((p) => {
      const totals = status.partitionTotals.get(topicPartitionKey(p));
      return {
        topic: p.topic,
        partition: p.partition,
        nextOffset: p.nextOffset,
        highWatermark: p.highWatermark,
        records: totals?.records ?? 0,
        bytes: totals?.bytes ?? 0,
      };
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
    sourceResets: status.sourceResets,
    recordsDeadLettered: status.recordsDeadLettered,
    outages: status.outages.current,
  };
}

/** A heartbeats-only flow never starts replication; its heartbeats say whether it works. */
function heartbeatsOnlyState(state: HeartbeatState): FlowSnapshot['state'] {
  return state === 'disabled' ? 'stopped' : state;
}
