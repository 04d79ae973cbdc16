/**
 * `mirrorflow migrate FILE cutover|finish`: the steps of moving consumers and producers from a
 * flow's source to its target, each resumable and recorded in the migration's state topic on the
 * target (src/flow/migration-state.ts), which every process running the flow honours.
 *
 * cutover, per group: refuse when it has active members on the target; record `sync-stopped` (the
 * flow's group offset sync leaves it alone from its next pass); wait until the target holds every
 * record below the group's source offsets and, on translated partitions, the checkpoints have
 * caught up with them; commit on the target as `failover` does (preserved partitions: the source
 * offset as it is; translated ones: through the checkpoints, never moving an offset backwards);
 * record `cut-over` with what was committed. A step that crashed is run again from its state.
 *
 * finish: refuse while the source topics still get records (unless forced); wait until nothing is
 * left to replicate; record `stopping` (every process stops the flow: drained, progress stored);
 * wait until no process runs it (its source group is empty); record `finished`.
 */
import { firstValueFrom, lastValueFrom } from '#rxjs';
import { setTimeout as delay } from 'node:timers/promises';
import { describeError } from '../../core/errors';
import { migrationRecord, readMigrationState, type CommittedOffset, type MigrationEntry, type MigrationState } from '../../flow/migration-state';
import { executeFailover, planFailover, type FailoverPlan } from './failover';
import { migrationReport, partitionReports, type MigrationReport, type PartitionReport } from './migrate-report';
import type { DirectionRequest, PipelineTools } from './pipeline-tools';
import { FailoverRefusedError, MigrationRefusedError } from './tool-errors';
import { change, check, describeOffsets, wait, type ChangeStep } from './change-steps';

/** How often a waiting step looks again. */
const POLL_MS = 1_000;

export interface MigrateStepRequest extends DirectionRequest {
  readonly dryRun: boolean;
  /** How long a step waits for replication (and checkpoints, and the flow to stop), ms. */
  readonly waitMs: number;
  /** Reading internal topics gives up after this long, ms. */
  readonly timeoutMs?: number;
  /** Told what a waiting step waits for, each time it looks. */
  readonly progress?: (waitingFor: readonly string[]) => void;
}

export interface CutoverRequest extends MigrateStepRequest {
  readonly groups: readonly string[];
}

export interface GroupCutoverResult {
  readonly group: string;
  /** `done`: cut over now; `already`: an earlier run did it (nothing changed); `would`: a dry run. */
  readonly outcome: 'done' | 'already' | 'would';
  readonly committed: readonly CommittedOffset[];
  /** The failover plan, for `done` and `would`. */
  readonly plan?: FailoverPlan;
  /** Why a dry run could not plan it yet. */
  readonly refusal?: string;
}

export interface CutoverResult {
  readonly report: MigrationReport;
  readonly groups: readonly GroupCutoverResult[];
  /** Source topic → the topic its consumers read on the target. */
  readonly topics: readonly { readonly source: string; readonly target: string }[];
  /** What the step does (a dry run) or did, in order. */
  readonly steps: readonly ChangeStep[];
}

