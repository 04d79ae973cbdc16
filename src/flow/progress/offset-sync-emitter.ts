import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type Observable, EMPTY, defer, finalize, firstValueFrom, lastValueFrom, map, tap } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { RecordWriter } from '../../core/ports/record-writer';
import type { TopicPartition } from '../../core/record';
import { OffsetSyncWriter } from './offset-sync-writer';
import { type OffsetSync, encodeOffsetSyncKey, encodeOffsetSyncValue } from '../../formats';

/** The part of OffsetSyncWriter (MM2's sync rules) that the emitter drives. */
export interface OffsetSyncSource {
  /** True when a sync was decided and is now pending. */
  update(tp: TopicPartition, upstreamOffset: number, downstreamOffset: number): boolean;
  promoteDelayed(): void;
  takePending(limit?: number): OffsetSync[];
}

export interface OffsetSyncEmitterOptions {
  /** `mm2-offset-syncs.<other cluster>.internal`, per the replication policy. */
  readonly topic: string;
  readonly admin: ClusterAdmin;
  readonly writer: RecordWriter;
  readonly replicationFactor: number;
}
/** DI token of the parts the container gives a OffsetSyncEmitter; a token and its interface share a name. */
export const OffsetSyncEmitterOptions = token<OffsetSyncEmitterOptions>('OffsetSyncEmitterOptions');

/**
 * Writes offset syncs to MM2's offset-syncs topic (one partition, compacted, partition 0 always)
 * so checkpoints — ours or MM2's — can translate consumer offsets.
 *
 * The flow calls `record` for every acknowledged record. A sync the rules decide on is queued
 * at once, as MM2 sends each decided sync right after the record that caused it: the rules keep
 * one pending sync per partition, and a whole acknowledged batch passing through them would
 * otherwise keep only the batch's last one (losing, for example, the first sync of a lifetime,
 * which translation of a group inside the batch needs). One write is in flight at a time; syncs
 * decided meanwhile go out with the next one.
 */
@injectable()
export class OffsetSyncEmitter {
  private decided: OffsetSync[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    @inject(OffsetSyncWriter) private readonly syncs: OffsetSyncSource,
    @inject(OffsetSyncEmitterOptions) private readonly options: OffsetSyncEmitterOptions,
  ) {}

  /** The cluster the offset syncs are written to. */
  get cluster(): string {
    return this.options.admin.cluster;
  }

  ensureTopic(): Observable<void> {
    return defer(async () => {
      await firstValueFrom(
        this.options.admin.createTopics([
          { name: this.options.topic, partitions: 1, replicationFactor: this.options.replicationFactor, configs: { 'cleanup.policy': 'compact' } },
        ]),
      );
    });
  }

  /** One acknowledged record: source offset `upstream` landed at target offset `downstream`. */
  record(tp: TopicPartition, upstream: number, downstream: number): void {
    if (this.syncs.update(tp, upstream, downstream)) {
      for (const sync of this.syncs.takePending()) this.decided.push(sync);
    }
  }

  /** Sends the decided syncs unless a send is already under way (they then go with the next). */
  emitPending(): Observable<void> {
    return defer(() => (this.writing || this.decided.length === 0 ? EMPTY : this.send()));
  }

  /**
   * At a progress flush: promote delayed syncs (MM2 does this on Connect's offset commit) and
   * send everything decided, after any send under way.
   */
  flush(): Observable<void> {
    return defer(async () => {
      this.syncs.promoteDelayed();
      for (const sync of this.syncs.takePending()) this.decided.push(sync);
      await this.writing;
      if (this.decided.length > 0) await lastValueFrom(this.send(), { defaultValue: undefined });
    });
  }

  private send(): Observable<void> {
    const batch = this.decided;
    this.decided = [];
    const now = Date.now();
    const records = batch.map((sync) => ({
      topic: this.options.topic,
      partition: 0,
      timestamp: now,
      key: encodeOffsetSyncKey(sync.topicPartition),
      value: encodeOffsetSyncValue(sync),
      headers: [],
    }));
    let done: () => void = () => {};
    this.writing = new Promise<void>((resolve) => (done = resolve));
    return this.options.writer.write(records).pipe(
      map(() => undefined),
      // Kept for the next send, ahead of syncs decided since: a cluster down for a while must not
      // cost the syncs checkpoints need to translate offsets from before the outage.
      tap({ error: () => (this.decided = batch.concat(this.decided)) }),
      finalize(() => {
        this.writing = undefined;
        done();
      }),
    );
  }
}
