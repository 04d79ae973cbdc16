import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type Observable, concatMap, defer, firstValueFrom, lastValueFrom, of, tap, toArray } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { TopicReader } from '../../core/ports/record-source';
import type { Logger } from '../../core/ports/logger';
import type { TopicPartition } from '../../core/record';
import { topicPartitionKey } from '../../core/record';
import {
  DEFAULT_OFFSETS_TOPIC_PARTITIONS,
  MIRROR_SOURCE_CONNECTOR,
  RecordFormatError,
  connectOffsetsPartition,
  decodeConnectOffsetKey,
  decodeConnectOffsetValue,
  decodeSourceOffsetKey,
  encodeConnectOffsetValue,
  encodeSourceOffsetKey,
} from '../../formats';

/**
 * The connector name of mirrorflow's own record in the progress topic: an exactly-once flow's slot
 * count (`tasks`), as the offset of `["MirrorflowSlots",{"cluster":<source>,"partition":0,"topic":""}]`,
 * so that a smaller count later fences the transactional ids no slot has any more. Connect (MM2)
 * reads only its connectors' own keys and passes over it.
 */
export const SLOTS_CONNECTOR = 'MirrorflowSlots';

export interface ProgressStoreOptions {
  /** The flow's source alias: the `cluster` field of MM2's offset keys. */
  readonly sourceAlias: string;
  /** `mm2-offsets.<source>.internal` on the target, as MM2's Connect worker names it. */
  readonly topic: string;
  readonly replicationFactor: number;
  readonly targetAdmin: ClusterAdmin;
  readonly reader: TopicReader;
  readonly writer: RecordWriter;
  readonly logger: Logger;
}
/** DI token of the parts the container gives a ProgressStore; a token and its interface share a name. */
export const ProgressStoreOptions = token<ProgressStoreOptions>('ProgressStoreOptions');

/**
 * Source progress, stored where and how MM2 stores it: MirrorSourceConnector offsets in the
 * Connect offsets topic on the target cluster, keyed by `["MirrorSourceConnector",{cluster,
 * partition, topic}]`, value `{"offset": last replicated offset}`. So a user can stop MM2 and
 * start mirrorflow (or the reverse) and replication resumes where the other left off.
 *
 * Progress is recorded in memory only after the target acknowledged the records (the flow calls
 * `markReplicated` from its commit stage) and written to Kafka by `flush` — or, in an
 * exactly-once flow, inside the transactions that write the records (`progressRecords`).
 *
 * The topic is read with read_committed up to the high watermark it had when the read began
 * (KafkajsTopicReader): progress of aborted transactions is never seen, and a transaction still
 * open at that point is waited for (it ends, or the coordinator aborts it after its timeout).
 * Reading only to the last stable offset would miss progress another slot committed after that
 * open transaction began.
 */
@injectable()
export class ProgressStore {
  /** Last replicated source offset per partition, as stored (MM2 semantics: resume at +1). */
  private readonly replicated = new Map<string, { tp: TopicPartition; offset: number }>();
  private readonly dirty = new Set<string>();
  private partitions = DEFAULT_OFFSETS_TOPIC_PARTITIONS;
  /** The slot count an exactly-once flow last stored (SLOTS_CONNECTOR), as read. */
  private slots: number | undefined;
  /** Partitions assigned to this member by its group; undefined until the first assignment (all). */
  private owned: Set<string> | undefined;
  /** The last progress write, settled or not (see `write`). */
  private writing: Promise<void> = Promise.resolve();

  constructor(@inject(ProgressStoreOptions) private readonly options: ProgressStoreOptions) {}

  /** Creates the offsets topic if needed, then reads every stored offset of this flow. */
  load(): Observable<void> {
    const { targetAdmin, topic } = this.options;
    return defer(async () => {
      await firstValueFrom(
        targetAdmin.createTopics([
          {
            name: topic,
            partitions: DEFAULT_OFFSETS_TOPIC_PARTITIONS,
            replicationFactor: this.options.replicationFactor,
            configs: { 'cleanup.policy': 'compact' },
          },
        ]),
      );
      const described = (await firstValueFrom(targetAdmin.describeTopics([topic]))).find((t) => t.name === topic);
      this.partitions = described?.partitions ?? DEFAULT_OFFSETS_TOPIC_PARTITIONS;
      await this.readStored();
    });
  }

