import { topicPartitionKey } from '../core/record';
import type { FlowStatus } from '../flow/status/flow-status';
import type { FlowSnapshot, HeartbeatState, HistogramSnapshot, MirrorMetricsSnapshot, VerifySnapshot, WindowedSnapshot } from '../telemetry/flow-snapshot';
import type { VerifyStatus } from '../flow/verify/verify-status';
import type { SampledStat, BucketCounts } from '../flow/status/sampled-stat';

/**
 * Copies a flow's live status into the shape the HTTP endpoints and metrics read. Runs per
 * request or scrape, never on the replication path.
 */
export function toFlowSnapshot(
  status: FlowStatus,
  replicating: boolean,
  remoteTopic: (topic: string) => string = (topic) => topic,
  now: number = Date.now(),
): FlowSnapshot {
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
    recordsReencoded: status.recordsReencoded,
    topicsCreated: status.topicsCreated,
    writes: status.writes,
    lastReplicationLatencyMs: status.lastReplicationLatencyMs,
    lastRecordAgeMs: status.lastRecordAgeMs,
    partitions: [...status.partitions.values()].map((p) => {
      const totals = status.mirror.partitions.get(topicPartitionKey(p));
      return {
        topic: p.topic,
        partition: p.partition,
        nextOffset: p.nextOffset,
        highWatermark: p.highWatermark,
        records: totals?.records ?? 0,
        bytes: totals?.bytes ?? 0,
        lagSince: p.lagSince,
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
      translationLag: [...cp.translationLag].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([group, records]) => ({ group, records })),
      groupSync: {
        enabled: cp.groupSync.enabled,
        groupsSynced: cp.groupSync.groupsSynced,
        offsetsCommitted: cp.groupSync.offsetsCommitted,
        skippedActive: cp.groupSync.skippedActive,
        activeGroups: [...cp.groupSync.activeGroups],
        errors: cp.groupSync.errors,
      },
      groupStates: cp.groupStates?.entries() ?? [],
      groupsFilteredOut: cp.groupStates?.filteredOut ?? 0,
    },
    heartbeats: { state: hb.state, written: hb.written, lastAt: hb.lastAt, errors: hb.errors },
    configSync: {
      enabled: status.configSync.enabled,
      passes: status.configSync.passes,
      changesApplied: status.configSync.changesApplied,
      changesRefused: status.configSync.changesRefused,
      refused: status.configSync.refused.map((r) => ({ ...r })),
      errors: status.configSync.errors,
      lastPassAt: status.configSync.lastPassAt,
    },
    acls: {
      state: status.acls.state,
      created: status.acls.created,
      skipped: { ...status.acls.skipped },
      errors: status.acls.errors,
      lastPassAt: status.acls.lastPassAt,
    },
    verify: verifySnapshot(status.verify),
    sourceResets: status.sourceResets,
    recordsExpired: status.recordsExpired,
    ...(status.preservation === undefined ? {} : { preservation: { fallbacks: status.preservation.fallbacks, partitions: status.preservation.values() } }),
    recordsDeadLettered: status.recordsDeadLettered,
    ...(status.provenance === undefined
      ? {}
      : {
          provenance: {
            loops: status.provenance.loops,
            duplicates: status.provenance.duplicates,
            unchecked: status.provenance.unchecked,
            windowRanges: status.provenance.windowRanges(),
          },
        }),
    outages: status.outages.current,
    retries: status.outages.failuresSoFar,
    errors: status.errors.values(),
    transformCounters: status.transformCounters.values(),
    failure: status.state === 'failed' && status.failure !== undefined ? describeFailure(status.failure) : undefined,
    mirror: mirrorSnapshot(status, remoteTopic, now),
  };
}

/** What continuous verification found; partitions with findings only. */
function verifySnapshot(v: VerifyStatus): VerifySnapshot {
  return {
    state: v.state,
    intervalMs: v.intervalMs,
    recordsPerInterval: v.recordsPerInterval,
    passes: v.passes,
    lastPassAt: v.lastPassAt,
    records: v.records,
    matched: v.matched,
    missing: v.missing,
    duplicates: v.duplicates,
    unexpected: v.unexpected,
    skipped: v.skipped,
    partitionsVerified: v.partitions.size,
    errors: v.errors,
    lastError: v.lastError,
    findings: v.withFindings().map((p) => ({
      topic: p.topic,
      partition: p.partition,
      remoteTopic: p.remoteTopic,
      missing: p.missing,
      duplicates: p.duplicates,
      unexpected: p.unexpected,
      fromOffset: p.findingFrom ?? p.lastFrom,
      toOffset: p.findingTo ?? p.lastTo,
      firstMissingOffset: p.firstMissing,
      firstDuplicateTargetOffset: p.firstDuplicate,
      firstUnexpectedTargetOffset: p.firstUnexpected,
      at: p.findingAt ?? p.lastAt,
    })),
  };
}

/** MM2's metrics of the flow, each partition under its remote topic, as MirrorSourceMetrics names them. */
function mirrorSnapshot(status: FlowStatus, remoteTopic: (topic: string) => string, now: number): MirrorMetricsSnapshot {
  const windowed = (stat: SampledStat): WindowedSnapshot => ({ last: stat.last, min: stat.min(now), max: stat.max(now), avg: stat.avg(now) });
  const histogram = (h: BucketCounts): HistogramSnapshot => ({ bounds: h.bounds, counts: [...h.counts], count: h.count, sum: h.sum });
  const { mirror } = status;
  return {
    partitions: [...mirror.partitions.values()].map((p) => ({
      topic: remoteTopic(p.source.topic),
      partition: p.source.partition,
      records: p.records,
      bytes: p.bytes,
      recordRate: p.recordWindow.ratePerSecond(now),
      byteRate: p.byteWindow.ratePerSecond(now),
      recordAge: windowed(p.recordAge),
      replicationLatency: windowed(p.replicationLatency),
      inFlight: Math.max(0, p.fetchedThrough - (status.partitions.get(topicPartitionKey(p.source))?.nextOffset ?? p.fetchedThrough)),
    })),
    offsetCommit: windowed(mirror.offsetCommit),
    checkpointLatency: [...status.checkpoints.latencies.values()].map((c) => ({
      group: c.group,
      topic: c.topic,
      partition: c.partition,
      latency: windowed(c.stat),
    })),
    recordAgeHistogram: histogram(mirror.recordAgeHistogram),
    replicationLatencyHistogram: histogram(mirror.replicationLatencyHistogram),
  };
}

/**
 * An error as Connect's `trace` shows one: the error's stack, then each cause after
 * `Caused by:`.
 */
export function describeFailure(error: unknown): { message: string; trace: string } {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    const text = current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current);
    lines.push(depth === 0 ? text : `Caused by: ${text}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return { message: error instanceof Error ? error.message : String(error), trace: lines.join('\n') };
}

/** A heartbeats-only flow never starts replication; its heartbeats say whether it works. */
function heartbeatsOnlyState(state: HeartbeatState): FlowSnapshot['state'] {
  return state === 'disabled' ? 'stopped' : state;
}
