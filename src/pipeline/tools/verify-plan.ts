/**
 * What `mirrorflow verify` compares, per flow and replicated source partition, read from both
 * clusters before any record is: the source range (the log's start and end, bounded by `--from`
 * and `--to`), the flow's stored progress, where the copy of the range begins on the target (the
 * same offset where offsets are preserved, else the nearest offset sync at or before it), and how
 * copies are told apart (content, or counts: expected-copy.ts).
 *
 * Snapshots are taken in an order that keeps a running flow from looking wrong: the progress
 * first, then the target's ends, then the source's. Every record below the progress was copied
 * before the target's end was read, and every copy on the target was made from a source record
 * that existed before the source's end was read.
 */
import { firstValueFrom } from '#rxjs';
import type { FlowConfig, PipelineConfig } from '../../config';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { PartitionOffsets } from '../../core/ports/cluster-admin';
import type { RangeReader } from '../../core/ports/range-reader';
import type { KafkaRecord } from '../../core/record';
import { topicPartitionKey } from '../../core/record';
import { silentLogger } from '../../core/ports/logger';
import { DefaultTopicFilter, shouldReplicateTopic } from '../../policy';
import { buildTransformChain, builtInTransforms, topicAfterTransforms, type PluginRegistry } from '../../plugins';
import type { OffsetSyncStore } from '../../flow/checkpoints/offset-sync-store';
import { readPreservationMarkers } from '../../flow/replication/preservation-markers';
import { expectedDigest, type ComparedBy } from '../../flow/verify/expected-copy';
import { flowGroupId, flowProgressTopic, preservedOffsetsGroup } from '../flow-names';
import { flowReplicationPolicy } from '../wiring/flow-policy';
import { readStoredProgress } from './migrate-report';
import { DEFAULT_READ_TIMEOUT_MS } from './mirror-client';
import { loadOffsetSyncs } from './offset-syncs';
import type { FlowDirection } from './pipeline-tools';
import { ToolUsageError } from './tool-errors';

/** An end of the range, as `--from` / `--to` give it: an offset of every partition, or a time (ms since the epoch). */
export type RangeBound = { readonly offset: number } | { readonly time: number };

export interface VerifySelection {
  /** Flows by name (`source->target`); every enabled flow when empty. */
  readonly flows?: readonly string[];
  /** Source topics by name or Java regex (full match); every replicated topic when empty. */
  readonly topics?: readonly string[];
  readonly from?: RangeBound;
  readonly to?: RangeBound;
  /** How long reading a flow's offset syncs to their end may take, ms (30 s when not given). */
  readonly timeoutMs?: number;
}

export interface PartitionPlan {
  readonly flow: string;
  readonly sourceCluster: string;
  readonly targetCluster: string;
  readonly topic: string;
  readonly partition: number;
  /** The topic compared on the target (the policy's remote topic, renamed as the transforms rename it). */
  readonly remoteTopic: string;
  readonly comparedBy: ComparedBy;
  readonly preserved: boolean;
  readonly isolationLevel: 'read_committed' | 'read_uncommitted';
  /** How the target is read: read_committed for an exactly-once flow, whose aborted copies no reader of it sees. */
  readonly targetIsolationLevel: 'read_committed' | 'read_uncommitted';
  /** The source range compared: [from, rangeEnd). */
  readonly from: number;
  readonly rangeEnd: number;
  /** How far the source is read (past `rangeEnd` when `--to` cut the range: the target's end of it is found by content). */
  readonly sourceTo: number;
  readonly logStart: number;
  /** The flow's stored progress: the next source offset it will copy. */
  readonly progress: number;
  readonly targetFrom: number;
  readonly targetTo: number;
  readonly leadingSkip: number;
  /** Why a partition cannot be compared as the others (no remote topic, no remote partition …); reported, its records counted. */
  readonly note?: string;
  /** A flow with transforms: a source record's digest as its copy should be, false when they drop it. */
  readonly expected?: (record: KafkaRecord, out: Uint32Array, at: number) => boolean;
}

export interface VerifyClients {
  readonly clients: KafkaClients;
  /** One range reader per cluster. */
  readonly rangeReader: (cluster: string) => RangeReader;
}

