/**
 * Fetch sessions (KIP-227) for a consumer's Fetch requests to one broker, as the Java consumer
 * keeps them: after the first request, each Fetch names only the partitions whose fetch offset
 * or size changed and the ones dropped, and the broker answers only the partitions with records,
 * an error or a new high watermark.
 *
 * kafkajs sends every Fetch in full (session 0, epoch -1): every assigned partition in the
 * request, every one of them in the answer, records or not. With thousands of idle partitions
 * that is the bulk of an idle consumer's work: encoding the request, decoding the answer, and one
 * empty batch per partition through kafkajs's consumer each round.
 *
 * `FetchSession` sits under kafkajs's `Broker.fetch` for connections whose behaviour asks for it
 * (install.ts; below fetching ahead, so `fetch-ahead.ts` sees the same requests and answers), and
 * sends by topic id (fetch-by-topic-id.ts): a broker keys a session's partitions by topic id, and
 * one created over thousands of partitions of hundreds of topics named without ids took a Kafka
 * broker seconds to minutes. To
 * kafkajs, a session's answer is a full answer whose unchanged partitions held no records: it
 * never sees a partition it did not ask for in that request, since a partition it stops asking for
 * is dropped from the session in the same request (`forgottenTopics`).
 *
 * The broker keeps each partition's fetch offset as last sent; it does not move it. So an
 * unchanged partition is read again from where it was asked: a batch kafkajs did not move past is
 * answered again, as a full Fetch would answer it.
 *
 * When the session's state is in doubt (a request failed, kafkajs threw on a partition error, the
 * broker lost the session or its epoch), the next request is a full one that replaces the session
 * (its id with epoch 0); so does a topic whose id changed (`restart`). A broker without a free session slot answers a full request with session
 * 0: the next request is full again, which is what kafkajs sent anyway.
 */
import type { FetchPartitionRequest, FetchRequest, FetchResponse } from './fetch-ahead';

/** A Fetch request with the session's fields (Fetch v7 and later). */
export interface SessionFetchRequest extends FetchRequest {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  readonly forgottenTopics: readonly { readonly topic: string; readonly partitions: readonly number[] }[];
}

/** What of a parsed Fetch response (v7 and later, in kafkajs's shape) a session reads. */
export interface SessionFetchResponse extends FetchResponse {
  /** The request's error: kafkajs's parse leaves it to the caller. */
  readonly errorCode: number;
  readonly sessionId: number;
}

/** Counts of what fetch sessions did, for their specs and for measuring. */
export interface FetchSessionCounts {
  /** Full requests: a new session asked for (or none to be had). */
  full: number;
  /** Requests with only the changes. */
  incremental: number;
  /** Sessions the broker no longer knew (or whose epoch it did not expect): the request sent again in full. */
  lost: number;
  /** Sessions closed (epoch -1) when their consumer disconnected. */
  closed: number;
}

/** Epoch 0 asks for a new session (and closes the one of the id sent). */
const NEW_SESSION_EPOCH = 0;
const MAX_EPOCH = 2_147_483_647;
/** Epoch -1 with a session's id closes the session (the request itself is sessionless). */
const FINAL_EPOCH = -1;
const FETCH_SESSION_ID_NOT_FOUND = 70;
const INVALID_FETCH_SESSION_EPOCH = 71;
/** The session's topic ids and the request's disagree (Fetch v13 and later). */
const FETCH_SESSION_TOPIC_ID_ERROR = 106;

/** A partition as the session holds it at the broker. */
interface Held {
  readonly fetchOffset: string;
  readonly maxBytes: number;
}

/** Thrown for a request error after a new session was asked for: kafkajs's consumer retries the fetch. */
export class FetchSessionError extends Error {
  readonly retriable = true;
  constructor(readonly code: number) {
    super(`Fetch session refused by the broker (error code ${code}) right after a new one was asked for`);
    this.name = 'FetchSessionError';
  }
}

export class FetchSession<R extends SessionFetchResponse> {
  /** The broker's id of the session; 0: none. */
  private id = 0;
  /** The epoch of the next request; NEW_SESSION_EPOCH: the next request is full. */
  private epoch = NEW_SESSION_EPOCH;
  /** The session's partitions, topic → partition → what was last sent (epoch > 0 only). */
  private held = new Map<string, Map<number, Held>>();
  /** The last request's turn: a session's requests go one at a time, each diffed against the last. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Whether the next request starts a new session whatever the state of this one. */
  private restarting = false;

  /**
   * `send` sends one Fetch with the session's fields to this broker. `counts` may be shared by the
   * brokers of every consumer, to say what fetch sessions did in the whole process.
   */
  constructor(
    private readonly send: (request: SessionFetchRequest) => Promise<R>,
    readonly counts: FetchSessionCounts = { full: 0, incremental: 0, lost: 0, closed: 0 },
  ) {}

  /** The next request starts a new session (a topic's id changed: the broker's session may hold the old one). */
  restart(): void {
    this.restarting = true;
  }

  fetch(request: FetchRequest): Promise<R> {
    const answered = this.turn.then(() => this.exchange(request));
    this.turn = answered.catch(() => undefined);
    return answered;
  }

