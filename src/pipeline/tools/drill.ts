// size: one command, read, act and report in the order docs/drills-and-failback.md describes; the report's shapes are half of it.
/**
 * `mirrorflow drill FILE --group G`: rehearses the failover of consumer group G while
 * replication goes on, and measures it, for a DR test an auditor reads.
 *
 * At the drill point (its start) it reads, without writing: G's translated offsets on the target
 * (the checkpoints, as `failover` would commit them), what of the source is not on the target yet
 * (the RPO), and the end of each remote partition G reads. Then a drill group of its own
 * (`mirrorflow-drill.<G>.<time>`) is given G's translated offsets on the target and consumes the
 * remote topics, as G's consumers would after a failover, up to those ends: the time from the
 * drill point until it got there is the RTO. The records it reads before the one G consumed last
 * on the source are what G would read again. The drill group is deleted afterwards, also when
 * the drill fails or is interrupted (a drill killed outright leaves it; the next drill of G
 * deletes it). G itself is only read, on both clusters.
 */
import { EMPTY, type Observable, firstValueFrom, lastValueFrom, takeUntil, fromEvent, tap, timeout } from '#rxjs';
import { setTimeout as delay } from 'node:timers/promises';
import { describeError, MirrorflowError } from '../../core/errors';
import type { GroupOffset, GroupState } from '../../core/ports/cluster-admin';
import type { KafkaRecord } from '../../core/record';
import { recordDigest } from '../../flow/replication/offset-preservation';
import { GroupActiveError } from '../../core/ports/cluster-admin';
import { flowGroupId } from '../flow-names';
import { planFailover, type FailoverPlan } from './failover';
import { partitionReports, type PartitionReport } from './migrate-report';
import type { DirectionRequest, PipelineTools } from './pipeline-tools';
import { change, check, describeOffsets, type ChangeStep } from './change-steps';

export interface DrillRequest extends DirectionRequest {
  readonly group: string;
  readonly dryRun: boolean;
  /** Reading internal topics to their end gives up after this long, ms. */
  readonly timeoutMs?: number;
  /** How long the drill consumer may take to reach the end, ms. */
  readonly maxConsumeMs: number;
  /** Aborting it stops the drill; the drill group is deleted all the same. */
  readonly signal?: AbortSignal;
  /** Told how far the drill consumer got, now and then. */
  readonly progress?: (read: number, remaining: number) => void;
  /** The drill group's name (tests); default `mirrorflow-drill.<group>.<drill point, base 36>`. */
  readonly drillGroup?: string;
}

/** Records of the source not on the target at the drill point, per partition G reads. */
export interface RpoPartition {
  readonly topic: string;
  readonly remoteTopic: string;
  readonly partition: number;
  readonly sourceEnd: number;
  /** The next source offset the target does not hold (by the flow's stored progress, or the target's end where offsets are preserved). */
  readonly replicatedTo: number;
  readonly missing: number;
  /** Source timestamp of the oldest record missing (ISO-8601). */
  readonly oldestMissingAt?: string;
  /** How long before the drill point that record was written, s. */
  readonly seconds?: number;
}

export interface DrillPartition {
  /** On the target. */
  readonly topic: string;
  readonly partition: number;
  /** Where the drill group started: G's translated offset, or the log start where G has no checkpoint. */
  readonly start: number;
  readonly startFrom: 'checkpoint' | 'preserved' | 'log-start';
  /** The partition's end at the drill point: the drill consumer reads up to it. */
  readonly end: number;
  /** Records the drill consumer read. */
  readonly read: number;
  /** G's committed offset on the source at the drill point. */
  readonly sourceOffset?: number;
  /**
   * Records G would read again after a failover: those from `start` up to and including the copy
   * of the last record G consumed on the source.
   */
  readonly readAgain: number;
  /**
   * - `preserved`: the partition keeps its source offsets: `sourceOffset − start`;
   * - `matched`: the copy of G's last record was found at `matchedAt`;
   * - `not-on-target`: G's last record is not on the target yet (RPO): it would read again all it read;
   * - `nothing-consumed`: G has no offset here, or consumed nothing.
   */
  readonly readAgainBy: 'preserved' | 'matched' | 'not-on-target' | 'nothing-consumed';
  readonly matchedAt?: number;
}

