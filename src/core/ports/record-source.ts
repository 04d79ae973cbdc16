import { token } from './token';
import type { Observable } from '#rxjs';
import type { DecodedSourceBatch, KafkaRecord, SourceBatch, TopicPartition } from '../record';
import type { Compression } from './record-writer';

/** Which fetched record batches a source hands over whole (see RawRecordBatch). */
export interface ForwardRecordBatches {
  /** Compressed batches smaller than this are decoded. */
  readonly minCompressedBytes: number;
  /**
   * Batches larger than this are decoded, so their records go out in produce requests no larger
   * than the target producer's `max_request_bytes` (as MM2's producer never sends more than its
   * `max.request.size`); a source whose brokers take larger batches than the target's stays copyable.
   */
  readonly maxBytes: number;
  /** Forward only batches compressed this way (the target's configured compression); absent: any. */
  readonly compression?: Compression;
}

/** Bounds what has been fetched but not yet acknowledged by the target. */
export interface FlowControl {
  /**
   * Resolves when `bytes` more may be taken into the flow. `keepAlive` is called while waiting so
   * a group member stays in its group; `signal` abandons the wait.
   */
  acquire(bytes: number, keepAlive?: () => Promise<void>, signal?: AbortSignal): Promise<void>;
  release(bytes: number): void;
}

/**
 * A partition's log ends before the position the flow expected to read from: the topic was
 * deleted and created again, or its log was cut (unclean leader election, records deleted).
 */
export interface LogRestart {
  /** The offset the flow expected to read next. */
  readonly expected: number;
  /** The log's end (high watermark) as just fetched; below `expected`. */
  readonly logEnd: number;
}

/** A partition a member keeps through a rebalance, and the next offset it reads there: its own position. */
export interface KeptPartition extends TopicPartition {
  readonly nextOffset: number;
}

/**
 * A fetch of a partition began past the offset the flow expected to read next: no record of the
 * log sits between them for the flow. Compaction and transactions leave such gaps (removed
 * records, aborted records, transaction markers); so does a log whose start moved past the
 * expected offset (retention, DeleteRecords), whose records were then never copied.
 */
export interface FetchGap {
  /** The offset the flow expected to read next. */
  readonly expected: number;
  /** The first offset the fetch held. */
  readonly firstOffset: number;
}

/**
 * How a flow takes part in its group's rebalances. The group protocol is eager: before the member
 * rejoins, it gives up every partition it holds; the assignment is sticky, so it mostly gets the
 * same ones back, and reads those on from where it was.
 */
export interface GroupMembership {
  /**
   * Awaited before the member (re)joins its group: resolves once what the flow fetched is
   * acknowledged (or abandoned), its progress stored, and its partitions given up. No other
   * member gets them before.
   */
  revoke(): Promise<void>;
  /**
   * A new generation's assignment, before `startOffset` is asked for any of its partitions.
   * `stillMember` asks the group whether this member still belongs to that generation (false:
   * a newer generation formed without it, so what it held may be another member's now).
   * Returns the partitions it keeps from the generation just before (given up by a clean
   * revoke) with their positions: the source fetches them from there, and their `startOffset`
   * gives the same without waiting for the others' progress to be read.
   */
  assigned(partitions: readonly TopicPartition[], generation: number | undefined, stillMember: () => Promise<boolean>): readonly KeptPartition[];
}

/**
 * What a source asks the flow about the partitions it reads for it: the group's rebalances,
 * where each newly assigned partition starts, and where to go on when a partition's log
 * restarted. The flow implements it; the source calls it and decides none of it itself.
 */
export interface PartitionLifecycle extends GroupMembership {
  /** The next offset to read for a newly assigned partition. */
  startOffset(tp: TopicPartition): Promise<number>;
  /**
   * Called once per detected restart of a partition's log; resolves with the offset to read
   * next (the flow's reset rule). The source never seeks past the log's end on its own.
   */
  logRestarted(tp: TopicPartition, restart: LogRestart): Promise<number>;
  /**
   * Told when a fetch began past the expected offset (see FetchGap); the source goes on with the
   * fetch. The flow finds out whether records expired unread, and says so.
   */
  fetchedPast(tp: TopicPartition, gap: FetchGap): void;
}