  /**
   * A new assignment of the group: reads the progress topic to its end again, so the partitions
   * start where their previous owner's final flush left them, and takes them as this member's.
   */
  reload(partitions: readonly TopicPartition[]): Observable<void> {
    return defer(async () => {
      // This member's own last write lands before the topic is read.
      await this.writing;
      // What this member itself had acknowledged (kept while it did not own the partitions, or
      // not stored because it was fenced) is true too: the newer of the two wins, so a member
      // that gets its partitions back does not copy again what it already copied.
      const known = new Map(this.replicated);
      this.replicated.clear();
      this.dirty.clear();
      this.owned = new Set(partitions.map(topicPartitionKey));
      await this.readStored();
      for (const key of this.owned) {
        const mine = known.get(key);
        const stored = this.replicated.get(key);
        if (mine === undefined || (stored !== undefined && stored.offset >= mine.offset)) continue;
        this.replicated.set(key, mine);
        this.dirty.add(key);
      }
    });
  }

  /**
   * A new assignment keeps these partitions from the one before, whose progress this member
   * stored last (a clean revoke, and no generation in between): they are its own again without
   * reading the topic, and the others are not (yet: `reload` reads theirs).
   */
  keep(partitions: readonly TopicPartition[]): void {
    this.owned = new Set(partitions.map(topicPartitionKey));
  }

  /**
   * Gives up every partition (a rebalance, or fenced): nothing of theirs is written any more.
   * Their acknowledged offsets, and those acknowledged after this, are remembered for a later `reload`.
   */
  disown(): void {
    this.owned = new Set();
    this.dirty.clear();
  }

  private owns(key: string): boolean {
    return this.owned === undefined || this.owned.has(key);
  }

  private async readStored(): Promise<void> {
    const { topic, reader, sourceAlias, logger } = this.options;
    let skipped = 0;
    await lastValueFrom(
      reader.readToEnd(topic).pipe(
        tap((batch) => {
          for (const record of batch.records) {
            try {
              const connector = decodeConnectOffsetKey(record.key).connector;
              if (connector === SLOTS_CONNECTOR) {
                if (decodeSourceOffsetKey(record.key).sourceClusterAlias === sourceAlias) this.slots = decodeConnectOffsetValue(record.value) ?? undefined;
                continue;
              }
              if (connector !== MIRROR_SOURCE_CONNECTOR) continue;
              const key = decodeSourceOffsetKey(record.key);
              if (key.sourceClusterAlias !== sourceAlias) continue;
              const tp = { topic: key.topic, partition: key.partition };
              const k = topicPartitionKey(tp);
              if (this.dirty.has(k)) continue; // recorded here after the read began: newer
              const offset = decodeConnectOffsetValue(record.value);
              if (offset === null) this.replicated.delete(k);
              else this.replicated.set(k, { tp, offset });
            } catch (error) {
              if (!(error instanceof RecordFormatError)) throw error;
              skipped++;
            }
          }
        }),
        toArray(),
      ),
      { defaultValue: [] },
    );
    if (skipped > 0) logger.warn('Skipped malformed records in the progress topic.', { topic, skipped });
    logger.info('Progress loaded.', { topic, partitions: this.replicated.size });
  }

  /** The next source offset to read for a partition, if any progress is stored. */
  nextOffset(tp: TopicPartition): number | undefined {
    const key = topicPartitionKey(tp);
    if (!this.owns(key)) return undefined;
    const entry = this.replicated.get(key);
    return entry === undefined ? undefined : entry.offset + 1;
  }

  /**
   * Records that every source offset up to and including `offset` is on the target. For a
   * partition this member does not own (any more: fenced, or acknowledged after a revoke) it is
   * remembered, not written: still true, it counts when the partition is assigned here again
   * (see `reload`), so a member that copied on while it was out of its group does not copy the
   * same records again once it is back.
   */
  markReplicated(tp: TopicPartition, offset: number): void {
    const key = topicPartitionKey(tp);
    const entry = this.replicated.get(key);
    if (entry !== undefined && entry.offset >= offset) return;
    this.replicated.set(key, { tp, offset });
    if (this.owns(key)) this.dirty.add(key);
  }

  /**
   * Moves a partition's progress to `nextOffset`, backwards if need be: the only way progress goes
   * back, for a source log that restarted below the stored position (topic deleted and created
   * again, or truncated), whose offsets start over.
   */
  rewind(tp: TopicPartition, nextOffset: number): void {
    const key = topicPartitionKey(tp);
    if (!this.owns(key)) return;
    this.replicated.set(key, { tp, offset: nextOffset - 1 });
    this.dirty.add(key);
  }

  /** Every stored offset of this flow (what `load` read, and what was recorded since): the last replicated offset per partition. */
  stored(): { tp: TopicPartition; offset: number }[] {
    return [...this.replicated.values()].map((e) => ({ tp: e.tp, offset: e.offset }));
  }