export interface DrillReport {
  readonly group: string;
  readonly source: string;
  readonly target: string;
  readonly drillGroup: string;
  readonly dryRun: boolean;
  /** The drill point (ISO-8601). */
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** Null when the source could not be read (then `warnings` says why). */
  readonly rpo: { readonly records: number; readonly seconds: number; readonly partitions: readonly RpoPartition[] } | null;
  /** From the drill point until the drill consumer read every partition to its end; absent for a dry run. */
  readonly rto?: {
    readonly seconds: number;
    /** How the time was spent: reading checkpoints and the clusters, committing the drill group, consuming. */
    readonly phases: { readonly prepareMs: number; readonly commitMs: number; readonly consumeMs: number };
    readonly recordsRead: number;
  };
  /** Records G would read again, over its partitions; absent for a dry run. */
  readonly readAgain?: number;
  readonly partitions: readonly DrillPartition[];
  /** G's state on each cluster, read and never changed. */
  readonly groupState: { readonly target: GroupState; readonly source?: GroupState };
  readonly steps: readonly ChangeStep[];
  /** `deleted`, or why the drill group could not be deleted. */
  readonly cleanup?: string;
  readonly warnings: readonly string[];
}

/** Drill groups of G: a prefix no application uses. */
export function drillGroupPrefix(group: string): string {
  return `mirrorflow-drill.${group}.`;
}

