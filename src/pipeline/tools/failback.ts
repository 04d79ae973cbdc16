// size: one command's plan and its execution, step by step, in the order of docs/drills-and-failback.md; the copies are in failback-copy.ts.
/**
 * `mirrorflow failback FILE`: after `mirrorflow failover` moved consumers (and producers) from a
 * flow's source A to its target B, moves them back to A once it is back, so A can take over again.
 *
 * The failover point, per partition, is found from the data itself, not from a record the
 * failover left: on B, the first record that is not a copy of A's.
 *
 * - A partition that keeps its source offsets (`offsets: preserve`) must end up identical on A:
 *   same records at the same offsets, so group offsets carry over as they are. Kafka has no call
 *   that cuts the end of a log (DeleteRecords only moves its start), so where A holds records
 *   after the failover point that never reached B, the topic is truncated and restored as
 *   Cluster Linking's `truncate-and-restore` does, by the only means Apache Kafka allows: A's
 *   records that would be lost are first saved to a topic of their own on A
 *   (`mirrorflow.failback.<topic>.<time>`, each with its original offset in a header), then the
 *   topic is deleted and created again (same partitions, replication factor and configs), and
 *   every partition is restored from B (its log made to start where B's starts, then B's records
 *   copied at their offsets). A partition with nothing to cut just gets B's new records appended.
 * - A translated partition gets B's records since the failover point appended on A (A's records
 *   that never reached B stay where they are); where each landed is known, so group offsets are
 *   translated back exactly, and offset syncs for the copies are written for the flow.
 * - Each group's offsets on B are committed on A: as they are on preserved partitions; on
 *   translated ones, past the failover point through where the records landed, before it through
 *   the flow's offset syncs (never behind where the group was on A before the failover).
 * - The flow's stored progress is moved to A's new end, so that the flow A→B, started again,
 *   copies what A gets from now on and not the records that came from B.
 *
 * Every check happens before the first change; `--dry-run` prints the plan and changes nothing.
 */
import { firstValueFrom } from '#rxjs';
import { setTimeout as delay } from 'node:timers/promises';
import { lastValueFrom } from '#rxjs';
import { MirrorflowError } from '../../core/errors';
import type { GroupOffset, GroupState } from '../../core/ports/cluster-admin';
import type { OutboundRecord } from '../../core/ports/record-writer';
import { topicPartitionKey } from '../../core/record';
import { DefaultGroupFilter } from '../../policy';
import { encodeConnectOffsetValue, encodeOffsetSyncKey, encodeOffsetSyncValue, encodeSourceOffsetKey, connectOffsetsPartition } from '../../formats';
import { type OffsetSyncStore, SYNCS_PER_PARTITION, type StoredSync } from '../../flow/checkpoints/offset-sync-store';
import { recordDigest } from '../../flow/replication/offset-preservation';
import { flowGroupId, offsetSyncsPlace, progressTopicName } from '../flow-names';
import { change, check, type ChangeStep } from './change-steps';
import { copyPartitions, digestsOf, firstWhereNot, landedAt, recordAtExactly, startPartitionAt, type CopiedRun } from './failback-copy';
import { partitionReports } from './migrate-report';
import type { DirectionRequest, FlowDirection, PipelineTools } from './pipeline-tools';
import { FailoverRefusedError } from './tool-errors';
import { DEFAULT_READ_TIMEOUT_MS } from './mirror-client';
import { loadOffsetSyncs } from './offset-syncs';

/** Records of A read at most to find B's copies of them on a translated partition (past the flow's progress). */
const COPY_WINDOW = 100_000;
/** One offset sync per this many records copied back (MM2's offset.lag.max default). */
const SYNC_EVERY = 100;

