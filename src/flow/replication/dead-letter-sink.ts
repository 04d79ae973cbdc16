import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type MonoTypeOperatorFunction, type Observable, type SchedulerLike, catchError, defer, firstValueFrom, ignoreElements, map, throwError } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { RecordFailure } from '../../core/record';
import { RecordFailedError, RecordRefusedError, describeError } from '../../core/errors';
import { retryWithBackoff } from '../../core/retry';
import { deadLetterRecord } from '../../formats';
import type { FlowStatus } from '../status/flow-status';

export interface DeadLetterSinkOptions {
  /** The flow's name (`source->target`), written into every record's context headers. */
  readonly flow: string;
  readonly topic: string;
  /** -1 lets the broker choose. */
  readonly replicationFactor: number;
  readonly admin: ClusterAdmin;
  readonly writer: RecordWriter;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: FlowStatus;
}
/** DI token of the parts the container gives a DeadLetterSink; a token and its interface share a name. */
export const DeadLetterSinkOptions = token<DeadLetterSinkOptions>('DeadLetterSinkOptions');

/**
 * The flow's dead-letter topic on the target (errors.tolerance all): the sink for records a
 * transform threw on or the target refused. `write` emits once every record is acknowledged
 * (acks=all); only then does the flow count their source offsets as done.
 */
@injectable()
export class DeadLetterSink {
  private partitions = 1;

  constructor(@inject(DeadLetterSinkOptions) private readonly options: DeadLetterSinkOptions) {}

  /** Creates the topic if it is missing (one partition, as Connect does) and learns its partitions. */
  ensureTopic(): Observable<never> {
    const { admin, topic, replicationFactor } = this.options;
    return defer(async () => {
      await firstValueFrom(admin.createTopics([{ name: topic, partitions: 1, replicationFactor, configs: {} }]));
      const found = (await firstValueFrom(admin.describeTopics([topic]))).find((t) => t.name === topic);
      this.partitions = Math.max(1, found?.partitions ?? 1);
    }).pipe(ignoreElements());
  }

  write(failures: readonly RecordFailure[]): Observable<void> {
    const { topic, writer, logger } = this.options;
    return writer.write(this.records(failures)).pipe(
      retryWithBackoff({
        retries: Number.POSITIVE_INFINITY,
        initialDelayMs: 500,
        maxDelayMs: 30_000,
        factor: 2,
        jitter: 0.2,
        scheduler: this.options.scheduler,
        onRetry: (error, attempt, delayMs) =>
          logger.warn('Write to the dead-letter topic failed; retrying.', { topic, error: describeError(error), attempt, delayMs }),
      }),
      map(() => this.counted(failures)),
      mapRefusal(topic, failures),
    );
  }

  /**
   * The dead-letter records of `failures`, for a writer of the target's (`write`, or an
   * exactly-once flow's transaction). A source partition's failures go to one partition of the
   * topic, so they stay in order.
   */
  records(failures: readonly RecordFailure[]): OutboundRecord[] {
    const { topic, flow } = this.options;
    return failures.map((f) => deadLetterRecord(f, topic, f.error.source.partition % this.partitions, flow));
  }

  /** Once the dead-letter topic acknowledged (or a transaction committed) `failures`: counted and logged. */
  counted(failures: readonly RecordFailure[]): void {
    const { topic, logger, status } = this.options;
    status.recordsDeadLettered += failures.length;
    for (const { error } of failures) {
      status.recordError(error);
      logger.warn('A record failed and went to the dead-letter topic.', {
        deadLetterTopic: topic,
        topic: error.source.topic,
        partition: error.source.partition,
        offset: error.source.offset,
        stage: error.stage.kind,
        ...(error.stage.kind === 'transform' ? { plugin: error.stage.plugin, step: error.stage.step } : {}),
        error: error.reason,
      });
    }
  }

  /** A dead letter the topic refused too (larger than it takes): the failure that stops the flow, naming the record. */
  refusedFailure(failure: RecordFailure, error: RecordRefusedError): RecordFailedError {
    return deadLetterRefused(this.options.topic, failure.error, error);
  }
}

/** The dead-letter topic refusing a record too (larger than that topic takes) stops the flow, naming the record. */
function mapRefusal(topic: string, failures: readonly RecordFailure[]): MonoTypeOperatorFunction<void> {
  return catchError((error: unknown) => {
    if (!(error instanceof RecordRefusedError)) return throwError(() => error);
    return throwError(() => deadLetterRefused(topic, failures[error.index]!.error, error));
  });
}

function deadLetterRefused(topic: string, failed: RecordFailedError, error: RecordRefusedError): RecordFailedError {
  const reason = `${failed.reason} It could not go to the dead-letter topic "${topic}" either: ${error.message}`;
  return new RecordFailedError(failed.source, failed.stage, reason, { cause: error });
}
