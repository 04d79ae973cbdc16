import { type FlowSnapshot, flowLag, flowLagMs, flowName, partitionLag, partitionLagMs } from './flow-snapshot';
import { readiness } from './readiness';

/** `GET /status`: what `mirrorflow status URL` prints, and scripts read. */
export interface StatusDocument {
  readonly pipeline: string;
  /** Where this process serves HTTP (`HOST:PORT`), Connect's worker id; absent in older versions. */
  readonly worker?: string;
  readonly pid?: number;
  readonly ready: boolean;
  readonly flows: readonly FlowStatusDocument[];
}

export interface FlowStatusDocument {
  readonly name: string;
  readonly source: string;
  readonly target: string;
  readonly replicating: boolean;
  readonly state: string;
  /** Why the flow is not ready; empty when it is. */
  readonly notReady: readonly string[];
  readonly topics: number;
  /** Source partitions the group assigned to this process. */
  readonly partitionsAssigned: number;
  /** Whether this process is the flow's elected member (runs checkpoints and heartbeats). */
  readonly elected: boolean;
  readonly records: number;
  readonly bytes: number;
  readonly recordsDropped: number;
  /** `provenance.enabled`: records kept off the target by their provenance header (docs/active-active.md); null without it. */
  readonly provenance: { readonly loops: number; readonly duplicates: number; readonly unchecked: number; readonly windowRanges: number } | null;
  readonly recordBatchesForwarded: number;
  readonly writes: number;
  readonly latencyMs: number | null;
  /** Age of the last fetched record when fetched (MM2's record-age-ms). */
  readonly recordAgeMs: number | null;
  readonly lag: number;
  /** The offset lag as time, ms: the most lagging partition's `lagMs`. */
  readonly lagMs: number;
  readonly buffer: { readonly bytes: number; readonly maxBytes: number } | null;
  readonly partitions: readonly {
    readonly topic: string;
    readonly partition: number;
    readonly nextOffset: number;
    readonly highWatermark: number;
    readonly lag: number;
    /** 0 when caught up; else how long the oldest record not yet on the target has been waiting, at most (ms). */
    readonly lagMs: number;
    readonly records: number;
  }[];
  readonly checkpoints: {
    readonly state: string;
    readonly groups: number;
    readonly written: number;
    /** ISO-8601 time of the last completed pass. */
    readonly lastPassAt: string | null;
    readonly latencyMs: number | null;
    readonly errors: number;
    /** Per group, records a failover at its checkpoint reads again, at most (see the metric mirrorflow_checkpoint_translation_lag_records). */
    readonly translationLag: readonly { readonly group: string; readonly records: number }[];
    readonly groupSync: {
      readonly enabled: boolean;
      readonly synced: number;
      readonly skippedActive: number;
      readonly activeGroups: readonly string[];
      readonly errors: number;
    };
    /**
     * Every consumer group's sync state and why: synced, checkpointed, active-on-target,
     * not-translatable, no-replicated-offsets, filtered-out, cut-over, failed (filtered-out
     * groups up to 200 by name; `groupsFilteredOut` counts them all). Absent in older versions.
     */
    readonly groupStates?: readonly {
      readonly group: string;
      readonly state: string;
      readonly reason: string;
      /** ISO-8601 time the group entered the state. */
      readonly since: string | null;
      readonly partitions: number | null;
      readonly translated: number | null;
      readonly targetState: string | null;
    }[];
    readonly groupsFilteredOut?: number;
  };
  readonly heartbeats: { readonly state: string; readonly written: number; readonly lastAt: string | null; readonly errors: number };
  /** The periodic topic config sync; null when the flow does not run it. */
  readonly configSync: {
    readonly applied: number;
    readonly refused: number;
    /** What the target refused at the last pass: topic, config, Kafka's error name and the broker's reason. */
    readonly lastRefused: readonly { readonly topic: string; readonly name: string; readonly error: string; readonly message: string }[];
    readonly lastPassAt: string | null;
    readonly errors: number;
  } | null;
  readonly acls: {
    readonly state: string;
    readonly created: number;
    readonly skipped: Readonly<Record<string, number>>;
    readonly errors: number;
    readonly lastPassAt: string | null;
  };
  /** Continuous verification (`verify.enabled`); null when it is off. */
  readonly verify: {
    readonly state: string;
    readonly intervalMs: number;
    readonly recordsPerInterval: number;
    readonly passes: number;
    /** ISO-8601 time of the last completed pass. */
    readonly lastPassAt: string | null;
    /** Source records compared, and how many of them were found copied. */
    readonly records: number;
    readonly matched: number;
    readonly missing: number;
    readonly duplicates: number;
    readonly unexpected: number;
    /** Copied records the read budget left unverified. */
    readonly skipped: number;
    readonly partitionsVerified: number;
    readonly errors: number;
    readonly lastError: string | null;
    /** Partitions where something was found: totals over the run, and the last window that found it (source offsets [fromOffset, toOffset)). */
    readonly findings: readonly {
      readonly topic: string;
      readonly partition: number;
      readonly remoteTopic: string;
      readonly missing: number;
      readonly duplicates: number;
      readonly unexpected: number;
      readonly fromOffset: number;
      readonly toOffset: number;
      readonly firstMissingOffset: number | null;
      readonly firstDuplicateTargetOffset: number | null;
      readonly firstUnexpectedTargetOffset: number | null;
      readonly at: string | null;
    }[];
  } | null;
  readonly sourceResets: number;
  /** Source records removed (retention, DeleteRecords) before they were copied. */
  readonly recordsExpired: number;
  /** `offsets: preserve`: partitions kept at their source offsets, and those that fell back (which, why, from which source offset); null for `offsets: translate`. */
  readonly offsets: {
    readonly preserved: number;
    readonly fallbacks: readonly {
      readonly topic: string;
      readonly partition: number;
      readonly fromOffset: number;
      readonly reason: string;
      readonly at: string | null;
    }[];
  } | null;
  readonly recordsDeadLettered: number;
  readonly outages: readonly {
    readonly cluster: string;
    readonly operation: string;
    readonly since: string | null;
    readonly failures: number;
    readonly lastError: string;
  }[];
  /** Errors since start by kind and cluster. */
  readonly errors: readonly { readonly kind: string; readonly cluster: string; readonly count: number }[];
  readonly transformCounters: readonly { readonly transform: string; readonly step: string; readonly counter: string; readonly value: number }[];
  /** Why the flow failed; null unless its state is `failed`. */
  readonly failure: string | null;
}

