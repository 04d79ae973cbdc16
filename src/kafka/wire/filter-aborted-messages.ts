/**
 * read_committed filtering of one fetched partition, batch by batch as Kafka's Java consumer does
 * it (CompletedFetch), installed in place of kafkajs's consumer/filterAbortedMessages.
 *
 * A control batch holds one control record whose key says what it marks:
 *
 *   ControlRecordKey => Version int16, Type int16 (0 = ABORT, 1 = COMMIT)
 *
 * The broker sends, with each partition of a Fetch, the aborted transactions that overlap the
 * fetched range as (producerId, firstOffset), in the order they ended (its transaction index),
 * not the order they began. Before each record batch, every aborted transaction whose first
 * offset is at or before the batch's last offset marks its producer as aborted; a transactional
 * data batch of an aborted producer is dropped whole; that producer's ABORT marker unmarks it.
 *
 * Why replace kafkajs's filter: it walks the aborted list in the order received, taking at most
 * one entry per message. When transactions of two producers overlap and the inner one ends first,
 * the broker lists the inner one first, and kafkajs marks the outer producer only once it reaches
 * a record past the inner transaction's start: the outer transaction's records before that point
 * are copied although it was aborted. Sorting by first offset and deciding per batch, as Java
 * does, keeps exactly what a read_committed Java consumer returns.
 *
 * Why here and not in the fetch decoder (fetch-decoder.ts): the decoder does not see the aborted
 * list (each Fetch response version reads it just before the record set), and kafkajs's Batch
 * computes the next fetch position from the messages before this filter runs. Records dropped here
 * still move the position past them, also when a fetch holds nothing but aborted and control
 * batches; records dropped in the decoder would leave such a fetch empty, and kafkajs would fetch
 * the same range forever. Control records are kept for Batch, which drops them next.
 */

/** What this filter reads of a fetched message: decoded records and forwarded batches alike. */
export interface FilteredMessage {
  readonly offset: string;
  readonly key?: Buffer | null;
  readonly batchContext?: {
    readonly firstOffset?: string;
    readonly lastOffsetDelta?: number;
    readonly producerId?: string;
    readonly inTransaction?: boolean;
    readonly isControlBatch?: boolean;
  };
}

export interface AbortedTransaction {
  readonly producerId: string;
  readonly firstOffset: string;
}

const ABORT_MARKER = 0;

function isAbortMarker(message: FilteredMessage): boolean {
  const key = message.key;
  return key !== null && key !== undefined && key.length >= 4 && key.readInt16BE(2) === ABORT_MARKER;
}

export function filterAbortedMessages<M extends FilteredMessage>({
  messages,
  abortedTransactions,
}: {
  messages: M[];
  abortedTransactions?: readonly AbortedTransaction[];
}): M[] {
  if (abortedTransactions === undefined || abortedTransactions.length === 0) return messages;
  const pending = abortedTransactions
    .map((t) => ({ producerId: t.producerId, firstOffset: Number(t.firstOffset) }))
    .sort((a, b) => a.firstOffset - b.firstOffset);
  let next = 0;
  const abortedProducers = new Set<string>();
  let batchFirstOffset: string | undefined;
  let dropBatch = false;
  const kept: M[] = [];
  for (const message of messages) {
    const batch = message.batchContext;
    // Messages of the old formats (magic 0 and 1) have no batch and cannot be transactional.
    if (batch?.firstOffset === undefined || batch.producerId === undefined) {
      kept.push(message);
      continue;
    }
    if (batch.firstOffset !== batchFirstOffset) {
      batchFirstOffset = batch.firstOffset;
      const lastOffset = Number(batch.firstOffset) + (batch.lastOffsetDelta ?? 0);
      while (next < pending.length && pending[next]!.firstOffset <= lastOffset) abortedProducers.add(pending[next++]!.producerId);
      if (batch.isControlBatch === true) {
        if (isAbortMarker(message)) abortedProducers.delete(batch.producerId);
        dropBatch = false;
      } else {
        dropBatch = batch.inTransaction === true && abortedProducers.has(batch.producerId);
      }
    }
    if (!dropBatch) kept.push(message);
  }
  return kept;
}