export async function drill(tools: PipelineTools, request: DrillRequest): Promise<DrillReport> {
  const t0 = Date.now();
  const direction = tools.direction(request);
  const { source, target } = direction;
  await tools.checkReachable(target);
  const targetAdmin = tools.admin(target);
  const drillGroup = request.drillGroup ?? `${drillGroupPrefix(request.group)}${t0.toString(36)}`;
  const warnings: string[] = [];

  // 1. Read, at the drill point: the source's lag, G's translation, the target's ends.
  const rpoAtDrillPoint = measureLag(tools, direction);
  rpoAtDrillPoint.catch(() => undefined); // Awaited below; a failure is reported as a warning there.
  const plan = await planFailover(tools, {
    from: request.from,
    to: request.to,
    group: request.group,
    force: false,
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
  });
  warnings.push(...plan.warnings.filter((w) => !/still has active members/.test(w)));
  const topics = [...new Set(plan.partitions.filter((p) => p.action !== 'missing-partition').map((p) => p.topic))].sort();
  const ends = new Map<string, { earliest: number; latest: number }>();
  for (const topic of topics) for (const p of await firstValueFrom(targetAdmin.partitionOffsets(topic))) ends.set(`${topic}-${p.partition}`, p);
  const rpo = await rpoAtDrillPoint
    .then((all) => rpoOf(tools, source, all, topics, t0))
    .catch((error: unknown) => {
      warnings.push(`The RPO could not be measured: cluster "${source}" could not be read (${describeError(error)}).`);
      return null;
    });
  const leftovers = await leftoverDrillGroups(tools, target, request.group, drillGroup);
  const taken = (await firstValueFrom(targetAdmin.describeGroups([drillGroup]))).get(drillGroup) ?? 'dead';
  if (taken !== 'dead') throw new MirrorflowError(`The drill group "${drillGroup}" already exists on "${target}" (state ${taken}); choose another name.`);

  // 2. Where the drill group starts: what a failover would commit for G.
  const byKey = new Map(plan.partitions.map((p) => [`${p.topic}-${p.partition}`, p]));
  const starts: (GroupOffset & { from: DrillPartition['startFrom'] })[] = [];
  for (const [key, bounds] of [...ends].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const p = byKey.get(key);
    const topic = key.slice(0, key.lastIndexOf('-'));
    const partition = Number(key.slice(key.lastIndexOf('-') + 1));
    if (p?.translatedOffset !== undefined && p.action !== 'missing-partition') {
      starts.push({
        topic,
        partition,
        offset: Math.min(p.translatedOffset, bounds.latest),
        metadata: '',
        from: p.preserved === true ? 'preserved' : 'checkpoint',
      });
    } else {
      starts.push({ topic, partition, offset: bounds.earliest, metadata: '', from: 'log-start' });
    }
  }
  const committed = starts.filter((s) => s.from !== 'log-start');
  const unchecked = starts.filter((s) => s.from === 'log-start');
  if (unchecked.length > 0)
    warnings.push(
      `${unchecked.length} partition(s) G has no checkpoint for are read from their log start by the drill group (${unchecked.map((s) => `${s.topic}-${s.partition}`).join(', ')}); after a real failover their auto.offset.reset decides.`,
    );

  const steps: ChangeStep[] = [
    check(target, `group "${request.group}" is read (${plan.targetState}), never written; its checkpoints in ${plan.checkpointsTopic} give its offsets`),
    ...leftovers.map((g) => change(target, `delete the drill group "${g}" an interrupted drill left (it has no members)`)),
    change(target, `commit ${committed.length} offset(s) of the drill group "${drillGroup}" (the group is created): ${describeOffsets(committed)}`),
    change(
      target,
      `consume ${topics.join(', ')} as the drill group, committing as it reads, up to the ends at the drill point: ${describeOffsets(
        [...ends].map(([k, b]) => ({ topic: k.slice(0, k.lastIndexOf('-')), partition: Number(k.slice(k.lastIndexOf('-') + 1)), offset: b.latest })),
      )}`,
    ),
    change(target, `delete the drill group "${drillGroup}" (also when the drill fails or is interrupted)`),
  ];
  const base = {
    group: request.group,
    source,
    target,
    drillGroup,
    dryRun: request.dryRun,
    startedAt: new Date(t0).toISOString(),
    rpo,
    groupState: { target: plan.targetState, ...(plan.sourceState === undefined ? {} : { source: plan.sourceState }) },
    steps,
    warnings,
  };
  if (request.dryRun) {
    return {
      ...base,
      partitions: starts.map((s) => ({
        topic: s.topic,
        partition: s.partition,
        start: s.offset,
        startFrom: s.from,
        end: ends.get(`${s.topic}-${s.partition}`)!.latest,
        read: 0,
        readAgain: 0,
        readAgainBy: 'nothing-consumed' as const,
        ...sourceOffsetOf(byKey.get(`${s.topic}-${s.partition}`)),
      })),
    };
  }

  // G's last consumed record on the source, per partition, to find its copy while consuming.
  const lastConsumed = new Map<string, string>();
  const remoteToSource = new Map(rpo?.partitions.map((p) => [p.remoteTopic, p.topic]) ?? []);
  for (const s of starts) {
    const p = byKey.get(`${s.topic}-${s.partition}`);
    if (p?.sourceOffset === undefined || p.sourceOffset === 0 || s.from === 'preserved') continue;
    const sourceTopic = remoteToSource.get(s.topic) ?? direction.policy.upstreamTopic(s.topic) ?? s.topic;
    const record = await tools
      .reader(source)
      .recordAt(sourceTopic, s.partition, p.sourceOffset - 1)
      .catch((error: unknown) => {
        warnings.push(
          `The last record group "${request.group}" consumed of ${sourceTopic}-${s.partition} could not be read on "${source}" (${describeError(error)}): the records it would read again there are not counted.`,
        );
        return undefined;
      });
    if (record !== undefined && record.offset === p.sourceOffset - 1) lastConsumed.set(`${s.topic}-${s.partition}`, recordDigest(record));
  }
  // Where the checkpoint is exact (an offset sync at G's offset), the copy of G's last record is the
  // one just before the start: G reads nothing of it again, and the drill consumer never sees it.
  const matchedAt = new Map<string, number>();
  for (const s of starts) {
    const key = `${s.topic}-${s.partition}`;
    const wanted = lastConsumed.get(key);
    if (wanted === undefined || s.offset === 0 || s.offset - 1 < ends.get(key)!.earliest) continue;
    const before = await tools
      .reader(target)
      .recordAt(s.topic, s.partition, s.offset - 1)
      .catch((error: unknown) => {
        warnings.push(`The record before the drill's start on ${s.topic}-${s.partition} could not be read on "${target}" (${describeError(error)}).`);
        return undefined;
      });
    if (before !== undefined && before.offset === s.offset - 1 && recordDigest(before) === wanted) matchedAt.set(key, before.offset);
  }
  const prepared = Date.now();

  // 3. The drill itself; the drill group is deleted whatever happens.
  for (const g of leftovers)
    await deleteDrillGroup(tools, target, g).catch((error: unknown) => {
      warnings.push(`The drill group "${g}" an interrupted drill left could not be deleted (${describeError(error)}).`);
    });
  const read = new Map<string, number>();
  let commitMs = 0;
  let consumeMs = 0;
  let cleanup = 'deleted';
  try {
    if (committed.length > 0)
      await firstValueFrom(
        targetAdmin.commitGroupOffsets(
          drillGroup,
          committed.map(({ from: _from, ...o }) => o),
        ),
      );
    commitMs = Date.now() - prepared;
    const endOffsets = new Map([...ends].map(([k, b]) => [k, b.latest]));
    const total = starts.reduce((sum, s) => sum + Math.max(0, endOffsets.get(`${s.topic}-${s.partition}`)! - s.offset), 0);
    let seen = 0;
    const aborted$: Observable<unknown> = request.signal === undefined ? EMPTY : fromEvent(request.signal, 'abort');
    const ticker = setInterval(() => request.progress?.(seen, Math.max(0, total - seen)), 1000);
    try {
      await lastValueFrom(
        tools
          .groupReader(target)
          .readAsGroup(drillGroup, topics, { ends: endOffsets })
          .pipe(
            tap((batch) => {
              const key = `${batch.topic}-${batch.partition}`;
              const end = endOffsets.get(key) ?? Number.POSITIVE_INFINITY;
              const wanted = lastConsumed.get(key);
              for (const r of batch.records) {
                if (r.offset >= end) break;
                read.set(key, (read.get(key) ?? 0) + 1);
                seen++;
                if (wanted !== undefined && !matchedAt.has(key) && recordDigest(r as KafkaRecord) === wanted) matchedAt.set(key, r.offset);
              }
            }),
            timeout({
              first: request.maxConsumeMs,
              each: request.maxConsumeMs,
              with: () => {
                throw new MirrorflowError(
                  `The drill consumer did not reach the end of ${topics.join(', ')} on "${target}" within ${request.maxConsumeMs} ms (--max-wait).`,
                );
              },
            }),
            takeUntil(aborted$),
          ),
        { defaultValue: undefined },
      );
    } finally {
      clearInterval(ticker);
    }
    if (request.signal?.aborted === true) throw new DrillInterruptedError(drillGroup);
    consumeMs = Date.now() - prepared - commitMs;
  } finally {
    cleanup = await deleteDrillGroup(tools, target, drillGroup).then(
      () => 'deleted',
      (error: unknown) =>
        `could not be deleted (${describeError(error)}); delete it with kafka-consumer-groups --delete --group ${drillGroup}, or run the drill again`,
    );
  }
  const finished = Date.now();
  const partitions: DrillPartition[] = starts.map((s) => {
    const key = `${s.topic}-${s.partition}`;
    const p = byKey.get(key);
    const end = ends.get(key)!.latest;
    const count = read.get(key) ?? 0;
    const again = readAgainOf(s, p, end, count, matchedAt.get(key), lastConsumed.has(key));
    return { topic: s.topic, partition: s.partition, start: s.offset, startFrom: s.from, end, read: count, ...sourceOffsetOf(p), ...again };
  });
  return {
    ...base,
    finishedAt: new Date(finished).toISOString(),
    rto: {
      // Until the drill consumer had read everything: deleting its group afterwards (waiting for
      // the consumer to leave it) is the drill's own work, not the failover's.
      seconds: (prepared + commitMs + consumeMs - t0) / 1000,
      phases: { prepareMs: prepared - t0, commitMs, consumeMs },
      recordsRead: [...read.values()].reduce((a, b) => a + b, 0),
    },
    readAgain: partitions.reduce((sum, p) => sum + p.readAgain, 0),
    partitions,
    cleanup,
  };
}

