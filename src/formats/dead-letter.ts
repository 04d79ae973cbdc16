/**
 * Dead-letter records, as Kafka Connect's DeadLetterQueueReporter writes them: the failed record's
 * key, value, timestamp and headers unchanged, then context headers (UTF-8 strings) under
 * Connect's names, so tools written for Connect's dead-letter topics read ours:
 *
 *   __connect.errors.topic / .partition / .offset    the record's source position
 *   __connect.errors.connector.name                   the flow (`source->target`)
 *   __connect.errors.stage                            TRANSFORMATION or KAFKA_PRODUCE (Connect's Stage)
 *   __connect.errors.class.name                       the transform plugin (TRANSFORMATION only)
 *   __connect.errors.exception.class.name             the class of the error the stage raised
 *   __connect.errors.exception.message                why, never quoting the record
 *   __mirrorflow.errors.transform.step                the step's place in the pipeline file
 *
 * Unlike Connect (`errors.deadletterqueue.context.headers.enable`, off by default), the context
 * headers are always written: without them a dead-letter record cannot be traced back to its
 * source, and they carry nothing of the record itself. Connect's stack trace header is left out,
 * since a stack starts with the error's message, which may quote record data.
 */
import type { RecordFailure, RecordHeader } from '../core/record';
import type { OutboundRecord } from '../core/ports/record-writer';

export const DEAD_LETTER_HEADERS = {
  topic: '__connect.errors.topic',
  partition: '__connect.errors.partition',
  offset: '__connect.errors.offset',
  connector: '__connect.errors.connector.name',
  stage: '__connect.errors.stage',
  className: '__connect.errors.class.name',
  exceptionClass: '__connect.errors.exception.class.name',
  exceptionMessage: '__connect.errors.exception.message',
  step: '__mirrorflow.errors.transform.step',
} as const;

/** A dead letter is written as any record is: to an explicit topic and partition. */
export type DeadLetterRecord = OutboundRecord;

/** The record `failure` as it goes to partition `partition` of the dead-letter topic `topic`. */
export function deadLetterRecord(failure: RecordFailure, topic: string, partition: number, flow: string): DeadLetterRecord {
  const { record, error } = failure;
  const h = (key: string, value: string): RecordHeader => ({ key, value: Buffer.from(value, 'utf8') });
  const context: RecordHeader[] = [
    h(DEAD_LETTER_HEADERS.topic, error.source.topic),
    h(DEAD_LETTER_HEADERS.partition, String(error.source.partition)),
    h(DEAD_LETTER_HEADERS.offset, String(error.source.offset)),
    h(DEAD_LETTER_HEADERS.connector, flow),
    h(DEAD_LETTER_HEADERS.stage, error.stage.kind === 'transform' ? 'TRANSFORMATION' : 'KAFKA_PRODUCE'),
  ];
  if (error.stage.kind === 'transform') context.push(h(DEAD_LETTER_HEADERS.className, error.stage.plugin));
  context.push(h(DEAD_LETTER_HEADERS.exceptionClass, errorClass(error.cause ?? error)), h(DEAD_LETTER_HEADERS.exceptionMessage, error.reason));
  if (error.stage.kind === 'transform') context.push(h(DEAD_LETTER_HEADERS.step, error.stage.step));
  return { topic, partition, timestamp: record.timestamp, key: record.key, value: record.value, headers: [...record.headers, ...context] };
}

function errorClass(error: unknown): string {
  if (error instanceof Error) return error.name;
  return error === null ? 'null' : typeof error;
}