export interface FailbackRequest extends DirectionRequest {
  /** Groups to move back; empty: every group of the flow's groups filter with offsets on its remote topics on the target. */
  readonly groups: readonly string[];
  readonly dryRun: boolean;
  /** Skip the check that producers no longer write to the target. */
  readonly force: boolean;
  /** How long the target's topics are watched for new records, ms. */
  readonly quietMs: number;
  /** How long reading the flow's offset syncs to their end may take, ms (30 s when not given). */
  readonly timeoutMs?: number;
}

export interface FailbackPartition {
  /** On the old primary (the flow's source). */
  readonly topic: string;
  /** On the new primary (the flow's target). */
  readonly remoteTopic: string;
  readonly partition: number;
  readonly preserved: boolean;
  /** The old primary's log: start and end. */
  readonly sourceStart: number;
  readonly sourceEnd: number;
  /** The new primary's log. */
  readonly targetStart: number;
  readonly targetEnd: number;
  /** On the new primary: its first record that is not a copy of the old primary's (its end when there is none). */
  readonly failoverPoint: number;
  /** Records the old primary holds that never reached the new one: cut and saved (preserved), or kept (translated). */
  readonly unmirrored: number;
  /** Offsets of the new primary received since the failover, copied back. */
  readonly copyBack: number;
  readonly action: 'nothing' | 'append' | 'restore' | 'copy-back';
  /** Where the copied records landed (after a real run). */
  readonly copied?: { readonly records: number; readonly fillers: number };
}

export interface FailbackGroup {
  readonly group: string;
  readonly stateOnTarget: GroupState;
  readonly stateOnSource: GroupState;
  /** Its offsets on the old primary after failback. */
  /**
   * Its offsets on the old primary after failback, and how each was found: `as-is` (preserved
   * offsets), `copied` (where the record it was at landed), `unmirrored-first` (the old primary
   * holds records that never reached the new one before those copied back: it reads those first,
   * then again those it read on the new primary: never skip), `offset-sync` (before the failover
   * point, through the flow's offset syncs), `kept` (its offset on the old primary was further).
   */
  readonly offsets: readonly (GroupOffset & { readonly from: number; readonly how: 'as-is' | 'copied' | 'unmirrored-first' | 'offset-sync' | 'kept' })[];
}

export interface FailbackReport {
  readonly source: string;
  readonly target: string;
  readonly dryRun: boolean;
  readonly startedAt: string;
  readonly partitions: readonly FailbackPartition[];
  /** Topics truncated and restored, and where their cut records were saved. */
  readonly restored: readonly { readonly topic: string; readonly savedTo: string; readonly saved: number }[];
  readonly groups: readonly FailbackGroup[];
  readonly steps: readonly ChangeStep[];
  readonly warnings: readonly string[];
}

const ACTIVE: ReadonlySet<GroupState> = new Set(['stable', 'preparing-rebalance', 'completing-rebalance', 'unknown']);

