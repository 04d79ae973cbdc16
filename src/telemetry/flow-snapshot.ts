/**
 * What the HTTP endpoints and metrics know of one flow: a plain copy of its live status, taken at
 * request or scrape time. The pipeline layer builds it from the flow's status objects, so this
 * layer depends on nothing but these shapes.
 */

export interface PartitionSnapshot {
  /** The source topic (not renamed). */
  readonly topic: string;
  readonly partition: number;
  /** Next source offset to replicate: everything before it is on the target. */
  readonly nextOffset: number;
  /** Source high watermark when last fetched. */
  readonly highWatermark: number;
  /** Records replicated from this partition by this process. */
  readonly records: number;
  readonly bytes: number;
  /** Epoch ms the lag in time counts from while the partition lags (see `partitionLagMs`). */
  readonly lagSince: number;
}

export type FlowState = 'starting' | 'running' | 'draining' | 'stopped' | 'failed';
export const FLOW_STATES: readonly FlowState[] = ['starting', 'running', 'draining', 'stopped', 'failed'];

export type CheckpointState = 'disabled' | 'starting' | 'loading' | 'running' | 'retrying' | 'stopped' | 'failed';
export const CHECKPOINT_STATES: readonly CheckpointState[] = ['disabled', 'starting', 'loading', 'running', 'retrying', 'stopped', 'failed'];

export type HeartbeatState = 'disabled' | 'starting' | 'running' | 'stopped' | 'failed';
export const HEARTBEAT_STATES: readonly HeartbeatState[] = ['disabled', 'starting', 'running', 'stopped', 'failed'];

/** A consumer group's sync state on a flow (src/flow/checkpoints/group-sync-states.ts says what each means). */
export type GroupSyncStateName =
  'synced' | 'checkpointed' | 'active-on-target' | 'not-translatable' | 'no-replicated-offsets' | 'filtered-out' | 'share-group' | 'cut-over' | 'failed';
export const GROUP_SYNC_STATE_NAMES: readonly GroupSyncStateName[] = [
  'synced',
  'checkpointed',
  'active-on-target',
  'not-translatable',
  'no-replicated-offsets',
  'filtered-out',
  'share-group',
  'cut-over',
  'failed',
];

export interface GroupSyncStateSnapshot {
  readonly group: string;
  readonly state: GroupSyncStateName;
  /** Why, as a sentence. */
  readonly reason: string;
  /** Epoch ms the group entered the state. */
  readonly since: number;
  /** Partitions on replicated topics with a committed offset, and how many of them translate, at the last pass that read it. */
  readonly partitions?: number;
  readonly translated?: number;
  readonly targetState?: string;
}

export type VerifyState = 'disabled' | 'starting' | 'running' | 'failing' | 'stopped';
export const VERIFY_STATES: readonly VerifyState[] = ['disabled', 'starting', 'running', 'failing', 'stopped'];

/** Continuous verification (`verify.enabled`): what the windows compared so far found. */
export interface VerifySnapshot {
  readonly state: VerifyState;
  readonly intervalMs: number;
  readonly recordsPerInterval: number;
  readonly passes: number;
  /** Epoch ms of the last completed pass. */
  readonly lastPassAt: number | undefined;
  /** Source records compared, and of them those whose copy was found. */
  readonly records: number;
  readonly matched: number;
  readonly missing: number;
  readonly duplicates: number;
  readonly unexpected: number;
  /** Copied records the read budget left unverified. */
  readonly skipped: number;
  /** Partitions verified at least once. */
  readonly partitionsVerified: number;
  readonly errors: number;
  readonly lastError: string | undefined;
  /** Partitions where something was found, by topic and partition. */
  readonly findings: readonly VerifyFinding[];
}

export interface VerifyFinding {
  readonly topic: string;
  readonly partition: number;
  readonly remoteTopic: string;
  readonly missing: number;
  readonly duplicates: number;
  readonly unexpected: number;
  /** The last window that found something, [from, to) in source offsets, and its first offsets (source offset; target offsets). */
  readonly fromOffset: number;
  readonly toOffset: number;
  readonly firstMissingOffset: number | undefined;
  readonly firstDuplicateTargetOffset: number | undefined;
  readonly firstUnexpectedTargetOffset: number | undefined;
  readonly at: number;
}

export interface CheckpointSnapshot {
  readonly state: CheckpointState;
  readonly groups: number;
  readonly checkpointsWritten: number;
  /** Epoch ms of the last completed pass. */
  readonly lastPassAt: number | undefined;
  readonly lastCheckpointLatencyMs: number | undefined;
  readonly errors: number;
  /** Per group, records a failover at its checkpoint reads again, at most (`groupTranslationLag`), at the last acknowledged pass. */
  readonly translationLag: readonly { readonly group: string; readonly records: number }[];
  readonly groupSync: {
    readonly enabled: boolean;
    readonly groupsSynced: number;
    readonly offsetsCommitted: number;
    readonly skippedActive: number;
    /** Groups left alone in the last pass because they have active members on the target. */
    readonly activeGroups: readonly string[];
    readonly errors: number;
  };
  /** Every group's sync state with its reason (filtered-out ones up to a bound); absent where none was taken (fakes). */
  readonly groupStates?: readonly GroupSyncStateSnapshot[];
  /** Groups of the source the groups filter leaves out, all of them. */
  readonly groupsFilteredOut?: number;
}