/** Every partition to compare, flow by flow, topic by topic. */
export async function planVerification(
  config: PipelineConfig,
  registry: PluginRegistry,
  { clients, rangeReader }: VerifyClients,
  selection: VerifySelection,
): Promise<PartitionPlan[]> {
  const names = config.flows.map((f) => f.name);
  for (const name of selection.flows ?? []) {
    if (!names.includes(name)) throw new ToolUsageError(`--flow ${name}: the pipeline has no such flow; its flows are ${names.join(', ')}.`);
  }
  const flows = config.flows.filter((f) => (selection.flows?.length ? selection.flows.includes(f.name) : f.enabled));
  const plans: PartitionPlan[] = [];
  for (const flow of flows) plans.push(...(await planFlow(config, registry, flow, clients, rangeReader, selection)));
  return plans;
}

async function planFlow(
  config: PipelineConfig,
  registry: PluginRegistry,
  flow: FlowConfig,
  clients: KafkaClients,
  rangeReader: (cluster: string) => RangeReader,
  selection: VerifySelection,
): Promise<PartitionPlan[]> {
  const policy = flowReplicationPolicy(flow);
  const sourceAdmin = clients.admin(flow.source);
  const targetAdmin = clients.admin(flow.target);
  const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
  const chosen = topicChooser(selection.topics);
  const sourceTopics = (await firstValueFrom(sourceAdmin.listTopics()))
    .filter((t) => shouldReplicateTopic(t.name, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats }))
    .filter((t) => chosen(t.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (sourceTopics.length === 0) return [];
  const renamed = topicAfterTransforms(flow.transforms, flow);
  const comparedBy: ComparedBy =
    flow.schema_registry !== undefined || flow.transforms.some((s) => !builtInTransforms.some((b) => b.name === s.type)) ? 'count' : 'content';
  const transform =
    flow.transforms.length === 0 || flow.schema_registry !== undefined
      ? undefined
      : buildTransformChain(flow.transforms, registry, {
          flow: { source: flow.source, target: flow.target },
          logger: silentLogger,
          converters: flow.converter,
        });

  // Progress first, then the target's ends, then the source's (see the file's comment).
  const targetTopics = new Map((await firstValueFrom(targetAdmin.listTopics())).map((t) => [t.name, t.partitions]));
  const progress = await readStoredProgress(clients.reader(flow.target), flow.source, flowProgressTopic(flow), new Set(targetTopics.keys()));
  const markers = flow.offsets === 'preserve' ? await readPreservationMarkers(targetAdmin, preservedOffsetsGroup(flowGroupId(config.name, flow))) : new Map();
  const remotes = sourceTopics.map((t) => {
    const remote = policy.formatRemoteTopic(flow.source, t.name);
    return { remote, compared: renamed(remote) };
  });
  const targetOffsets = new Map<string, readonly PartitionOffsets[]>();
  for (const { compared } of remotes) {
    if (targetTopics.has(compared) && !targetOffsets.has(compared)) targetOffsets.set(compared, await firstValueFrom(targetAdmin.partitionOffsets(compared)));
  }
  const sourceOffsets = new Map<string, readonly PartitionOffsets[]>();
  for (const t of sourceTopics) sourceOffsets.set(t.name, await firstValueFrom(sourceAdmin.partitionOffsets(t.name)));

  const bounds = await rangeBounds(sourceTopics, sourceOffsets, selection, rangeReader(flow.source));
  const syncs = await loadSyncs({ flow, policy }, clients, bounds, selection.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  const isolationLevel = flow.consumer.isolation_level;
  const targetIsolationLevel = flow.delivery === 'exactly_once' ? 'read_committed' : 'read_uncommitted';
  const plans: PartitionPlan[] = [];
  sourceTopics.forEach((topic, i) => {
    const { remote, compared } = remotes[i]!;
    for (const source of sourceOffsets.get(topic.name) ?? []) {
      const tp = { topic: topic.name, partition: source.partition };
      const { from, rangeEnd } = bounds.get(topicPartitionKey(tp))!;
      const target = targetOffsets.get(compared)?.find((o) => o.partition === source.partition);
      const preserved = markers.get(topicPartitionKey({ topic: compared, partition: source.partition }))?.preserved === true;
      const start = targetStart(target, from, preserved, syncs.translate(tp, from));
      plans.push({
        flow: flow.name,
        sourceCluster: flow.source,
        targetCluster: flow.target,
        topic: topic.name,
        partition: source.partition,
        remoteTopic: compared,
        comparedBy,
        preserved,
        isolationLevel,
        targetIsolationLevel,
        from,
        rangeEnd,
        sourceTo: selection.to === undefined ? rangeEnd : source.latest,
        logStart: source.earliest,
        progress: progress.get(topicPartitionKey(tp)) ?? (flow.start === 'latest' ? source.latest : source.earliest),
        targetFrom: start.from,
        targetTo: target?.latest ?? start.from,
        leadingSkip: start.leadingSkip,
        ...(target === undefined
          ? { note: targetTopics.has(compared) ? `${compared} has no partition ${source.partition}` : `${compared} does not exist` }
          : {}),
        ...(transform === undefined ? {} : { expected: expectedDigest({ by: comparedBy, remoteTopic: remote, comparedTopic: compared, transform }) }),
      });
    }
  });
  return plans;
}

/** `--topics`: names, or Java regexes matching a whole name. */
function topicChooser(topics: readonly string[] | undefined): (topic: string) => boolean {
  if (topics === undefined || topics.length === 0) return () => true;
  const filter = new DefaultTopicFilter({ include: [...topics], exclude: [] });
  return (topic) => topics.includes(topic) || filter.shouldReplicateTopic(topic);
}

/** Per source partition, the range [from, rangeEnd) within its log. */
async function rangeBounds(
  topics: readonly { readonly name: string }[],
  offsets: ReadonlyMap<string, readonly PartitionOffsets[]>,
  selection: VerifySelection,
  reader: RangeReader,
): Promise<Map<string, { from: number; rangeEnd: number }>> {
  const out = new Map<string, { from: number; rangeEnd: number }>();
  for (const topic of topics) {
    const at = async (bound: RangeBound | undefined): Promise<ReadonlyMap<number, number> | number | undefined> =>
      bound === undefined ? undefined : 'offset' in bound ? bound.offset : reader.offsetsForTime(topic.name, bound.time);
    const [from, to] = [await at(selection.from), await at(selection.to)];
    for (const o of offsets.get(topic.name) ?? []) {
      const pick = (b: ReadonlyMap<number, number> | number | undefined, otherwise: number): number =>
        b === undefined ? otherwise : typeof b === 'number' ? b : (b.get(o.partition) ?? otherwise);
      const start = Math.min(Math.max(o.earliest, pick(from, o.earliest)), o.latest);
      const end = Math.max(start, Math.min(o.latest, pick(to, o.latest)));
      out.set(topicPartitionKey({ topic: topic.name, partition: o.partition }), { from: start, rangeEnd: end });
    }
  }
  return out;
}

/**
 * The flow's offset syncs, read once to the end with every range start held (offset-syncs.ts), so
 * each start finds the nearest sync at or before it that the topic still holds.
 */
async function loadSyncs(
  direction: Pick<FlowDirection, 'flow' | 'policy'>,
  clients: KafkaClients,
  bounds: ReadonlyMap<string, { from: number }>,
  timeoutMs: number,
): Promise<Pick<OffsetSyncStore, 'translate'>> {
  const none = { translate: () => undefined };
  if (!direction.flow.offset_syncs.enabled) return none;
  const hold = [...bounds].map(([key, { from }]) => {
    const at = key.lastIndexOf('-');
    return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)), offset: from };
  });
  return (await loadOffsetSyncs(clients, direction, hold, timeoutMs)).store ?? none;
}

/** Where the copy of a range starting at source offset `from` begins on the target, and how many leading target records may copy records before it. */
function targetStart(
  target: PartitionOffsets | undefined,
  from: number,
  preserved: boolean,
  translation: ReturnType<OffsetSyncStore['translate']>,
): { from: number; leadingSkip: number } {
  if (target === undefined) return { from: 0, leadingSkip: 0 };
  const clamp = (offset: number): number => Math.min(Math.max(offset, target.earliest), target.latest);
  if (preserved) return { from: clamp(from), leadingSkip: 0 };
  const sync = translation?.sync;
  // No sync at or before the range (the compacted offset-syncs topic keeps the latest sync of each
  // partition only, after a while): the target's leading records, up to the first copy of a record
  // of the range, are taken for copies of records before it.
  if (sync === undefined) return { from: target.earliest, leadingSkip: Number.MAX_SAFE_INTEGER };
  const start = clamp(sync.downstreamOffset);
  return { from: start, leadingSkip: from - sync.upstreamOffset };
}