export async function failback(tools: PipelineTools, request: FailbackRequest): Promise<FailbackReport> {
  const startedAt = Date.now();
  const direction = tools.direction(request);
  const { source: a, target: b, flow } = direction;
  await Promise.all([tools.checkReachable(a), tools.checkReachable(b)]);
  const adminA = tools.admin(a);
  const adminB = tools.admin(b);
  const warnings: string[] = [];
  const steps: ChangeStep[] = [];
  const flowGroup = flowGroupId(tools.config.name, flow);

  // Checks, before anything changes.
  const flowState = (await firstValueFrom(adminA.describeGroups([flowGroup]))).get(flowGroup) ?? 'dead';
  if (ACTIVE.has(flowState))
    throw new FailoverRefusedError(
      `The flow ${a}->${b} is running (its group "${flowGroup}" on "${a}" is ${flowState}): it would copy to "${b}" while failback copies back. Stop every \`mirrorflow run\` of it, then run failback again. Nothing was changed.`,
    );
  steps.push(check(a, `the flow ${a}->${b} runs nowhere (its group "${flowGroup}" is ${flowState})`));
  const reports = await partitionReports(tools, direction, flowGroup);
  const remoteTopics = [...new Set(reports.map((p) => p.remoteTopic))];
  const groups = await groupsToMove(tools, direction, request.groups, remoteTopics);
  const states = async (admin: typeof adminA): Promise<ReadonlyMap<string, GroupState>> =>
    groups.length === 0 ? new Map() : firstValueFrom(admin.describeGroups(groups));
  const [onB, onA] = await Promise.all([states(adminB), states(adminA)]);
  const active = groups.flatMap((g) => [
    ...(ACTIVE.has(onB.get(g) ?? 'dead') ? [`group "${g}" has active members on "${b}" (${onB.get(g)}): stop its consumers there`] : []),
    ...(ACTIVE.has(onA.get(g) ?? 'dead') ? [`group "${g}" has active members on "${a}" (${onA.get(g)}): they must not run there before failback`] : []),
  ]);
  if (active.length > 0) throw new FailoverRefusedError(`Failback cannot go on:\n${active.map((x) => `  - ${x}`).join('\n')}\nNothing was changed.`);
  if (groups.length > 0) steps.push(check(b, `groups ${groups.map((g) => `"${g}"`).join(', ')} have no active members on "${b}" nor on "${a}"`));
  if (!request.force) {
    const written = await quietCheck(tools, b, remoteTopics, request.quietMs);
    if (written.length > 0 && !request.dryRun)
      throw new FailoverRefusedError(
        `Producers still write to "${b}": ${written.slice(0, 10).join(', ')} got records in ${request.quietMs} ms. Stop them (they move to "${a}" after failback), then run failback again, or --force. Nothing was changed.`,
      );
    if (written.length > 0)
      warnings.push(`Producers still write to "${b}" (${written.slice(0, 10).join(', ')}): failback would refuse until they stop (or --force).`);
    steps.push(check(b, `no record arrives on ${remoteTopics.join(', ')} for ${request.quietMs} ms (--quiet; --force skips this)`));
  }

  // Where each partition failed over, and what goes back.
  const syncs = await loadSyncs(tools, direction, reports, request.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  const partitions: FailbackPartition[] = [];
  // A few partitions at a time: each probe is a consumer of its own.
  for (let i = 0; i < reports.length; i += 8) partitions.push(...(await Promise.all(reports.slice(i, i + 8).map((r) => analyse(tools, direction, r, syncs)))));
  partitions.sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : x.partition - y.partition));
  const restoredTopics = [...new Set(partitions.filter((p) => p.action === 'restore').map((p) => p.topic))].sort();
  // A topic is restored whole: its other partitions too.
  const plan = partitions.map((p): FailbackPartition => (restoredTopics.includes(p.topic) && p.preserved ? { ...p, action: 'restore' } : p));
  const cutOf = (p: FailbackPartition): string => `${p.topic}-${p.partition} [${p.failoverPoint}, ${p.sourceEnd})`;

  const time = startedAt.toString(36);
  const restored = restoredTopics.map((topic) => ({
    topic,
    savedTo: `mirrorflow.failback.${topic}.${time}`,
    saved: plan.filter((p) => p.topic === topic).reduce((sum, p) => sum + p.unmirrored + Math.max(0, p.targetStart - p.sourceStart), 0),
  }));
  const oldOffsetsOnA = new Map<string, readonly GroupOffset[]>();
  for (const g of groups) oldOffsetsOnA.set(g, await firstValueFrom(adminA.fetchGroupOffsets(g)));
  const topicsOnA = new Map((await firstValueFrom(adminA.listTopics())).map((t) => [t.name, t]));
  const configsOnA = restoredTopics.length === 0 ? new Map() : await firstValueFrom(adminA.describeTopicConfigs(restoredTopics));
  for (const r of restored) {
    const parts = plan.filter((p) => p.topic === r.topic);
    const rf = topicsOnA.get(r.topic)?.replicationFactor;
    const overrides = (configsOnA.get(r.topic) ?? []).filter((c: { source: string }) => c.source === 'topic');
    steps.push(
      change(
        a,
        `create topic ${r.savedTo} (${parts.length} partitions) and save there, with their offsets in the header ${'mirrorflow.failback.offset'}, the ${r.saved} record(s) of ${r.topic} that are cut: ${
          parts
            .filter((p) => p.unmirrored > 0)
            .map(cutOf)
            .join(', ') || 'none after the failover point'
        }`,
      ),
      change(a, `delete topic ${r.topic} (with it go its records, and every group's committed offsets on it)`),
      change(
        a,
        `create topic ${r.topic} again: ${parts.length} partitions, replication factor ${rf ?? 'the cluster default'}${overrides.length === 0 ? '' : `, ${overrides.map((c: { name: string; value: string | null }) => `${c.name}=${c.value}`).join(', ')}`}`,
      ),
      ...parts.map((p) =>
        change(
          a,
          `restore ${p.topic}-${p.partition} from ${p.remoteTopic}-${p.partition} on ${b}: log start ${p.targetStart} (fillers, then DeleteRecords), then offsets ${p.targetStart} to ${p.targetEnd} at the same offsets`,
        ),
      ),
    );
  }
  for (const p of plan.filter((x) => x.action === 'append' || x.action === 'copy-back'))
    steps.push(
      change(
        a,
        p.action === 'append'
          ? `append ${p.remoteTopic}-${p.partition} offsets ${p.failoverPoint} to ${p.targetEnd} of ${b} to ${p.topic}-${p.partition}, at the same offsets`
          : `append ${p.remoteTopic}-${p.partition} offsets ${p.failoverPoint} to ${p.targetEnd} of ${b} (records received since the failover) to ${p.topic}-${p.partition}, after its end ${p.sourceEnd}`,
      ),
    );
  const copiedBack = plan.filter((p) => p.action === 'copy-back' && p.copyBack > 0);
  const place = offsetSyncsPlace(flow);
  if (copiedBack.length > 0)
    steps.push(
      change(
        place.cluster,
        `write offset syncs of the records copied back to ${direction.policy.offsetSyncsTopic(place.otherAlias)} (one per ${SYNC_EVERY}), so that checkpoints translate their offsets`,
      ),
    );
  steps.push(
    change(
      b,
      `store the flow's progress in ${progressTopicName(a)}: every partition at the end of ${a} after failback, so the flow copies only what ${a} gets from then on`,
    ),
  );
  for (const g of groups) steps.push(change(a, `commit the offsets of group "${g}" translated back from ${b}`));

  const unmirroredKept = plan.filter((p) => !p.preserved && p.unmirrored > 0);
  if (unmirroredKept.length > 0)
    warnings.push(
      `${unmirroredKept.reduce((s, p) => s + p.unmirrored, 0)} record(s) ${a} received before the failover never reached ${b} (${unmirroredKept.map((p) => `${p.topic}-${p.partition}: ${p.unmirrored}`).join(', ')}); they stay on ${a}, before the records copied back, and are not on ${b}.`,
    );
  const base = { source: a, target: b, startedAt: new Date(startedAt).toISOString(), restored, steps, warnings };
  if (request.dryRun) {
    const predicted = groups.map((g) => translateGroup(g, onB.get(g) ?? 'dead', onA.get(g) ?? 'dead', plan, syncs, undefined, oldOffsetsOnA.get(g) ?? []));
    return { ...base, dryRun: true, partitions: plan, groups: await Promise.all(predicted.map((x) => x(tools, b))) };
  }

  // The changes, in the order listed.
  const copies = new Map<string, { runs: readonly CopiedRun[]; records: number; fillers: number }>();
  for (const r of restored)
    await truncateAndRestore(tools, direction, r, plan, topicsOnA.get(r.topic)?.replicationFactor, configsOnA.get(r.topic) ?? [], copies);
  for (const p of plan.filter((x) => x.action === 'append' || x.action === 'copy-back')) {
    const result = await copyPartitions(tools, {
      fromCluster: b,
      fromTopic: p.remoteTopic,
      toCluster: a,
      toTopic: p.topic,
      ranges: new Map([[p.partition, { from: p.failoverPoint, to: p.targetEnd }]]),
      keepOffsets: p.action === 'append',
    });
    copies.set(topicPartitionKey(p), result.get(p.partition)!);
  }
  if (copiedBack.length > 0) await writeSyncs(tools, direction, copiedBack, copies);
  const endsOnA = new Map<string, number>();
  for (const topic of new Set(plan.map((p) => p.topic)))
    for (const o of await firstValueFrom(adminA.partitionOffsets(topic))) endsOnA.set(topicPartitionKey({ topic, partition: o.partition }), o.latest);
  await storeProgress(tools, direction, endsOnA);
  const moved: FailbackGroup[] = [];
  for (const g of groups) {
    const translated = await translateGroup(g, onB.get(g) ?? 'dead', onA.get(g) ?? 'dead', plan, syncs, copies, oldOffsetsOnA.get(g) ?? [])(tools, b);
    const offsets = translated.offsets.map(({ from: _from, how: _how, ...o }) => o);
    if (offsets.length > 0) await firstValueFrom(adminA.commitGroupOffsets(g, offsets));
    moved.push(translated);
  }
  return {
    ...base,
    dryRun: false,
    partitions: plan.map((p) => {
      const c = copies.get(topicPartitionKey(p));
      return c === undefined ? p : { ...p, copied: { records: c.records, fillers: c.fillers } };
    }),
    groups: moved,
  };
}