/** The drill was interrupted (SIGINT, SIGTERM); its group was deleted. */
export class DrillInterruptedError extends MirrorflowError {
  override readonly name = 'DrillInterruptedError';
  override readonly code = 'DRILL_INTERRUPTED';

  constructor(readonly drillGroup: string) {
    super(`The drill was interrupted; its group "${drillGroup}" was deleted, and group it rehearsed was not touched.`);
  }
}

function sourceOffsetOf(p: FailoverPlan['partitions'][number] | undefined): { sourceOffset?: number } {
  return p?.sourceOffset === undefined ? {} : { sourceOffset: p.sourceOffset };
}

function readAgainOf(
  s: { offset: number; from: DrillPartition['startFrom'] },
  p: FailoverPlan['partitions'][number] | undefined,
  end: number,
  read: number,
  matched: number | undefined,
  looked: boolean,
): Pick<DrillPartition, 'readAgain' | 'readAgainBy' | 'matchedAt'> {
  if (p?.sourceOffset === undefined || p.sourceOffset === 0) return { readAgain: 0, readAgainBy: 'nothing-consumed' };
  if (s.from === 'preserved') return { readAgain: Math.max(0, Math.min(p.sourceOffset, end) - s.offset), readAgainBy: 'preserved' };
  if (matched !== undefined) return { readAgain: matched - s.offset + 1, readAgainBy: 'matched', matchedAt: matched };
  return looked ? { readAgain: read, readAgainBy: 'not-on-target' } : { readAgain: 0, readAgainBy: 'nothing-consumed' };
}