  /**
   * Writes the given offsets as they are, forwards or backwards, and a tombstone for a null one
   * (the partition is read as if never replicated): what Connect's `PATCH` and `DELETE
   * /connectors/{name}/offsets` do to a stopped MirrorSourceConnector's offsets. Only for a flow
   * that does not replicate while this runs: a running one would write its own progress over it.
   */
  async alter(entries: readonly { tp: TopicPartition; offset: number | null }[]): Promise<void> {
    await this.writing;
    const records = entries.map(({ tp, offset }) => {
      const record = this.progressRecord({ tp, offset: offset ?? 0 });
      return offset === null ? { ...record, value: null } : record;
    });
    await lastValueFrom(this.options.writer.write(records), { defaultValue: undefined });
    for (const { tp, offset } of entries) {
      const key = topicPartitionKey(tp);
      this.dirty.delete(key);
      if (offset === null) this.replicated.delete(key);
      else this.replicated.set(key, { tp, offset });
    }
  }

  get pendingFlush(): number {
    return this.dirty.size;
  }

  /**
   * Writes every changed offset to the progress topic (acks=all). `stillOwner` fences a stale
   * owner: asked before each write, false means a newer generation of the group formed without
   * this member, so its offsets are dropped instead of written over the new owner's.
   */
  flush(stillOwner?: () => Promise<boolean>): Observable<void> {
    return defer(async () => (this.dirty.size === 0 || stillOwner === undefined ? true : stillOwner())).pipe(
      concatMap((owner) => {
        if (owner) return this.write();
        this.options.logger.warn('Not storing progress: this process no longer owns its partitions (the group moved on without it).', {
          partitions: this.dirty.size,
        });
        this.disown();
        return of(undefined);
      }),
    );
  }

  /**
   * The progress records saying every source offset up to `offset` is copied, for each entry:
   * what `flush` would write, for an exactly-once flow's transaction (which writes them itself,
   * with the records they describe). MM2's keys and partitioning, the newest per partition.
   */
  progressRecords(entries: readonly { tp: TopicPartition; offset: number }[]): OutboundRecord[] {
    const newest = new Map<string, { tp: TopicPartition; offset: number }>();
    for (const entry of entries) {
      const k = topicPartitionKey(entry.tp);
      const known = newest.get(k);
      if (known === undefined || known.offset < entry.offset) newest.set(k, entry);
    }
    return [...newest.values()].map((entry) => this.progressRecord(entry));
  }

  /** The slot count of the flow's exactly-once writer, as last stored; undefined when none was. */
  get storedSlotCount(): number | undefined {
    return this.slots;
  }

  /** The record that stores the slot count (for the transaction of slot 0). */
  slotCountRecord(slots: number): OutboundRecord {
    const key = encodeSourceOffsetKey({ sourceClusterAlias: this.options.sourceAlias, topic: '', partition: 0 }, SLOTS_CONNECTOR);
    return {
      topic: this.options.topic,
      partition: connectOffsetsPartition(key, this.partitions),
      timestamp: Date.now(),
      key,
      value: encodeConnectOffsetValue(slots),
      headers: [],
    };
  }

  private progressRecord(entry: { tp: TopicPartition; offset: number }): OutboundRecord {
    const key = encodeSourceOffsetKey({ sourceClusterAlias: this.options.sourceAlias, topic: entry.tp.topic, partition: entry.tp.partition });
    return {
      topic: this.options.topic,
      partition: connectOffsetsPartition(key, this.partitions),
      timestamp: Date.now(),
      key,
      value: encodeConnectOffsetValue(entry.offset),
      headers: [],
    };
  }

  /**
   * Writes what changed, after the write before it has been answered: progress lands in the order
   * it was taken, so an older offset never lands over a newer one. The send is not cancelled with
   * its flush: a periodic flush dropped at a stop may have taken offsets already, and the final
   * flush, waiting for it, writes them again if it failed.
   */
  private write(): Observable<void> {
    return defer(() => {
      const sent = this.writing.then(() => this.send());
      this.writing = sent.then(
        () => undefined,
        () => undefined,
      );
      return sent;
    });
  }

  private async send(): Promise<void> {
    if (this.dirty.size === 0) return;
    const keys = [...this.dirty];
    this.dirty.clear();
    const records = keys.map((k) => this.progressRecord(this.replicated.get(k)!));
    try {
      await lastValueFrom(this.options.writer.write(records), { defaultValue: undefined });
    } catch (error) {
      // Put back the partitions still owned, for the next flush; a newer offset may have replaced them meanwhile.
      for (const k of keys) if (this.owns(k)) this.dirty.add(k);
      throw error;
    }
  }
}