/** The groups to move back: those asked for, or every group of the flow's filter with offsets on its remote topics on the target. */
async function groupsToMove(
  tools: PipelineTools,
  { target, flow }: FlowDirection,
  asked: readonly string[],
  remoteTopics: readonly string[],
): Promise<string[]> {
  if (asked.length > 0) return [...asked];
  const admin = tools.admin(target);
  const filter = new DefaultGroupFilter({ include: flow.checkpoints.groups, exclude: flow.checkpoints.groups_exclude });
  const wanted = new Set(remoteTopics);
  const found: string[] = [];
  for (const g of (await firstValueFrom(admin.listGroups())).filter((x) => filter.shouldReplicateGroup(x) && !x.startsWith('mirrorflow')).sort())
    if ((await firstValueFrom(admin.fetchGroupOffsets(g))).some((o) => wanted.has(o.topic))) found.push(g);
  return found;
}

/** Partitions of `topics` on `cluster` whose end moved within `quietMs`. */
async function quietCheck(tools: PipelineTools, cluster: string, topics: readonly string[], quietMs: number): Promise<string[]> {
  const admin = tools.admin(cluster);
  const ends = async (): Promise<Map<string, number>> => {
    const out = new Map<string, number>();
    const existing = new Set((await firstValueFrom(admin.listTopics())).map((t) => t.name));
    for (const topic of topics.filter((t) => existing.has(t)))
      for (const p of await firstValueFrom(admin.partitionOffsets(topic))) out.set(`${topic}-${p.partition}`, p.latest);
    return out;
  };
  const before = await ends();
  await delay(quietMs);
  const after = await ends();
  return [...after].filter(([k, end]) => end !== before.get(k)).map(([k, end]) => `${k} (${end - (before.get(k) ?? 0)} record(s))`);
}

