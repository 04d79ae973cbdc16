import { type Observable, EMPTY, defer, finalize, firstValueFrom, map } from 'rxjs';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { RecordWriter } from '../core/ports/record-writer';
import type { TopicPartition } from '../core/record';
import { type OffsetSync, encodeOffsetSyncKey, encodeOffsetSyncValue } from '../formats';

/** The part of OffsetSyncWriter (MM2's sync rules) that the emitter drives. */
export interface OffsetSyncSource {
  update(tp: TopicPartition, upstreamOffset: number, downstreamOffset: number): void;
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

/**
 * Writes offset syncs to MM2's offset-syncs topic (one partition, compacted, partition 0 always)
 * so checkpoints — ours or MM2's — can translate consumer offsets. One write in flight at a time;
 * syncs decided meanwhile wait in the OffsetSyncWriter, which keeps only the latest per partition.
 */
export class OffsetSyncEmitter {
  private writing = false;

  constructor(
    private readonly syncs: OffsetSyncSource,
    private readonly options: OffsetSyncEmitterOptions,
  ) {}

  ensureTopic(): Observable<void> {
    return defer(async () => {
      await firstValueFrom(
        this.options.admin.createTopics([
          { name: this.options.topic, partitions: 1, replicationFactor: this.options.replicationFactor, configs: { 'cleanup.policy': 'compact' } },
        ]),
      );
    });
  }

  /** Sends the pending syncs unless a send is already under way. */
  emitPending(): Observable<void> {
    return defer(() => {
      if (this.writing) return EMPTY;
      const pending = this.syncs.takePending();
      if (pending.length === 0) return EMPTY;
      this.writing = true;
      const now = Date.now();
      const records = pending.map((sync) => ({
        topic: this.options.topic,
        partition: 0,
        timestamp: now,
        key: encodeOffsetSyncKey(sync.topicPartition),
        value: encodeOffsetSyncValue(sync),
        headers: [],
      }));
      return this.options.writer.write(records).pipe(
        map(() => undefined),
        finalize(() => (this.writing = false)),
      );
    });
  }

  /** At a progress flush: promote delayed syncs (MM2 does this on Connect's offset commit) and send. */
  flush(): Observable<void> {
    return defer(() => {
      this.syncs.promoteDelayed();
      return this.emitPending();
    });
  }
}
