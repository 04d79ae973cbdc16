/**
 * Fetch ahead: a consumer's next Fetch is on its way while the records of the last one are handed
 * over, as the Java consumer pipelines its fetches.
 *
 * kafkajs sends a broker's next Fetch only once every batch of the last one went through
 * `eachBatch`, so each round costs the round trip, the transfer and the hand-over one after
 * another. Across a 50 ms round trip that bound a flow's reads: 8 MiB (1 MiB for each of 8
 * partitions) every ~110 ms, of which ~90 ms was the network.
 *
 * `FetchAhead` sits in front of one broker's `fetch` (install.ts wraps kafkajs's `Broker.fetch` for
 * connections whose behaviour asks for it). When a Fetch answers with records and the consumer is
 * still behind the partition's end, it sends the Fetch that kafkajs will send next (the same
 * request, each partition from one past the last offset it received) at once. When kafkajs asks for
 * exactly that request (same partitions, offsets, sizes and isolation), it gets the answer already
 * there or on its way; any other request (a seek, a new assignment, a partition kafkajs did not move
 * past where expected) is sent as asked, and the early answer is dropped. An early request that
 * failed is not reported: the one kafkajs asked for is sent instead, and reports its own failure.
 *
 * What it never changes: an answer is only used for the very request it answers, so a consumer sees
 * what it would have seen had it sent that request a little earlier (a Fetch is a read of the log at
 * the time the broker serves it). Offsets stay kafkajs's own and the flow's progress still only
 * moves over acknowledged records.
 *
 * What it costs: one more Fetch answer (at most the request's `maxBytes`) in memory per broker of
 * the source, beside the flow's buffer budget; the flow's budget still holds kafkajs's hand-over,
 * so the held answer waits, and nothing is fetched further ahead. A consumer that caught up (every
 * partition at its end) fetches as before, so the latency path and an idle flow are unchanged, and
 * a stop never waits out an early long poll.
 */

/** One partition of a Fetch request, as kafkajs's consumer asks for it. */
export interface FetchPartitionRequest {
  readonly partition: number;
  readonly fetchOffset: string;
  readonly maxBytes: number;
}

/** The arguments of kafkajs's `Broker.fetch`. */
export interface FetchRequest {
  readonly replicaId?: number;
  readonly isolationLevel?: number;
  readonly maxWaitTime?: number;
  readonly minBytes?: number;
  readonly maxBytes?: number;
  readonly topics: readonly { readonly topic: string; readonly partitions: readonly FetchPartitionRequest[] }[];
  readonly rackId?: string;
}

/** What of kafkajs's parsed Fetch response (v4 and later) fetching ahead reads. */
export interface FetchResponse {
  readonly responses: readonly {
    readonly topicName: string;
    readonly partitions: readonly {
      readonly partition: number;
      readonly highWatermark: string;
      readonly lastStableOffset?: string;
      /** Decoded records and whole record batches (fetch-decoder.ts), each with its last offset. */
      readonly messages: readonly { readonly offset: string }[];
    }[];
  }[];
}

/** kafkajs's isolation level of a read_committed consumer. */
const READ_COMMITTED = 1;

type Settled<R> = { readonly ok: true; readonly response: R } | { readonly ok: false };

/** Counts of what fetching ahead did, for its specs and for measuring. */
export interface FetchAheadCounts {
  /** Early requests sent. */
  sent: number;
  /** Early answers kafkajs's request took. */
  used: number;
  /** Early answers dropped: kafkajs asked for another request, or the early one failed. */
  dropped: number;
}

export class FetchAhead<R extends FetchResponse> {
  private pending: { readonly key: string; readonly answer: Promise<Settled<R>> } | undefined;

  /**
   * `send` sends one Fetch to this broker: kafkajs's own `Broker.fetch`. `counts` may be shared
   * by the brokers of every consumer, to say what fetching ahead did in the whole process.
   */
  constructor(
    private readonly send: (request: FetchRequest) => Promise<R>,
    readonly counts: FetchAheadCounts = { sent: 0, used: 0, dropped: 0 },
  ) {}

  async fetch(request: FetchRequest): Promise<R> {
    const pending = this.pending;
    this.pending = undefined;
    let response: R | undefined;
    if (pending !== undefined) {
      const settled = pending.key === requestKey(request) ? await pending.answer : undefined;
      if (settled?.ok === true) {
        this.counts.used++;
        response = settled.response;
      } else this.counts.dropped++;
    }
    response ??= await this.send(request);
    const next = nextRequest(request, response);
    if (next !== undefined) {
      this.counts.sent++;
      this.pending = {
        key: requestKey(next),
        answer: this.send(next).then(
          (early): Settled<R> => ({ ok: true, response: early }),
          (): Settled<R> => ({ ok: false }),
        ),
      };
    }
    return response;
  }
}

/**
 * The request kafkajs sends after `response`, when the consumer is behind: each partition from one
 * past the last offset it got (kafkajs resolves a fetched partition at its last record, control
 * records and records below the fetch offset aside), the others from where they were. Undefined
 * when no partition got records, or every partition that did reached its end: the next request
 * would wait at the broker, and is better sent by kafkajs when it wants it.
 */
export function nextRequest(request: FetchRequest, response: FetchResponse): FetchRequest | undefined {
  const ends = new Map<string, { next: bigint; end: bigint }>();
  for (const { topicName, partitions } of response.responses) {
    for (const p of partitions) {
      const last = p.messages[p.messages.length - 1];
      if (last === undefined) continue;
      const stable = request.isolationLevel === READ_COMMITTED && p.lastStableOffset !== undefined && BigInt(p.lastStableOffset) >= 0n;
      ends.set(`${topicName}\u0000${p.partition}`, { next: BigInt(last.offset) + 1n, end: BigInt(stable ? p.lastStableOffset! : p.highWatermark) });
    }
  }
  if (ends.size === 0) return undefined;
  let behind = false;
  const topics = request.topics.map(({ topic, partitions }) => ({
    topic,
    partitions: partitions.map((p) => {
      const moved = ends.get(`${topic}\u0000${p.partition}`);
      if (moved === undefined || moved.next <= BigInt(p.fetchOffset)) return p;
      if (moved.next < moved.end) behind = true;
      return { ...p, fetchOffset: moved.next.toString() };
    }),
  }));
  return behind ? { ...request, topics } : undefined;
}

/** Two requests with the same key ask the broker for the same thing (kafkajs shuffles the partitions of each request it sends). */
export function requestKey(request: FetchRequest): string {
  const partitions = request.topics
    .flatMap(({ topic, partitions }) => partitions.map((p) => `${topic}\u0000${p.partition}\u0000${p.fetchOffset}\u0000${p.maxBytes}`))
    .sort();
  const { replicaId, isolationLevel, maxWaitTime, minBytes, maxBytes, rackId } = request;
  return JSON.stringify([replicaId, isolationLevel, maxWaitTime, minBytes, maxBytes, rackId ?? '', partitions]);
}