/**
 * The flow's offset syncs, to find where partitions were copied to: read to their end within
 * `timeoutMs`, holding the offset each translated partition is translated at (the last one the
 * flow copied), so the nearest sync at or before it is kept and the copy is looked for from there.
 */
async function loadSyncs(
  tools: PipelineTools,
  direction: FlowDirection,
  reports: readonly { topic: string; partition: number; preserved: boolean; replicatedTo: number }[],
  timeoutMs: number,
): Promise<OffsetSyncStore | undefined> {
  const hold = reports.filter((r) => !r.preserved && r.replicatedTo > 0).map((r) => ({ topic: r.topic, partition: r.partition, offset: r.replicatedTo - 1 }));
  return (await loadOffsetSyncs(tools, direction, hold, timeoutMs)).store;
}

/** Where one partition failed over, from the data on both clusters, and what failback does with it. */
async function analyse(
  tools: PipelineTools,
  { source: a, target: b }: FlowDirection,
  r: { topic: string; remoteTopic: string; partition: number; preserved: boolean; replicatedTo: number },
  syncs: OffsetSyncStore | undefined,
): Promise<FailbackPartition> {
  const bounds = async (cluster: string, topic: string): Promise<{ earliest: number; latest: number }> =>
    (await firstValueFrom(tools.admin(cluster).partitionOffsets(topic))).find((p) => p.partition === r.partition) ?? { earliest: 0, latest: 0 };
  const onB = (await firstValueFrom(tools.admin(b).listTopics())).some((t) => t.name === r.remoteTopic);
  const sa = await bounds(a, r.topic);
  const sb = onB ? await bounds(b, r.remoteTopic) : { earliest: 0, latest: 0 };
  const base = {
    topic: r.topic,
    remoteTopic: r.remoteTopic,
    partition: r.partition,
    preserved: r.preserved,
    sourceStart: sa.earliest,
    sourceEnd: sa.latest,
    targetStart: sb.earliest,
    targetEnd: sb.latest,
  };
  if (r.preserved) {
    // Same offsets on both: the first where their records differ.
    const lo = Math.max(sa.earliest, sb.earliest);
    const hi = Math.min(sa.latest, sb.latest);
    const same = async (offset: number): Promise<boolean> => {
      const [x, y] = await Promise.all([
        recordAtExactly(tools, a, r.topic, r.partition, offset),
        recordAtExactly(tools, b, r.remoteTopic, r.partition, offset),
      ]);
      return x !== undefined && y !== undefined && recordDigest(x) === recordDigest(y);
    };
    const point = await firstWhereNot(lo, hi, same);
    const unmirrored = Math.max(0, sa.latest - point);
    const copyBack = Math.max(0, sb.latest - point);
    return { ...base, failoverPoint: point, unmirrored, copyBack, action: unmirrored > 0 ? 'restore' : copyBack > 0 ? 'append' : 'nothing' };
  }
  // Translated: B's copies of A's records from the newest offset sync below the flow's progress on, then its own.
  const progress = r.replicatedTo;
  const tp = { topic: r.topic, partition: r.partition };
  let sync: StoredSync | undefined;
  if (progress > 0) {
    const found = syncs?.translate(tp, progress - 1);
    if (found === undefined)
      throw new MirrorflowError(
        `No offset syncs of the flow ${a}->${b} for ${r.topic}-${r.partition}, so where its copy on "${b}" ends cannot be found. Nothing was changed.`,
      );
    // Older than every sync kept (a compacted sync topic): the oldest kept, whose copy is older still.
    sync = found.sync ?? syncs!.syncFor(tp, SYNCS_PER_PARTITION - 1);
  }
  const from = sync?.downstreamOffset ?? sb.earliest;
  const copies =
    sync === undefined ? new Set<string>() : await digestsOf(tools, a, r.topic, r.partition, sync.upstreamOffset, Math.min(sa.latest, progress + COPY_WINDOW));
  const isCopy = async (offset: number): Promise<boolean> => {
    const y = await tools.reader(b).recordAt(r.remoteTopic, r.partition, offset);
    return y !== undefined && copies.has(recordDigest(y));
  };
  const point = onB ? await firstWhereNot(Math.max(from, sb.earliest), sb.latest, isCopy) : 0;
  const copyBack = Math.max(0, sb.latest - point);
  return { ...base, failoverPoint: point, unmirrored: Math.max(0, sa.latest - progress), copyBack, action: copyBack > 0 ? 'copy-back' : 'nothing' };
}

