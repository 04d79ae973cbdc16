/**
 * MM2's `MirrorClient` / `RemoteClusterUtils` for one cluster, over the ports: what the cluster's
 * topic names say about replication (heartbeats, checkpoints, remote topics, upstream clusters,
 * hops) and consumer offsets translated from the checkpoints another cluster's flow wrote here.
 *
 * Same answers as the Java client, with two deliberate differences that protect a failover:
 * a missing checkpoints topic is an error (Java polls it until the timeout and returns nothing),
 * and a read that does not reach the end of the topic in time is an error (Java returns whatever
 * it read by then, which can be an older position per partition without saying so).
 */
import {
  EMPTY,
  Observable,
  asyncScheduler,
  catchError,
  concatMap,
  filter,
  firstValueFrom,
  from,
  ignoreElements,
  mergeMap,
  tap,
  timer,
  type SchedulerLike,
} from '#rxjs';
import { MirrorflowError, describeError } from '../../core/errors';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import { silentLogger, type Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord, DecodedSourceBatch } from '../../core/record';
import { RecordFormatError, decodeCheckpoint, decodeHeartbeat } from '../../formats';
import { compilePatternList, type ReplicationPolicy } from '../../policy';
import { CheckpointsTopicMissingError, ToolUsageError } from './tool-errors';
import * as topology from './remote-topology';

/** One translated offset: what `RemoteClusterUtils.translateOffsets` returns, plus where it came from. */
export interface TranslatedOffset {
  /** Topic-partition on this (the downstream) cluster. */
  readonly topic: string;
  readonly partition: number;
  /** The offset to commit here (the checkpoint's downstream offset). */
  readonly offset: number;
  readonly metadata: string;
  /** The group's committed offset upstream when the checkpoint was taken. */
  readonly upstreamOffset: number;
  /** When the checkpoint was taken (record timestamp, epoch ms). */
  readonly checkpointedAt: number;
}

/** The newest heartbeat seen for one pair of clusters on one heartbeats topic. */
export interface HeartbeatSeen {
  readonly topic: string;
  readonly sourceClusterAlias: string;
  readonly targetClusterAlias: string;
  /** Epoch ms, from the heartbeat itself. */
  readonly timestamp: number;
}

export interface ReadOptions {
  /** Give up reading a topic to its end after this long, ms. Default 30 s. */
  readonly timeoutMs?: number;
}

export interface MirrorClientOptions {
  readonly admin: ClusterAdmin;
  readonly reader: TopicReader;
  /** The policy that names remote topics on this cluster (the one of the flows into it). */
  readonly policy: ReplicationPolicy;
  readonly logger?: Logger;
  /** For the read timeouts; tests pass a virtual one. */
  readonly scheduler?: SchedulerLike;
}

export const DEFAULT_READ_TIMEOUT_MS = 30_000;

export class MirrorClient {
  private readonly logger: Logger;

  constructor(private readonly options: MirrorClientOptions) {
    this.logger = (options.logger ?? silentLogger).child({ cluster: options.admin.cluster });
  }

  get cluster(): string {
    return this.options.admin.cluster;
  }

  get policy(): ReplicationPolicy {
    return this.options.policy;
  }

  async listTopics(): Promise<string[]> {
    const topics = await firstValueFrom(this.options.admin.listTopics());
    return topics.map((t) => t.name).sort();
  }

  async heartbeatTopics(): Promise<string[]> {
    return topology.heartbeatTopics(this.policy, await this.listTopics());
  }

  async checkpointTopics(): Promise<string[]> {
    return topology.checkpointTopics(this.policy, await this.listTopics());
  }

  async upstreamClusters(): Promise<string[]> {
    return topology.upstreamClusters(this.policy, await this.listTopics());
  }

  /** Fewest hops from `upstreamAlias` to this cluster, by the heartbeats topics; -1 if none. */
  async replicationHops(upstreamAlias: string): Promise<number> {
    return topology.replicationHops(this.policy, await this.listTopics(), upstreamAlias);
  }

  async remoteTopics(source?: string): Promise<string[]> {
    return topology.remoteTopics(this.policy, await this.listTopics(), source);
  }

  /**
   * `RemoteClusterUtils.translateOffsets(props, remoteAlias, group, timeout)`: the offsets of
   * `group` on this cluster, from the checkpoints `<remoteAlias>.checkpoints.internal` holds
   * (partition 0; the last checkpoint per topic-partition wins; malformed records are skipped).
   * Sorted by topic, then partition; empty when the group has no checkpoints.
   */
  async remoteConsumerOffsets(group: string, remoteAlias: string, options: ReadOptions = {}): Promise<TranslatedOffset[]> {
    const all = await this.readCheckpoints(remoteAlias, (g) => g === group, options);
    return all.get(group) ?? [];
  }

  /**
   * KIP-1239's `translateOffsets(props, remoteAlias, Pattern, timeout)`: every group whose id
   * fully matches the Java regex `groupPattern`, read in one pass over the checkpoints.
   */
  async remoteConsumerOffsetsMatching(groupPattern: string, remoteAlias: string, options: ReadOptions = {}): Promise<Map<string, TranslatedOffset[]>> {
    let matcher: (group: string) => boolean;
    try {
      const list = compilePatternList([groupPattern]);
      matcher = (g) => list.matches(g);
    } catch (error) {
      throw new ToolUsageError(`The group pattern ${JSON.stringify(groupPattern)} is not a usable Java regex: ${(error as Error).message}`, { cause: error });
    }
    return this.readCheckpoints(remoteAlias, matcher, options);
  }