/** Exactly-once flows: the slot count and each partition's slot. */
export interface SlotCount {
  readonly count: number;
  readonly of: (tp: TopicPartition) => number;
}

export interface ConsumeOptions {
  readonly topics: readonly string[];
  /** Consumer group that spreads partitions over the processes running this flow. */
  readonly groupId: string;
  /** Told about rebalances, asked where partitions start and what a restarted log means. */
  readonly lifecycle: PartitionLifecycle;
  readonly flowControl: FlowControl;
  /** Deliver record batches undecoded where that is safe, for flows that do not look inside records. */
  readonly forwardRecordBatches?: ForwardRecordBatches;
  /**
   * Most records and payload bytes in one emitted batch: a larger fetch is handed over in
   * several, so that no write the flow makes is larger than its batching limits (a batch commits
   * whole, so a write never splits one). A forwarded record batch is never cut: one larger than
   * the limits goes alone.
   */
  readonly maxBatch?: { readonly records: number; readonly bytes: number };
  /**
   * Exactly-once flows: the group hands each member whole slots (a slot is one transactional
   * producer and is never split between members), and only to members that count the same
   * slots as the group's leader.
   */
  readonly slots?: SlotCount;
}

/** Fetches records from a source cluster in batches, per partition, in offset order. */
export interface RecordSource {
  readonly cluster: string;
  /** Starts consuming on subscribe; unsubscribing leaves the group and closes the consumer. */
  consume(options: ConsumeOptions): Observable<SourceBatch>;
}

/** What following a topic partition reports: records as they come, and once, that the start-time end was reached. */
export type TopicFollowEvent =
  | { readonly type: 'records'; readonly batch: DecodedSourceBatch }
  /** Everything up to the high watermark the partition had at subscription has been emitted. */
  | { readonly type: 'caught-up' };

/** Reads whole (usually compacted) topics, from the start to their current end. */
export interface TopicReader {
  readonly cluster: string;
  /** Emits every record up to the high watermark each partition had when the read began, then completes. */
  readToEnd(topic: string): Observable<DecodedSourceBatch>;
  /**
   * Reads one partition from its start and keeps reading new records until unsubscribed (MM2's
   * KafkaBasedLog: an internal topic loaded once, then followed). Emits `caught-up` exactly once,
   * when the partition's end at subscription time was reached (at once for an empty partition).
   */
  follow(topic: string, partition: number): Observable<TopicFollowEvent>;
  /**
   * The record at `offset` of one partition, or the first one after it when that offset holds
   * none (compacted away, a transaction marker); undefined when the partition's log does not
   * reach that far or starts after it.
   */
  recordAt(topic: string, partition: number, offset: number): Promise<KafkaRecord | undefined>;
}

/** DI token of the flow's replication consumer on its source cluster. */
export const SourceRecords = token<RecordSource>('SourceRecords');
/*
 * DI tokens of a flow's topic readers, one per topic they read, each a client of its own as
 * each reads on its own schedule.
 */
/** Reads the Connect offsets topic on the target. */
export const ProgressReader = token<TopicReader>('ProgressReader');
/** Reads the checkpoints topic on the target. */
export const CheckpointsReader = token<TopicReader>('CheckpointsReader');
/** Reads the offset-syncs topic, wherever `offset_syncs.location` puts it. */
export const OffsetSyncsReader = token<TopicReader>('OffsetSyncsReader');
/** Reads single records of the source, to compare them with the target's (`offsets: preserve`). */
export const SourceRecordLookup = token<TopicReader>('SourceRecordLookup');
/** Reads single records of the target, to compare them with the source's (`offsets: preserve`). */
export const TargetRecordLookup = token<TopicReader>('TargetRecordLookup');