export interface HeartbeatSnapshot {
  readonly state: HeartbeatState;
  readonly written: number;
  /** Epoch ms of the last acknowledged heartbeat. */
  readonly lastAt: number | undefined;
  readonly errors: number;
}

/** The periodic topic config sync (`topic_sync.sync_configs`). */
export interface ConfigSyncSnapshot {
  readonly enabled: boolean;
  readonly passes: number;
  readonly changesApplied: number;
  readonly changesRefused: number;
  /** What the target refused at the last pass: topic, config, Kafka's error name and the broker's reason. */
  readonly refused: readonly { readonly topic: string; readonly name: string; readonly error: string; readonly message: string }[];
  readonly errors: number;
  readonly lastPassAt: number | undefined;
}

/** Topic ACL sync (`topic_sync.acls`). */
export interface AclSyncSnapshot {
  readonly state: 'disabled' | 'starting' | 'running' | 'no-authorizer' | 'failing' | 'stopped';
  readonly created: number;
  /** ACLs of the source not copied, each counted once, by reason. */
  readonly skipped: Readonly<Record<string, number>>;
  readonly errors: number;
  readonly lastPassAt: number | undefined;
}

/** What a flow with provenance headers kept off its target (docs/active-active.md). */
export interface ProvenanceSnapshot {
  /** Records whose header says the target had them already (loops). */
  readonly loops: number;
  /** Second copies of origin records another flow delivered into the target first (diamonds). */
  readonly duplicates: number;
  /** Records older than the diamond window, written without the check. */
  readonly unchecked: number;
  /** Ranges of origin offsets the flow holds in its target's diamond window now. */
  readonly windowRanges: number;
}

export interface FlowSnapshot {
  readonly source: string;
  readonly target: string;
  /** False for a flow that only emits heartbeats (`enabled: false`): it replicates nothing. */
  readonly replicating: boolean;
  /** Replication's state; for a heartbeats-only flow, its heartbeats' state. */
  readonly state: FlowState;
  readonly topics: number;
  /** Source partitions the group assigned to this process. */
  readonly partitionsAssigned: number;
  /** True when this process is the flow's elected member: it runs checkpoints, heartbeats, topic config sync and ACL sync. */
  readonly elected: boolean;
  readonly recordsReplicated: number;
  readonly recordsDropped: number;
  readonly bytesReplicated: number;
  readonly recordBatchesForwarded: number;
  /** Records decoded and encoded again for the target (not forwarded in their source batch). */
  readonly recordsReencoded: number;
  /** Remote topics the flow created on the target. */
  readonly topicsCreated: number;
  readonly writes: number;
  readonly lastReplicationLatencyMs: number | undefined;
  /** Age of the last fetched batch's last record when fetched (MM2: record-age-ms). */
  readonly lastRecordAgeMs: number | undefined;
  readonly partitions: readonly PartitionSnapshot[];
  readonly buffer: { readonly inFlightBytes: number; readonly maxBytes: number } | undefined;
  readonly checkpoints: CheckpointSnapshot;
  readonly heartbeats: HeartbeatSnapshot;
  /** Absent where no snapshot of it was taken (older callers, fakes). */
  readonly configSync?: ConfigSyncSnapshot;
  readonly acls: AclSyncSnapshot;
  /** Continuous verification; absent where no snapshot of it was taken (fakes). */
  readonly verify?: VerifySnapshot;
  /** Source logs found restarted below the stored position (topic recreated or truncated). */
  readonly sourceResets: number;
  /** Source records removed (retention, DeleteRecords) before they were copied. */
  readonly recordsExpired: number;
  /** `offsets: preserve`: each partition's state, fallbacks first; absent for `offsets: translate`. */
  readonly preservation?: PreservationSnapshot;
  /** Records set aside to the dead-letter topic. */
  readonly recordsDeadLettered: number;
  /** `provenance.enabled`: what the provenance headers kept off the target; absent without them. */
  readonly provenance?: ProvenanceSnapshot;
  /** Cluster operations of the flow failing retriably right now, oldest first; empty when all is well. */
  readonly outages: readonly OutageSnapshot[];
  /** Retriable failures since start, per cluster and operation (each was retried). */
  readonly retries: readonly { readonly cluster: string; readonly operation: string; readonly failures: number }[];
  /** Errors since start by kind and cluster (`errorKind`); absent where no snapshot of them was taken (fakes). */
  readonly errors?: readonly { readonly kind: string; readonly cluster: string; readonly count: number }[];
  /** Counters the flow's transforms keep (plugin API `context.metrics`). */
  readonly transformCounters: readonly TransformCounterSnapshot[];
  /** Why the flow failed (state `failed`): the error, and its chain of causes as a trace. */
  readonly failure: { readonly message: string; readonly trace: string } | undefined;
  /** MM2's own metrics (MirrorSourceMetrics, MirrorCheckpointMetrics) as of the snapshot; absent where none was taken (fakes). */
  readonly mirror?: MirrorMetricsSnapshot;
}