/**
 * The RPO over the partitions of `remoteTopics` (the topics G reads), from the flow's partition
 * reports at the drill point: records of the source not on the target (by the flow's stored
 * progress, written every progress.flush_interval_ms, so this errs on the side of more; by the
 * target's end where offsets are preserved), and how long before the drill point the oldest of
 * them was written.
 */
async function rpoOf(
  tools: PipelineTools,
  source: string,
  all: readonly PartitionReport[],
  remoteTopics: readonly string[],
  t0: number,
): Promise<NonNullable<DrillReport['rpo']>> {
  const wanted = new Set(remoteTopics);
  const partitions: RpoPartition[] = [];
  for (const p of all.filter((r) => wanted.has(r.remoteTopic)).sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))) {
    let oldest: { oldestMissingAt: string; seconds: number } | undefined;
    if (p.lag > 0) {
      const record = await tools.reader(source).recordAt(p.topic, p.partition, p.replicatedTo);
      if (record !== undefined) oldest = { oldestMissingAt: new Date(record.timestamp).toISOString(), seconds: Math.max(0, t0 - record.timestamp) / 1000 };
    }
    partitions.push({
      topic: p.topic,
      remoteTopic: p.remoteTopic,
      partition: p.partition,
      sourceEnd: p.sourceEnd,
      replicatedTo: p.replicatedTo,
      missing: p.lag,
      ...(oldest ?? {}),
    });
  }
  return {
    records: partitions.reduce((sum, p) => sum + p.missing, 0),
    seconds: Math.max(0, ...partitions.map((p) => p.seconds ?? 0)),
    partitions,
  };
}

/** Every replicated partition of the flow at the drill point. */
async function measureLag(tools: PipelineTools, direction: ReturnType<PipelineTools['direction']>): Promise<PartitionReport[]> {
  await tools.checkReachable(direction.source);
  return partitionReports(tools, direction, flowGroupId(tools.config.name, direction.flow));
}
/** Drill groups of G an earlier drill left behind (killed before it could delete them), without members. */
async function leftoverDrillGroups(tools: PipelineTools, target: string, group: string, current: string): Promise<string[]> {
  const admin = tools.admin(target);
  const prefix = drillGroupPrefix(group);
  const found = (await firstValueFrom(admin.listGroups())).filter((g) => g.startsWith(prefix) && g !== current);
  if (found.length === 0) return [];
  const states = await firstValueFrom(admin.describeGroups(found));
  return found.filter((g) => states.get(g) === 'empty' || states.get(g) === 'dead').sort();
}

/** Deletes the drill group once its consumer has left (the broker refuses to delete a group with members). */
async function deleteDrillGroup(tools: PipelineTools, target: string, drillGroup: string): Promise<void> {
  const admin = tools.admin(target);
  for (let attempt = 0; ; attempt++) {
    try {
      await firstValueFrom(admin.deleteGroups([drillGroup]));
      return;
    } catch (error) {
      if (!(error instanceof GroupActiveError) || attempt >= 60) throw error;
      await delay(500);
    }
  }
}