export async function cutover(tools: PipelineTools, request: CutoverRequest): Promise<CutoverResult> {
  const first = await migrationReport(tools, { ...request, groups: request.groups });
  if (first.state.finish !== undefined)
    throw new MigrationRefusedError(
      `The flow ${first.source}->${first.target} was finished (${first.state.finish.state}); there is nothing to cut over any more.`,
    );
  const pending = first.groups.filter((g) => g.cutover !== 'cut-over');
  const active = pending.filter((g) => g.targetState !== 'empty' && g.targetState !== 'dead');
  if (active.length > 0) {
    throw new MigrationRefusedError(
      active
        .map(
          (g) =>
            `Group "${g.group}" has active members on cluster "${first.target}" (state ${g.targetState}): its offsets there cannot be set. Stop its consumers on "${first.target}" (they should not run there before the cutover), then run cutover again.`,
        )
        .join('\n') + '\nNothing was changed.',
    );
  }
  const topics = topicMapping(first);
  const steps: ChangeStep[] = [];
  const stateTopicMissing = !(await firstValueFrom(tools.admin(first.target).listTopics())).some((t) => t.name === first.stateTopic);
  for (const g of pending) steps.push(check(first.target, `group "${g.group}" has no active members (it is ${g.targetState})`));
  const stopping = pending.filter((g) => g.cutover === undefined);
  if (stopping.length > 0 && stateTopicMissing) steps.push(createStateTopicStep(first));
  for (const g of stopping)
    steps.push(change(first.target, `record in ${first.stateTopic} that the flow's group offset sync stops for group "${g.group}" (sync-stopped)`));
  if (pending.length > 0)
    steps.push(
      wait(
        `until ${first.target} holds every record below the source offsets of ${pending.map((g) => `"${g.group}"`).join(', ')} and their checkpoints caught up (at most ${request.waitMs} ms)`,
      ),
    );
  if (request.dryRun) {
    const groups = [];
    for (const g of first.groups) {
      if (g.cutover === 'cut-over') groups.push(already(first, g.group));
      else {
        const planned = await plan(tools, request, g.group);
        groups.push({ group: g.group, outcome: 'would' as const, committed: [], ...planned });
        steps.push(...commitSteps(first, g.group, planned.plan, true));
      }
    }
    return { report: first, groups, topics, steps };
  }
  for (const g of pending) if (g.cutover === undefined) await record(tools, first, { step: 'cutover', group: g.group, state: 'sync-stopped', at: Date.now() });

  const caughtUp = await waitUntil(request, async () => {
    const report = await migrationReport(tools, { ...request, groups: pending.map((g) => g.group) });
    const waiting = report.groups.flatMap((g) => g.reasons);
    for (const g of report.groups) {
      if (!g.ready) continue;
      const planned = await plan(tools, request, g.group);
      if (planned.plan === undefined || planned.refusal !== undefined) {
        waiting.push(planned.refusal ?? `group "${g.group}": no failover plan yet`);
        continue;
      }
      const behind = planned.plan.partitions.filter(
        (p) => p.preserved === undefined && p.sourceOffset !== undefined && (p.checkpointOffset ?? -1) < p.sourceOffset,
      );
      for (const p of behind)
        waiting.push(
          `${p.topic}-${p.partition}: the newest checkpoint of group "${g.group}" is at source offset ${p.checkpointOffset ?? 'none'}, the group at ${p.sourceOffset}`,
        );
    }
    return { done: waiting.length === 0, waiting, value: report };
  });

  const results: GroupCutoverResult[] = [];
  for (const g of first.groups) {
    if (g.cutover === 'cut-over') {
      results.push(already(first, g.group));
      continue;
    }
    const planned = await plan(tools, request, g.group);
    const failover = planned.plan;
    if (failover === undefined || planned.refusal !== undefined)
      throw new MigrationRefusedError(`${planned.refusal ?? 'No failover plan.'} The cutover of group "${g.group}" stays begun: run it again.`);
    let committed: CommittedOffset[];
    try {
      committed = (await executeFailover(tools, failover)).committed.map((o) => ({
        topic: o.topic,
        partition: o.partition,
        offset: o.offset,
        preserved: failover.partitions.some((p) => p.topic === o.topic && p.partition === o.partition && p.preserved === true),
      }));
    } catch (error) {
      throw new MigrationRefusedError(`${describeError(error)} The cutover of group "${g.group}" stays begun: run it again.`, { cause: error });
    }
    await record(tools, first, { step: 'cutover', group: g.group, state: 'cut-over', at: Date.now(), committed });
    steps.push(...commitSteps(first, g.group, { ...failover, partitions: failover.partitions }, false, committed));
    results.push({ group: g.group, outcome: 'done', committed, plan: failover });
  }
  return { report: caughtUp, groups: results, topics, steps };
}

function createStateTopicStep(report: MigrationReport): ChangeStep {
  return change(report.target, `create topic ${report.stateTopic} (compacted, 1 partition): the migration's state, which every process running the flow reads`);
}