/** Saves what is cut, deletes the topic, creates it again and restores every partition from the target. */
async function truncateAndRestore(
  tools: PipelineTools,
  { source: a, target: b }: FlowDirection,
  r: { topic: string; savedTo: string },
  plan: readonly FailbackPartition[],
  replicationFactor: number | undefined,
  configs: readonly { name: string; value: string | null; source: string }[],
  copies: Map<string, { runs: readonly CopiedRun[]; records: number; fillers: number }>,
): Promise<void> {
  const admin = tools.admin(a);
  const parts = plan.filter((p) => p.topic === r.topic);
  await firstValueFrom(admin.createTopics([{ name: r.savedTo, partitions: parts.length, replicationFactor: replicationFactor ?? -1, configs: {} }]));
  const saved = new Map<number, { from: number; to: number }>();
  for (const p of parts) {
    // What the new log will not hold: after the failover point, and before the target's log start.
    if (p.targetStart > p.sourceStart) saved.set(p.partition, { from: p.sourceStart, to: p.sourceEnd });
    else if (p.unmirrored > 0) saved.set(p.partition, { from: p.failoverPoint, to: p.sourceEnd });
  }
  if (saved.size > 0)
    await copyPartitions(tools, {
      fromCluster: a,
      fromTopic: r.topic,
      toCluster: a,
      toTopic: r.savedTo,
      ranges: saved,
      keepOffsets: false,
      savedOffsets: true,
    });
  await firstValueFrom(admin.deleteTopics([r.topic]), { defaultValue: undefined });
  const overrides = Object.fromEntries(configs.filter((c) => c.source === 'topic' && c.value !== null).map((c) => [c.name, c.value!]));
  await firstValueFrom(admin.createTopics([{ name: r.topic, partitions: parts.length, replicationFactor: replicationFactor ?? -1, configs: overrides }]));
  for (const p of parts) await startPartitionAt(tools, a, r.topic, p.partition, p.targetStart);
  const result = await copyPartitions(tools, {
    fromCluster: b,
    fromTopic: parts[0]!.remoteTopic,
    toCluster: a,
    toTopic: r.topic,
    ranges: new Map(parts.map((p) => [p.partition, { from: p.targetStart, to: p.targetEnd }])),
    keepOffsets: true,
  });
  for (const p of parts) copies.set(topicPartitionKey(p), result.get(p.partition) ?? { runs: [], records: 0, fillers: 0 });
}