/** Kafka's windowed stats of one series: the last value, and min, max and avg over the last 30–60 s (NaN when nothing was recorded there). */
export interface WindowedSnapshot {
  readonly last: number | undefined;
  readonly min: number;
  readonly max: number;
  readonly avg: number;
}

export interface HistogramSnapshot {
  /** Upper bounds, ascending; counts are cumulative per bound (`le`). */
  readonly bounds: readonly number[];
  readonly counts: readonly number[];
  readonly count: number;
  readonly sum: number;
}

export interface MirrorMetricsSnapshot {
  /** Per replicated partition, under its REMOTE topic name (MM2's formatRemoteTopic). */
  readonly partitions: readonly {
    readonly topic: string;
    readonly partition: number;
    readonly records: number;
    readonly bytes: number;
    /** Per second, Kafka's Rate over the window. */
    readonly recordRate: number;
    readonly byteRate: number;
    readonly recordAge: WindowedSnapshot;
    readonly replicationLatency: WindowedSnapshot;
    /** Records fetched and not yet acknowledged by the target (by offset: the fetched position minus the acknowledged one). */
    readonly inFlight: number;
  }[];
  /** How long storing the flow's progress took, ms (Connect's offset-commit-*-time-ms). */
  readonly offsetCommit: WindowedSnapshot;
  /** Per group and remote topic-partition. */
  readonly checkpointLatency: readonly { readonly group: string; readonly topic: string; readonly partition: number; readonly latency: WindowedSnapshot }[];
  readonly recordAgeHistogram: HistogramSnapshot;
  readonly replicationLatencyHistogram: HistogramSnapshot;
}

export interface TransformCounterSnapshot {
  readonly transform: string;
  /** The step's index in the flow's `transforms:` list. */
  readonly step: string;
  readonly name: string;
  readonly help: string;
  readonly value: number;
}

/** One operation against one cluster that keeps failing retriably (and is being retried). */
export interface OutageSnapshot {
  readonly cluster: string;
  /** A constant phrase: `writing records`, `storing progress`. */
  readonly operation: string;
  /** Epoch ms of the first failure. */
  readonly since: number;
  readonly failures: number;
  readonly lastError: string;
}

/** For the progress line: `backup: writing records, storing progress for 12 s`, one per cluster; undefined when none. */
export function describeOutages(outages: readonly OutageSnapshot[], now: number): string | undefined {
  const byCluster = new Map<string, { since: number; operations: string[] }>();
  for (const o of outages) {
    const c = byCluster.get(o.cluster) ?? { since: o.since, operations: [] };
    c.since = Math.min(c.since, o.since);
    c.operations.push(o.operation);
    byCluster.set(o.cluster, c);
  }
  if (byCluster.size === 0) return undefined;
  return [...byCluster].map(([cluster, c]) => `${cluster}: ${c.operations.join(', ')} for ${Math.round((now - c.since) / 1000)} s`).join('; ');
}

/** The flow's name as in logs and configs: `source->target`. */
export function flowName(flow: { readonly source: string; readonly target: string }): string {
  return `${flow.source}->${flow.target}`;
}

/** Records on the source not yet on the target, as of the last fetch. */
export function partitionLag(p: PartitionSnapshot): number {
  return Math.max(0, p.highWatermark - p.nextOffset);
}

/**
 * The partition's lag in time: 0 when it is caught up (nothing beyond the replicated position at
 * the last fetch); else how long the oldest record not yet on the target has been waiting, at
 * most: now minus the latest of when it was first fetched, when it was last seen caught up and the
 * source timestamp of the newest record replicated from it.
 */
export function partitionLagMs(p: PartitionSnapshot, now: number): number {
  return partitionLag(p) === 0 ? 0 : Math.max(0, now - p.lagSince);
}

/** The flow's lag in time: its most lagging partition's. */
export function flowLagMs(flow: FlowSnapshot, now: number): number {
  let lagMs = 0;
  for (const p of flow.partitions) lagMs = Math.max(lagMs, partitionLagMs(p, now));
  return lagMs;
}

export function flowLag(flow: FlowSnapshot): number {
  let lag = 0;
  for (const p of flow.partitions) lag += partitionLag(p);
  return lag;
}

/** Offset-preserving replication: which partitions hold their source's offsets, and why the others stopped. */
export interface PreservationSnapshot {
  /** Partitions that fell back in this run. */
  readonly fallbacks: number;
  readonly partitions: readonly PreservedPartitionSnapshot[];
}

export type PreservedPartitionSnapshot =
  | { readonly topic: string; readonly partition: number; readonly preserved: true; readonly since: number }
  | {
      readonly topic: string;
      readonly partition: number;
      readonly preserved: false;
      readonly reason: string;
      readonly fromOffset: number;
      readonly at: number;
    };
