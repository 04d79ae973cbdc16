import { isRecordBatch, type OutboundItem, type RefusedRecord } from '../../core/ports/record-writer';
import type { MirrorRecord, RecordFailure } from '../../core/record';
import { RecordFailedError, type RecordRefusedError } from '../../core/errors';

/**
 * A flow's remote topic names, both ways: a source topic's remote topic (the replication policy's
 * name, asked once per topic), and the source topic of a remote one, which names the source of a
 * record the target refuses.
 */
export class RemoteNames {
  private readonly remotes = new Map<string, string>();
  private readonly sources = new Map<string, string>();

  /** @param remoteTopic the replication policy's remote name for a source topic */
  constructor(private readonly remoteTopic: (sourceTopic: string) => string) {}

  /** The remote topic of a source topic. */
  remote(topic: string): string {
    let remote = this.remotes.get(topic);
    if (remote === undefined) {
      remote = this.remoteTopic(topic);
      this.remotes.set(topic, remote);
      this.sources.set(remote, topic);
    }
    return remote;
  }

  /** A record of a write the target refused (`items[error.index]`), named by its source position. */
  refused(items: readonly OutboundItem[], error: RecordRefusedError, refused?: RefusedRecord): RecordFailure {
    const item = items[error.index]!;
    let mirrored: MirrorRecord;
    if (isRecordBatch(item)) {
      const source = { topic: this.sources.get(item.topic) ?? item.topic, partition: item.partition, offset: item.batch.baseOffset + error.offsetInBatch };
      const record = refused?.record;
      mirrored = {
        source,
        topic: item.topic,
        partition: item.partition,
        timestamp: record?.timestamp ?? -1,
        key: record?.key ?? null,
        value: record?.value ?? null,
        headers: record?.headers ?? [],
      };
    } else {
      // The flow only writes the records it mirrored.
      mirrored = item as MirrorRecord;
    }
    return { record: mirrored, error: new RecordFailedError(mirrored.source, { kind: 'write' }, error.message, { cause: error }) };
  }
}