  /**
   * The newest heartbeat per (source, target) pair on each heartbeats topic: how recently each
   * upstream path delivered one. MM2 has no such call; it tells a live path from a dead one.
   * Topics are read `concurrency` at a time; one that cannot be read is left out with a warning.
   */
  async lastHeartbeats(topics: readonly string[], options: ReadOptions & { readonly concurrency?: number } = {}): Promise<HeartbeatSeen[]> {
    const seen = new Map<string, HeartbeatSeen>();
    const readOne = (topic: string): Observable<never> => {
      let malformed = 0;
      let reason = '';
      return this.readPartitionZero(topic, options).pipe(
        tap({
          next: (record) => {
            try {
              const hb = decodeHeartbeat(record.key, record.value);
              const key = JSON.stringify([topic, hb.sourceClusterAlias, hb.targetClusterAlias]);
              const previous = seen.get(key);
              if (previous === undefined || hb.timestamp >= previous.timestamp) seen.set(key, { topic, ...hb });
            } catch (error) {
              if (!(error instanceof RecordFormatError)) throw error;
              if (malformed++ === 0) reason = error.message;
            }
          },
          // One line per topic: a topic full of foreign records must not flood the output.
          complete: () => {
            if (malformed > 0) this.logger.warn('Skipped malformed heartbeat records.', { topic, records: malformed, reason });
          },
        }),
        ignoreElements(),
        catchError((error: unknown) => {
          this.logger.warn('Could not read a heartbeats topic; its heartbeats are left out.', { topic, reason: describeError(error) });
          return EMPTY;
        }),
      );
    };
    await from(topics)
      .pipe(mergeMap(readOne, options.concurrency ?? 8))
      .forEach(() => undefined);
    return [...seen.values()].sort((a, b) => compareText(a.topic, b.topic) || compareText(a.sourceClusterAlias, b.sourceClusterAlias));
  }

  private async readCheckpoints(remoteAlias: string, matches: (group: string) => boolean, options: ReadOptions): Promise<Map<string, TranslatedOffset[]>> {
    const topic = this.policy.checkpointsTopic(remoteAlias);
    const topics = await this.listTopics();
    if (!topics.includes(topic)) throw new CheckpointsTopicMissingError(this.cluster, topic, remoteAlias);
    const fold = new CheckpointFold(matches, (record, reason) =>
      this.logger.warn('Skipped a malformed checkpoint record.', { topic, offset: record.offset, reason }),
    );
    await this.readPartitionZero(topic, options).forEach((record) => fold.add(record));
    return fold.result();
  }

  /** Partition 0 of `topic` up to its current end: MM2 reads only that partition of its internal topics. */
  private readPartitionZero(topic: string, options: ReadOptions): Observable<KafkaRecord> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    return withDeadline(
      this.options.reader.readToEnd(topic),
      timeoutMs,
      () => new MirrorflowError(`Reading ${topic} on cluster "${this.cluster}" did not reach its end within ${timeoutMs} ms.`),
      this.options.scheduler ?? asyncScheduler,
    ).pipe(
      filter((batch: DecodedSourceBatch) => batch.partition === 0),
      concatMap((batch) => (batch.records.length === 0 ? EMPTY : from(batch.records))),
    );
  }
}

/** Mirrors `source`, failing with `error()` if it has not completed `ms` after subscription. */
function withDeadline<T>(source: Observable<T>, ms: number, error: () => Error, scheduler: SchedulerLike): Observable<T> {
  return new Observable<T>((subscriber) => {
    const deadline = timer(ms, scheduler).subscribe(() => subscriber.error(error()));
    const inner = source.subscribe(subscriber);
    return () => {
      deadline.unsubscribe();
      inner.unsubscribe();
    };
  });
}

/**
 * Folds checkpoint records into the latest translated offset per group and topic-partition,
 * in offset order (last wins), skipping malformed records as MM2 does.
 */
export class CheckpointFold {
  private readonly latest = new Map<string, Map<string, TranslatedOffset>>();

  constructor(
    private readonly matches: (group: string) => boolean,
    private readonly onMalformed: (record: KafkaRecord, reason: string) => void = () => {},
  ) {}

  add(record: KafkaRecord): void {
    let checkpoint;
    try {
      checkpoint = decodeCheckpoint(record.key, record.value);
    } catch (error) {
      if (!(error instanceof RecordFormatError)) throw error;
      this.onMalformed(record, error.message);
      return;
    }
    const group = checkpoint.consumerGroupId;
    if (!this.matches(group)) return;
    const { topic, partition } = checkpoint.topicPartition;
    let byPartition = this.latest.get(group);
    if (!byPartition) this.latest.set(group, (byPartition = new Map()));
    byPartition.set(JSON.stringify([topic, partition]), {
      topic,
      partition,
      offset: checkpoint.downstreamOffset,
      metadata: checkpoint.metadata,
      upstreamOffset: checkpoint.upstreamOffset,
      checkpointedAt: record.timestamp,
    });
  }

  /** Groups sorted by id; offsets by topic, then partition. */
  result(): Map<string, TranslatedOffset[]> {
    const groups = [...this.latest.keys()].sort(compareText);
    return new Map(groups.map((g) => [g, [...this.latest.get(g)!.values()].sort((a, b) => compareText(a.topic, b.topic) || a.partition - b.partition)]));
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
