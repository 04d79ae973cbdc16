/**
 * What `mirrorflow migrate FILE status` reports, read from both clusters and written nowhere: per
 * replicated source partition, whether the target holds it at the source's offsets (`offsets:
 * preserve`) or translated (and why it fell back), and how far replication is behind; per consumer
 * group of the source, whether it can be cut over; and the migration's own state (the topic of
 * src/flow/migration-state.ts).
 *
 * Replication lag is the records of the source partition not yet on the target: for a preserved
 * partition, up to the target's end (the same offsets); otherwise up to the flow's stored progress
 * (written every `progress.flush_interval_ms`, so it may lag that much behind what is copied). A
 * group's partition is caught up when the target holds every record below the group's committed
 * source offset: its consumers then find on the target everything they had not read yet.
 */
import { firstValueFrom, lastValueFrom, toArray } from '#rxjs';
import type { GroupState } from '../../core/ports/cluster-admin';
import type { TopicReader } from '../../core/ports/record-source';
import { topicPartitionKey, type TopicPartition } from '../../core/record';
import { MIRROR_SOURCE_CONNECTOR, RecordFormatError, decodeConnectOffsetKey, decodeConnectOffsetValue, decodeSourceOffsetKey } from '../../formats';
import { DefaultGroupFilter, DefaultTopicFilter, shouldReplicateTopic } from '../../policy';
import { readPreservationMarkers, type PreservationMarker } from '../../flow/replication/preservation-markers';
import { readMigrationState, type MigrationState } from '../../flow/migration-state';
import { flowGroupId, flowProgressTopic, migrationTopicName, preservedOffsetsGroup } from '../flow-names';
import type { DirectionRequest, FlowDirection, PipelineTools } from './pipeline-tools';

export interface PartitionReport {
  readonly topic: string;
  readonly remoteTopic: string;
  readonly partition: number;
  readonly sourceEnd: number;
  /** The next source offset the target does not hold yet. */
  readonly replicatedTo: number;
  /** Source offsets from `replicatedTo` to the source's end that hold records (0 when only transaction markers are left). */
  readonly lag: number;
  readonly preserved: boolean;
  /** Why it is translated: the fallback's reason, or `offsets: translate`. */
  readonly reason?: string;
  readonly fallbackOffset?: number;
}

export interface GroupReport {
  readonly group: string;
  readonly ready: boolean;
  /** Why it is not ready (each names the topic-partition or the cluster). */
  readonly reasons: readonly string[];
  readonly targetState: GroupState;
  readonly sourceState: GroupState;
  /** The group's committed source offsets on replicated topics. */
  readonly offsets: readonly (TopicPartition & { readonly offset: number; readonly missing: number })[];
  /** The cutover's state, once one began. */
  readonly cutover?: 'sync-stopped' | 'cut-over';
}

export interface MigrationReport {
  readonly source: string;
  readonly target: string;
  readonly flowGroup: string;
  readonly stateTopic: string;
  readonly targetBootstrap: readonly string[];
  readonly partitions: readonly PartitionReport[];
  readonly groups: readonly GroupReport[];
  readonly state: MigrationState;
}

export interface MigrationReportRequest extends DirectionRequest {
  /** Only these groups (default: every source group the flow checkpoints, and every group a cutover began for). */
  readonly groups?: readonly string[];
}

const ACTIVE: ReadonlySet<GroupState> = new Set(['stable', 'preparing-rebalance', 'completing-rebalance']);