  /**
   * Closes the session at the broker (a last request with epoch -1, after the one in flight), as
   * the Java consumer does when it closes, so that it does not hold one of the broker's session
   * slots until evicted. Nothing is sent without a session.
   */
  close(): Promise<void> {
    const closed = this.turn.then(async () => {
      const id = this.id;
      this.id = 0;
      this.replaceOnNext();
      if (id === 0) return;
      await this.send({ topics: [], forgottenTopics: [], sessionId: id, sessionEpoch: FINAL_EPOCH, maxWaitTime: 0, minBytes: 0 });
      this.counts.closed++;
    });
    this.turn = closed.catch(() => undefined);
    return closed;
  }

  private async exchange(request: FetchRequest): Promise<R> {
    const response = await this.sendOnce(request);
    if (!lostSession(response.errorCode)) return response;
    this.counts.lost++;
    const again = await this.sendOnce(request);
    if (again.errorCode !== 0) throw new FetchSessionError(again.errorCode);
    return again;
  }

  private async sendOnce(request: FetchRequest): Promise<R> {
    if (this.restarting) {
      this.restarting = false;
      this.replaceOnNext();
    }
    const full = this.epoch === NEW_SESSION_EPOCH;
    const wire = full ? this.fullRequest(request) : this.incrementalRequest(request);
    let response: R;
    try {
      response = await this.send(wire);
    } catch (error) {
      this.replaceOnNext();
      throw error;
    }
    if (response.errorCode !== 0) {
      this.replaceOnNext();
      return response;
    }
    if (full) {
      this.counts.full++;
      this.id = response.sessionId;
      this.epoch = this.id === 0 ? NEW_SESSION_EPOCH : 1;
      this.held = new Map();
      if (this.id !== 0) this.hold(wire);
    } else {
      this.counts.incremental++;
      this.hold(wire);
      this.epoch = this.epoch === MAX_EPOCH ? 1 : this.epoch + 1;
    }
    return response;
  }

  /** What the broker holds once it answered `wire`: its partitions as sent, its forgotten ones gone. */
  private hold(wire: SessionFetchRequest): void {
    for (const { topic, partitions } of wire.topics) {
      let held = this.held.get(topic);
      if (held === undefined) this.held.set(topic, (held = new Map()));
      for (const p of partitions) held.set(p.partition, { fetchOffset: p.fetchOffset, maxBytes: p.maxBytes });
    }
    for (const { topic, partitions } of wire.forgottenTopics) {
      const held = this.held.get(topic);
      if (held === undefined) continue;
      for (const partition of partitions) held.delete(partition);
      if (held.size === 0) this.held.delete(topic);
    }
  }

  /** The next request starts a new session in place of this one. */
  private replaceOnNext(): void {
    this.epoch = NEW_SESSION_EPOCH;
    this.held = new Map();
  }

  private fullRequest(request: FetchRequest): SessionFetchRequest {
    // kafkajs shuffles each full request so no partition always comes first when the answer is
    // capped at maxBytes (KIP-74); a session's broker moves each answered partition to the back.
    const topics = shuffled(request.topics.map(({ topic, partitions }) => ({ topic, partitions: shuffled([...partitions]) })));
    return { ...request, topics, sessionId: this.id, sessionEpoch: NEW_SESSION_EPOCH, forgottenTopics: [] };
  }

  /** The partitions new or changed since the session's last request, and the ones no longer asked for. */
  private incrementalRequest(request: FetchRequest): SessionFetchRequest {
    const topics: { topic: string; partitions: FetchPartitionRequest[] }[] = [];
    let stillHeld = 0;
    for (const { topic, partitions } of request.topics) {
      const held = this.held.get(topic);
      let changed: FetchPartitionRequest[] | undefined;
      for (const p of partitions) {
        const was = held?.get(p.partition);
        if (was !== undefined) stillHeld++;
        if (was !== undefined && was.fetchOffset === p.fetchOffset && was.maxBytes === p.maxBytes) continue;
        (changed ??= []).push(p);
      }
      if (changed !== undefined) topics.push({ topic, partitions: changed });
    }
    let heldCount = 0;
    for (const held of this.held.values()) heldCount += held.size;
    const forgottenTopics = stillHeld === heldCount ? [] : forgotten(this.held, request);
    return { ...request, topics, sessionId: this.id, sessionEpoch: this.epoch, forgottenTopics };
  }
}

/** The held partitions `request` does not ask for. */
function forgotten(held: ReadonlyMap<string, ReadonlyMap<number, Held>>, request: FetchRequest): { topic: string; partitions: number[] }[] {
  const asked = new Map(request.topics.map(({ topic, partitions }) => [topic, new Set(partitions.map((p) => p.partition))]));
  const dropped: { topic: string; partitions: number[] }[] = [];
  for (const [topic, partitions] of held) {
    const numbers = asked.get(topic);
    const gone = [...partitions.keys()].filter((partition) => numbers?.has(partition) !== true);
    if (gone.length > 0) dropped.push({ topic, partitions: gone });
  }
  return dropped;
}

function lostSession(errorCode: number): boolean {
  return errorCode === FETCH_SESSION_ID_NOT_FOUND || errorCode === INVALID_FETCH_SESSION_EPOCH || errorCode === FETCH_SESSION_TOPIC_ID_ERROR;
}

/** `items` in a random order (Fisher–Yates, in place). */
function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