/** A group's commit and its record, as a dry run plans them (offsets as of now) or as a real run did them. */
function commitSteps(
  report: MigrationReport,
  group: string,
  failover: FailoverPlan | undefined,
  dryRun: boolean,
  committed?: readonly CommittedOffset[],
): ChangeStep[] {
  const offsets =
    committed ??
    (failover?.partitions ?? [])
      .filter((p) => p.action === 'commit' || p.action === 'rewind')
      .map((p) => ({ topic: p.topic, partition: p.partition, offset: p.translatedOffset! }));
  return [
    change(
      report.target,
      offsets.length === 0
        ? `commit nothing for group "${group}"${dryRun ? ' (as of now: its offsets there are at or past the translated ones, or there is no checkpoint yet)' : ''}`
        : `commit ${offsets.length} offset(s) of group "${group}"${dryRun ? ' (as of now; those of the moment it is ready)' : ''}: ${describeOffsets(offsets)}`,
    ),
    change(report.target, `record in ${report.stateTopic} that group "${group}" is cut over, with the offsets committed`),
  ];
}

function already(report: MigrationReport, group: string): GroupCutoverResult {
  return { group, outcome: 'already', committed: report.state.groups.get(group)?.committed ?? [] };
}

/** The group's failover plan, or why there is none yet (no checkpoint for the group: the flow writes one at its next interval). */
async function plan(tools: PipelineTools, request: MigrateStepRequest, group: string): Promise<{ readonly plan?: FailoverPlan; readonly refusal?: string }> {
  try {
    const made = await planFailover(tools, {
      from: request.from,
      to: request.to,
      group,
      force: false,
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    });
    return made.refusal === undefined ? { plan: made } : { plan: made, refusal: made.refusal };
  } catch (error) {
    if (error instanceof FailoverRefusedError) return { refusal: error.message };
    throw error;
  }
}

export interface FinishRequest extends MigrateStepRequest {
  /** Skip the check that the source topics get no more records. */
  readonly force: boolean;
  /** How long the source topics are watched for new records, ms. */
  readonly quietMs: number;
}

export interface FinishResult {
  readonly report: MigrationReport;
  /** `done`: finished now; `already`: an earlier run did; `would`: a dry run. */
  readonly outcome: 'done' | 'already' | 'would';
  /** Source partitions that got records while they were watched (forced past, or a dry run). */
  readonly written: readonly PartitionReport[];
  /** What the step does (a dry run) or did, in order. */
  readonly steps: readonly ChangeStep[];
}