export async function migrationReport(tools: PipelineTools, request: MigrationReportRequest): Promise<MigrationReport> {
  const direction = tools.direction(request);
  const { source, target, flow } = direction;
  await Promise.all([tools.checkReachable(source), tools.checkReachable(target)]);
  const flowGroup = flowGroupId(tools.config.name, flow);
  const stateTopic = migrationTopicName(source);
  const [state, partitions] = await Promise.all([
    readMigrationState(tools.admin(target), tools.reader(target), stateTopic, flowGroup),
    partitionReports(tools, direction, flowGroup),
  ]);
  const byKey = new Map(partitions.map((p) => [topicPartitionKey(p), p]));

  const sourceAdmin = tools.admin(source);
  const filter = new DefaultGroupFilter({ include: flow.checkpoints.groups, exclude: flow.checkpoints.groups_exclude });
  const wanted = request.groups ?? [
    ...new Set([...(await firstValueFrom(sourceAdmin.listGroups())).filter((g) => filter.shouldReplicateGroup(g)), ...state.groups.keys()]),
  ];
  const targetStates = wanted.length === 0 ? new Map<string, GroupState>() : await firstValueFrom(tools.admin(target).describeGroups(wanted));
  const sourceStates = wanted.length === 0 ? new Map<string, GroupState>() : await firstValueFrom(sourceAdmin.describeGroups(wanted));
  const reportGroup = async (group: string): Promise<GroupReport | undefined> => {
    const committed = (await firstValueFrom(sourceAdmin.fetchGroupOffsets(group))).filter((o) => byKey.has(topicPartitionKey(o)));
    const cutover = state.groups.get(group)?.state;
    if (committed.length === 0 && cutover === undefined && request.groups === undefined) return undefined;
    const offsets = await Promise.all(
      committed.map(async (o) => {
        const p = byKey.get(topicPartitionKey(o))!;
        const missing = p.preserved ? Math.max(0, o.offset - p.replicatedTo) : await missingBelow(tools, source, p, o.offset);
        return { topic: o.topic, partition: o.partition, offset: o.offset, missing };
      }),
    );
    const targetState = targetStates.get(group) ?? 'dead';
    const reasons: string[] = [];
    if (committed.length === 0) reasons.push(`group "${group}" has no committed offsets on "${source}" on topics the flow replicates`);
    for (const o of offsets)
      if (o.missing > 0) reasons.push(`${o.topic}-${o.partition}: ${o.missing} record(s) below the group's offset ${o.offset} are not on "${target}" yet`);
    if (ACTIVE.has(targetState)) reasons.push(`group "${group}" has active members on "${target}" (state ${targetState})`);
    if (targetState === 'unknown') reasons.push(`the state of group "${group}" on "${target}" is not one mirrorflow knows`);
    return {
      group,
      ready: reasons.length === 0,
      reasons,
      targetState,
      sourceState: sourceStates.get(group) ?? 'dead',
      offsets,
      ...(cutover === undefined ? {} : { cutover }),
    };
  };
  const groups = (await Promise.all([...wanted].sort().map(reportGroup))).filter((g): g is GroupReport => g !== undefined);
  return {
    source,
    target,
    flowGroup,
    stateTopic,
    targetBootstrap: tools.config.clusters[target]?.bootstrap_servers ?? [],
    partitions,
    groups,
    state,
  };
}