/** Offset syncs of the records copied back: upstream on the old primary, downstream where they came from on the new one. */
async function writeSyncs(
  tools: PipelineTools,
  { flow, policy }: FlowDirection,
  copied: readonly FailbackPartition[],
  copies: ReadonlyMap<string, { runs: readonly CopiedRun[] }>,
): Promise<void> {
  const place = offsetSyncsPlace(flow);
  const topic = policy.offsetSyncsTopic(place.otherAlias);
  const records: OutboundRecord[] = [];
  for (const p of copied) {
    const runs = copies.get(topicPartitionKey(p))?.runs ?? [];
    for (const run of runs)
      for (let i = 0; i < run.count; i += SYNC_EVERY) {
        const tp = { topic: p.topic, partition: p.partition };
        records.push({
          topic,
          partition: 0,
          timestamp: Date.now(),
          key: encodeOffsetSyncKey(tp),
          value: encodeOffsetSyncValue({ topicPartition: tp, upstreamOffset: run.at + i, downstreamOffset: run.from + i }),
          headers: [],
        });
      }
  }
  if (records.length > 0) await lastValueFrom(tools.writer(place.cluster).write(records));
}

/** The flow's progress (MM2's Connect offsets on the target) at `ends`, so a restarted flow goes on from there. */
async function storeProgress(tools: PipelineTools, { source, target }: FlowDirection, ends: ReadonlyMap<string, number>): Promise<void> {
  const topic = progressTopicName(source);
  const described = (await firstValueFrom(tools.admin(target).listTopics())).find((t) => t.name === topic);
  if (described === undefined) return;
  const records: OutboundRecord[] = [];
  for (const [k, end] of ends) {
    if (end === 0) continue;
    const sep = k.lastIndexOf('-');
    const key = encodeSourceOffsetKey({ sourceClusterAlias: source, topic: k.slice(0, sep), partition: Number(k.slice(sep + 1)) });
    records.push({
      topic,
      partition: connectOffsetsPartition(key, described.partitions),
      timestamp: Date.now(),
      key,
      value: encodeConnectOffsetValue(end - 1),
      headers: [],
    });
  }
  if (records.length > 0) await lastValueFrom(tools.writer(target).write(records));
}