export function statusDocument(
  pipeline: string,
  flows: readonly FlowSnapshot[],
  now: number = Date.now(),
  serving?: { readonly worker: string; readonly pid: number },
): StatusDocument {
  const ready = readiness(flows, now);
  return {
    pipeline,
    ...serving,
    ready: ready.ready,
    flows: flows.map((f, i): FlowStatusDocument => {
      const cp = f.checkpoints;
      return {
        name: flowName(f),
        source: f.source,
        target: f.target,
        replicating: f.replicating,
        state: f.state,
        notReady: ready.flows[i]?.reasons ?? [],
        topics: f.topics,
        partitionsAssigned: f.partitionsAssigned,
        elected: f.elected,
        records: f.recordsReplicated,
        bytes: f.bytesReplicated,
        recordsDropped: f.recordsDropped,
        provenance: f.provenance === undefined ? null : { ...f.provenance },
        recordBatchesForwarded: f.recordBatchesForwarded,
        writes: f.writes,
        latencyMs: f.lastReplicationLatencyMs ?? null,
        recordAgeMs: f.lastRecordAgeMs ?? null,
        lag: flowLag(f),
        lagMs: flowLagMs(f, now),
        buffer: f.buffer === undefined ? null : { bytes: f.buffer.inFlightBytes, maxBytes: f.buffer.maxBytes },
        partitions: [...f.partitions]
          .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
          .map((p) => ({
            topic: p.topic,
            partition: p.partition,
            nextOffset: p.nextOffset,
            highWatermark: p.highWatermark,
            lag: partitionLag(p),
            lagMs: partitionLagMs(p, now),
            records: p.records,
          })),
        checkpoints: {
          state: cp.state,
          groups: cp.groups,
          written: cp.checkpointsWritten,
          lastPassAt: iso(cp.lastPassAt),
          latencyMs: cp.lastCheckpointLatencyMs ?? null,
          errors: cp.errors,
          translationLag: cp.translationLag.map((g) => ({ group: g.group, records: g.records })),
          groupSync: {
            enabled: cp.groupSync.enabled,
            synced: cp.groupSync.groupsSynced,
            skippedActive: cp.groupSync.skippedActive,
            activeGroups: cp.groupSync.activeGroups,
            errors: cp.groupSync.errors,
          },
          groupStates: (cp.groupStates ?? []).map((g) => ({
            group: g.group,
            state: g.state,
            reason: g.reason,
            since: iso(g.since),
            partitions: g.partitions ?? null,
            translated: g.translated ?? null,
            targetState: g.targetState ?? null,
          })),
          groupsFilteredOut: cp.groupsFilteredOut ?? 0,
        },
        heartbeats: { state: f.heartbeats.state, written: f.heartbeats.written, lastAt: iso(f.heartbeats.lastAt), errors: f.heartbeats.errors },
        configSync:
          f.configSync === undefined || (!f.configSync.enabled && f.configSync.passes === 0)
            ? null
            : {
                applied: f.configSync.changesApplied,
                refused: f.configSync.changesRefused,
                lastRefused: f.configSync.refused,
                lastPassAt: iso(f.configSync.lastPassAt),
                errors: f.configSync.errors,
              },
        acls: { state: f.acls.state, created: f.acls.created, skipped: { ...f.acls.skipped }, errors: f.acls.errors, lastPassAt: iso(f.acls.lastPassAt) },
        verify:
          f.verify === undefined || f.verify.state === 'disabled'
            ? null
            : {
                state: f.verify.state,
                intervalMs: f.verify.intervalMs,
                recordsPerInterval: f.verify.recordsPerInterval,
                passes: f.verify.passes,
                lastPassAt: iso(f.verify.lastPassAt),
                records: f.verify.records,
                matched: f.verify.matched,
                missing: f.verify.missing,
                duplicates: f.verify.duplicates,
                unexpected: f.verify.unexpected,
                skipped: f.verify.skipped,
                partitionsVerified: f.verify.partitionsVerified,
                errors: f.verify.errors,
                lastError: f.verify.lastError ?? null,
                findings: f.verify.findings.map((p) => ({
                  ...p,
                  firstMissingOffset: p.firstMissingOffset ?? null,
                  firstDuplicateTargetOffset: p.firstDuplicateTargetOffset ?? null,
                  firstUnexpectedTargetOffset: p.firstUnexpectedTargetOffset ?? null,
                  at: iso(p.at),
                })),
              },
        sourceResets: f.sourceResets,
        recordsExpired: f.recordsExpired,
        offsets:
          f.preservation === undefined
            ? null
            : {
                preserved: f.preservation.partitions.filter((p) => p.preserved).length,
                fallbacks: f.preservation.partitions.flatMap((p) =>
                  p.preserved ? [] : [{ topic: p.topic, partition: p.partition, fromOffset: p.fromOffset, reason: p.reason, at: iso(p.at) }],
                ),
              },
        recordsDeadLettered: f.recordsDeadLettered,
        outages: f.outages.map((o) => ({ cluster: o.cluster, operation: o.operation, since: iso(o.since), failures: o.failures, lastError: o.lastError })),
        errors: (f.errors ?? []).map((e) => ({ kind: e.kind, cluster: e.cluster, count: e.count })),
        transformCounters: f.transformCounters.map((c) => ({ transform: c.transform, step: c.step, counter: c.name, value: c.value })),
        failure: f.failure?.message ?? null,
      };
    }),
  };
}

function iso(epochMs: number | undefined): string | null {
  return epochMs === undefined ? null : new Date(epochMs).toISOString();
}