/** Every replicated source partition with its lag and whether it keeps its offsets. */
export async function partitionReports(tools: PipelineTools, direction: FlowDirection, flowGroup: string): Promise<PartitionReport[]> {
  const { source, target, flow, policy } = direction;
  firstRecords.clear();
  const sourceAdmin = tools.admin(source);
  const targetAdmin = tools.admin(target);
  const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
  const topics = (await firstValueFrom(sourceAdmin.listTopics()))
    .map((t) => t.name)
    .filter((topic) => shouldReplicateTopic(topic, { filter, policy, targetAlias: target, replicateHeartbeats: flow.replicate_heartbeats }))
    .sort();
  const onTarget = new Set((await firstValueFrom(targetAdmin.listTopics())).map((t) => t.name));
  const [progress, markers] = await Promise.all([
    storedProgress(tools, direction, onTarget),
    flow.offsets === 'preserve' ? readPreservationMarkers(targetAdmin, preservedOffsetsGroup(flowGroup)) : new Map<string, PreservationMarker>(),
  ]);
  const reports: Promise<PartitionReport>[] = [];
  for (const topic of topics) {
    const remoteTopic = policy.formatRemoteTopic(source, topic);
    const targetEnds = new Map(
      onTarget.has(remoteTopic) ? (await firstValueFrom(targetAdmin.partitionOffsets(remoteTopic))).map((p) => [p.partition, p.latest]) : [],
    );
    for (const p of await firstValueFrom(sourceAdmin.partitionOffsets(topic))) {
      const marker = markers.get(topicPartitionKey({ topic: remoteTopic, partition: p.partition }));
      const preserved = marker?.preserved === true;
      const replicatedTo = preserved ? (targetEnds.get(p.partition) ?? 0) : (progress.get(topicPartitionKey({ topic, partition: p.partition })) ?? p.earliest);
      const report = { topic, remoteTopic, partition: p.partition, sourceEnd: p.latest, replicatedTo, lag: 0, preserved };
      const why =
        flow.offsets !== 'preserve'
          ? { reason: 'offsets: translate' }
          : marker === undefined
            ? { reason: 'not started yet' }
            : marker.preserved
              ? {}
              : { reason: marker.reason ?? 'fell back', fallbackOffset: marker.offset };
      // A preserved partition has no offsets without records (it would have fallen back): its lag is a difference.
      const lag = preserved ? Promise.resolve(Math.max(0, p.latest - replicatedTo)) : missingBelow(tools, source, report, p.latest);
      reports.push(lag.then((records) => ({ ...report, ...why, lag: records })));
    }
  }
  return Promise.all(reports);
}

/**
 * Records of the source partition at offsets from `p.replicatedTo` up to `upTo` that the target does
 * not hold: 0 when there are none, or only transaction markers (which are never copied).
 */
async function missingBelow(
  tools: PipelineTools,
  source: string,
  p: Pick<PartitionReport, 'topic' | 'partition' | 'replicatedTo'>,
  upTo: number,
): Promise<number> {
  if (p.replicatedTo >= upTo) return 0;
  // The first record at or after a position is the same whatever it is compared with: read once per report.
  const key = `${source}/${p.topic}/${p.partition}/${p.replicatedTo}`;
  let next = firstRecords.get(key);
  if (next === undefined) {
    next = tools
      .reader(source)
      .recordAt(p.topic, p.partition, p.replicatedTo)
      .then((r) => r?.offset);
    firstRecords.set(key, next);
    next.catch(() => firstRecords.delete(key));
  }
  const offset = await next;
  return offset === undefined || offset >= upTo ? 0 : upTo - offset;
}

/** Where the first source record at or after a position is, by cluster, topic, partition and position; kept for one report. */
const firstRecords = new Map<string, Promise<number | undefined>>();

/** The flow's stored progress: the next source offset per source topic-partition (MM2's Connect offsets). */
async function storedProgress(tools: PipelineTools, { source, target, flow }: FlowDirection, onTarget: ReadonlySet<string>): Promise<Map<string, number>> {
  return readStoredProgress(tools.reader(target), source, flowProgressTopic(flow), onTarget);
}

/** A flow's stored progress read from its target's `reader`, by the flow's `source` alias, from its progress `topic`; empty when that topic is not `onTarget`. */
export async function readStoredProgress(reader: TopicReader, source: string, topic: string, onTarget: ReadonlySet<string>): Promise<Map<string, number>> {
  const next = new Map<string, number>();
  if (!onTarget.has(topic)) return next;
  const batches = await lastValueFrom(reader.readToEnd(topic).pipe(toArray()), { defaultValue: [] });
  for (const record of batches.flatMap((b) => b.records)) {
    try {
      if (decodeConnectOffsetKey(record.key).connector !== MIRROR_SOURCE_CONNECTOR) continue;
      const key = decodeSourceOffsetKey(record.key);
      if (key.sourceClusterAlias !== source) continue;
      const offset = decodeConnectOffsetValue(record.value);
      const k = topicPartitionKey({ topic: key.topic, partition: key.partition });
      if (offset === null) next.delete(k);
      else next.set(k, offset + 1);
    } catch (error) {
      if (!(error instanceof RecordFormatError)) throw error;
    }
  }
  return next;
}