/** A group's offsets on the new primary, translated back to the old one. */
function translateGroup(
  group: string,
  stateOnTarget: GroupState,
  stateOnSource: GroupState,
  plan: readonly FailbackPartition[],
  syncs: OffsetSyncStore | undefined,
  copies: ReadonlyMap<string, { runs: readonly CopiedRun[] }> | undefined,
  before: readonly GroupOffset[],
): (tools: PipelineTools, target: string) => Promise<FailbackGroup> {
  return async (tools, target) => {
    const onTarget = await firstValueFrom(tools.admin(target).fetchGroupOffsets(group));
    const byRemote = new Map(plan.map((p) => [topicPartitionKey({ topic: p.remoteTopic, partition: p.partition }), p]));
    const offsets: FailbackGroup['offsets'][number][] = [];
    for (const o of onTarget) {
      const p = byRemote.get(topicPartitionKey(o));
      if (p === undefined) continue;
      const old = before.find((x) => x.topic === p.topic && x.partition === p.partition)?.offset;
      const at = (offset: number, how: FailbackGroup['offsets'][number]['how']) => ({
        topic: p.topic,
        partition: p.partition,
        offset,
        metadata: o.metadata,
        from: o.offset,
        how,
      });
      if (p.preserved) {
        offsets.push(at(o.offset, 'as-is'));
        continue;
      }
      if (o.offset >= p.failoverPoint && p.copyBack > 0) {
        // Past the failover point: where the records landed (predicted for a dry run: appended after the end).
        const runs = copies?.get(topicPartitionKey(p))?.runs;
        const landed = runs === undefined ? p.sourceEnd + (o.offset - p.failoverPoint) : (landedAt(runs, o.offset) ?? p.sourceEnd);
        // Records of the source that never reached the target come before those copied back: the
        // group never read them, so it starts there and reads again what it read on the target.
        const unread = p.sourceEnd - p.unmirrored;
        offsets.push(p.unmirrored > 0 && (old ?? 0) < p.sourceEnd ? at(Math.max(old ?? unread, unread), 'unmirrored-first') : at(landed, 'copied'));
        continue;
      }
      const back = inverse(syncs, p, o.offset);
      if (back === undefined) {
        if (old !== undefined) offsets.push(at(old, 'kept'));
        continue;
      }
      offsets.push(at(Math.max(back, old ?? 0), old !== undefined && old > back ? 'kept' : 'offset-sync'));
    }
    return { group, stateOnTarget, stateOnSource, offsets };
  };
}

/** A target offset of a translated partition back on the source, through the flow's offset syncs: never past what the group read. */
function inverse(syncs: OffsetSyncStore | undefined, p: FailbackPartition, offset: number): number | undefined {
  if (syncs === undefined) return undefined;
  let best: StoredSync | undefined;
  const tp = { topic: p.topic, partition: p.partition };
  for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
    let sync: StoredSync;
    try {
      sync = syncs.syncFor(tp, i);
    } catch {
      return undefined;
    }
    if (sync.downstreamOffset <= offset && (best === undefined || sync.downstreamOffset > best.downstreamOffset)) best = sync;
  }
  if (best === undefined) return undefined;
  return best.upstreamOffset + (offset > best.downstreamOffset ? 1 : 0);
}
