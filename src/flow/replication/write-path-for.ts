import type { SchedulerLike } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import type { RecordWriter } from '../../core/ports/record-writer';
import type { SlotTransactions } from '../../core/ports/slot-transactions';
import type { WritePath } from '../../core/ports/write-path';
import { MirrorflowError } from '../../core/errors';
import type { ProgressStore } from '../progress/progress-store';
import type { FlowStatus } from '../status/flow-status';
import { AtLeastOnceWrites } from './at-least-once-writes';
import type { DeadLetterSink } from './dead-letter-sink';
import { ExactlyOnceWrites } from './exactly-once-writes';
import type { LogLifetimes } from './log-lifetimes';
import type { OffsetPreservation } from './offset-preservation';
import { PreservedOffsetsWrites } from './preserved-offsets-writes';
import type { RemoteNames } from './remote-names';
import type { ReplicationOutages } from './replication-outages';

/** What the write paths are made of: the replication flow's parts, and what its parts share. */
export interface WritePathParts {
  readonly flow: string;
  /** `delivery: exactly_once`: the flow's slot count. */
  readonly exactlyOnce: { readonly slots: number } | undefined;
  readonly maxPartitionBytes: number;
  readonly writer: RecordWriter;
  readonly transactions: SlotTransactions | undefined;
  readonly progress: ProgressStore;
  readonly deadLetters: DeadLetterSink | undefined;
  readonly preservation: OffsetPreservation | undefined;
  readonly names: RemoteNames;
  readonly lifetimes: LogLifetimes;
  readonly outages: ReplicationOutages;
  readonly status: FlowStatus;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/** The flow's write path, chosen once from its settings: exactly-once, preserved offsets, or at-least-once. */
export function writePathFor(parts: WritePathParts): WritePath {
  const { writer, progress, deadLetters, names, outages, status, scheduler } = parts;
  const dead = deadLetters === undefined ? {} : { deadLetters };
  if (parts.exactlyOnce !== undefined) {
    if (parts.transactions === undefined) throw new MirrorflowError(`Flow ${parts.flow}: delivery exactly_once needs the transactional writer.`);
    return new ExactlyOnceWrites({
      slots: parts.exactlyOnce.slots,
      transactions: parts.transactions,
      progress,
      maxPartitionBytes: parts.maxPartitionBytes,
      lifetimes: parts.lifetimes,
      names,
      outages,
      ...dead,
      status,
      scheduler,
      logger: parts.logger,
    });
  }
  const atLeastOnce = { writer, progress, ...dead, names, writing: outages.writing, status, scheduler };
  return parts.preservation === undefined
    ? new AtLeastOnceWrites(atLeastOnce)
    : new PreservedOffsetsWrites({ ...atLeastOnce, preservation: parts.preservation });
}