export async function finish(tools: PipelineTools, request: FinishRequest): Promise<FinishResult> {
  const report = await migrationReport(tools, { ...request, groups: [] });
  if (report.state.finish?.state === 'finished') return { report, outcome: 'already', written: [], steps: [] };
  const direction = tools.direction(request);
  const steps: ChangeStep[] = [];
  const lag = report.partitions.reduce((sum, p) => sum + p.lag, 0);
  if (report.state.finish === undefined) {
    if (!request.force) steps.push(check(report.source, `no record arrives on the replicated topics for ${request.quietMs} ms (--quiet; --force skips this)`));
    steps.push(wait(`until nothing is left to replicate to ${report.target} (now ${lag} record(s); at most ${request.waitMs} ms)`));
    if (!(await firstValueFrom(tools.admin(report.target).listTopics())).some((t) => t.name === report.stateTopic)) steps.push(createStateTopicStep(report));
    steps.push(
      change(report.target, `record in ${report.stateTopic} that the flow stops for good (stopping): every process running it drains it and stops it`),
    );
  }
  steps.push(wait(`until no process runs the flow (its group "${report.flowGroup}" on ${report.source} has no members)`, report.source));
  steps.push(change(report.target, `record in ${report.stateTopic} that the flow is finished`));
  let written: PartitionReport[] = [];
  if (report.state.finish === undefined && !request.force) {
    await delay(request.quietMs);
    const again = await partitionReports(tools, direction, report.flowGroup);
    const before = new Map(report.partitions.map((p) => [`${p.topic}-${p.partition}`, p.sourceEnd]));
    written = again.filter((p) => p.sourceEnd !== before.get(`${p.topic}-${p.partition}`));
    if (written.length > 0 && !request.dryRun) {
      throw new MigrationRefusedError(
        `Producers still write to "${report.source}": ${written
          .slice(0, 10)
          .map((p) => `${p.topic}-${p.partition} got ${p.sourceEnd - (before.get(`${p.topic}-${p.partition}`) ?? 0)} record(s)`)
          .join(', ')} in ${request.quietMs} ms. Move them to "${report.target}" and run finish again, or --force. Nothing was changed.`,
      );
    }
  }
  if (request.dryRun) return { report, outcome: 'would', written, steps };
  if (report.state.finish === undefined) {
    await waitUntil(request, async () => {
      const partitions = await partitionReports(tools, direction, report.flowGroup);
      const waiting = partitions.filter((p) => p.lag > 0).map((p) => `${p.topic}-${p.partition}: ${p.lag} record(s) not on "${report.target}" yet`);
      return { done: waiting.length === 0, waiting, value: undefined };
    });
    await record(tools, report, { step: 'finish', state: 'stopping', at: Date.now() });
  }
  await waitUntil(request, async () => {
    const state = (await firstValueFrom(tools.admin(report.source).describeGroups([report.flowGroup]))).get(report.flowGroup) ?? 'dead';
    const running = state !== 'empty' && state !== 'dead';
    return {
      done: !running,
      waiting: running ? [`processes still run the flow (its group "${report.flowGroup}" on "${report.source}" is ${state})`] : [],
      value: undefined,
    };
  });
  const final = await migrationReport(tools, { ...request, groups: [] });
  await record(tools, report, {
    step: 'finish',
    state: 'finished',
    at: Date.now(),
    partitions: final.partitions.length,
    sourceEndOffsets: final.partitions.reduce((sum, p) => sum + p.sourceEnd, 0),
  });
  return { report: { ...final, state: await readState(tools, report) }, outcome: 'done', written, steps };
}

function topicMapping(report: MigrationReport): { source: string; target: string }[] {
  const seen = new Map<string, string>();
  for (const p of report.partitions) seen.set(p.topic, p.remoteTopic);
  return [...seen].map(([source, target]) => ({ source, target }));
}

/** Writes one state record (creating the compacted state topic on the target the first time). */
async function record(tools: PipelineTools, report: MigrationReport, entry: MigrationEntry): Promise<void> {
  const admin = tools.admin(report.target);
  const { flow } = tools.direction({ from: report.source, to: report.target });
  await firstValueFrom(
    admin.createTopics([
      { name: report.stateTopic, partitions: 1, replicationFactor: flow.topic_sync.replication_factor, configs: { 'cleanup.policy': 'compact' } },
    ]),
  );
  await lastValueFrom(tools.writer(report.target).write([migrationRecord(report.stateTopic, report.flowGroup, entry)]));
}

function readState(tools: PipelineTools, report: MigrationReport): Promise<MigrationState> {
  return readMigrationState(tools.admin(report.target), tools.reader(report.target), report.stateTopic, report.flowGroup);
}

/** Looks every POLL_MS until `check` is done; past `waitMs`, refuses naming what it still waits for. */
async function waitUntil<T>(request: MigrateStepRequest, check: () => Promise<{ done: boolean; waiting: readonly string[]; value: T }>): Promise<T> {
  const deadline = Date.now() + request.waitMs;
  for (;;) {
    const { done, waiting, value } = await check();
    if (done) return value;
    request.progress?.(waiting);
    if (Date.now() >= deadline) {
      throw new MigrationRefusedError(
        `Still waiting after ${request.waitMs} ms (--wait) for:\n${waiting.map((w) => `  - ${w}`).join('\n')}\nWhat was done so far is kept; run the step again to go on.`,
      );
    }
    await delay(POLL_MS);
  }
}
