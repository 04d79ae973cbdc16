import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FetchRequest } from './fetch-ahead';
import { FetchSession, FetchSessionError, type SessionFetchRequest, type SessionFetchResponse } from './fetch-session';

/** A request as kafkajs's consumer makes it: topic → partition → fetch offset. */
function request(offsets: Record<string, Record<number, number>>, maxBytes = 1_048_576): FetchRequest {
  return {
    isolationLevel: 0,
    maxWaitTime: 500,
    minBytes: 1,
    maxBytes: 10_485_760,
    topics: Object.entries(offsets).map(([topic, partitions]) => ({
      topic,
      partitions: Object.entries(partitions).map(([p, offset]) => ({ partition: Number(p), fetchOffset: String(offset), maxBytes })),
    })),
  };
}

/**
 * A broker with fetch sessions as KIP-227 describes them: logs of `ends` records per partition; a
 * session holds each partition's fetch offset as last sent; an incremental answer has only the
 * partitions with records or a high watermark it has not answered yet.
 */
class SessionBroker {
  readonly sent: SessionFetchRequest[] = [];
  readonly ends = new Map<string, number>();
  private readonly sessions = new Map<number, { epoch: number; partitions: Map<string, { offset: number; answeredEnd: number }> }>();
  private nextId = 1;
  /** The sessions the broker holds. */
  get open(): number {
    return this.sessions.size;
  }

  /** Session ids forgotten at once (an evicted session). */
  evict(): void {
    this.sessions.clear();
  }

  readonly send = async (wire: SessionFetchRequest): Promise<SessionFetchResponse> => {
    this.sent.push(wire);
    let session;
    if (wire.sessionEpoch === -1) {
      // A sessionless request; with a session's id it closes that session.
      this.sessions.delete(wire.sessionId);
      return { errorCode: 0, sessionId: 0, responses: [] };
    }
    if (wire.sessionEpoch === 0) {
      this.sessions.delete(wire.sessionId);
      session = { epoch: 0, partitions: new Map<string, { offset: number; answeredEnd: number }>() };
      this.sessions.set(this.nextId, session);
      wire = { ...wire, sessionId: this.nextId++ };
    } else {
      session = this.sessions.get(wire.sessionId);
      if (session === undefined) return { errorCode: 70, sessionId: 0, responses: [] };
      if (wire.sessionEpoch !== session.epoch + 1) return { errorCode: 71, sessionId: 0, responses: [] };
      session.epoch = wire.sessionEpoch;
    }
    for (const { topic, partitions } of wire.forgottenTopics) for (const p of partitions) session.partitions.delete(`${topic}-${p}`);
    for (const { topic, partitions } of wire.topics)
      for (const p of partitions) {
        const key = `${topic}-${p.partition}`;
        session.partitions.set(key, { offset: Number(p.fetchOffset), answeredEnd: session.partitions.get(key)?.answeredEnd ?? -1 });
      }
    const byTopic = new Map<string, SessionFetchResponse['responses'][number]['partitions'][number][]>();
    for (const [key, held] of session.partitions) {
      const end = this.ends.get(key) ?? 0;
      const records = Math.max(0, end - held.offset);
      if (wire.sessionEpoch !== 0 && records === 0 && held.answeredEnd === end) continue;
      held.answeredEnd = end;
      const [topic, partition] = [key.slice(0, key.lastIndexOf('-')), Number(key.slice(key.lastIndexOf('-') + 1))];
      const list = byTopic.get(topic) ?? [];
      list.push({
        partition,
        highWatermark: String(end),
        messages: Array.from({ length: records }, (_, i) => ({ offset: String(held.offset + i) })),
      });
      byTopic.set(topic, list);
    }
    return {
      errorCode: 0,
      sessionId: wire.sessionId,
      responses: [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions: partitions.sort((a, b) => a.partition - b.partition) })),
    };
  };
}

/** The partitions an answer holds, as `topic-partition: offsets`. */
function answered(response: SessionFetchResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { topicName, partitions } of response.responses)
    for (const p of partitions) out[`${topicName}-${p.partition}`] = p.messages.map((m) => m.offset).join(',');
  return out;
}

/** What a sent request asked for: `topic-partition@offset`, sorted. */
function asked(wire: SessionFetchRequest): string[] {
  return wire.topics.flatMap(({ topic, partitions }) => partitions.map((p) => `${topic}-${p.partition}@${p.fetchOffset}`)).sort();
}

describe('FetchSession', () => {
  it('sends everything once, then only the partitions whose offsets moved; answers only those with news', async () => {
    const broker = new SessionBroker();
    broker.ends.set('a-0', 2);
    const session = new FetchSession(broker.send);

    const first = await session.fetch(request({ a: { 0: 0, 1: 0 }, b: { 0: 0 } }));
    assert.deepEqual(asked(broker.sent[0]!), ['a-0@0', 'a-1@0', 'b-0@0']);
    assert.equal(broker.sent[0]!.sessionEpoch, 0);
    assert.deepEqual(answered(first), { 'a-0': '0,1', 'a-1': '', 'b-0': '' });

    // a-0 moved past its records; the others did not: only a-0 is sent, and nothing has news.
    const second = await session.fetch(request({ a: { 0: 2, 1: 0 }, b: { 0: 0 } }));
    assert.deepEqual(asked(broker.sent[1]!), ['a-0@2']);
    assert.equal(broker.sent[1]!.sessionEpoch, 1);
    assert.deepEqual(broker.sent[1]!.forgottenTopics, []);
    assert.deepEqual(answered(second), {});

    // A record arrives on b-0: it is answered although the request did not name it.
    broker.ends.set('b-0', 1);
    const third = await session.fetch(request({ a: { 0: 2, 1: 0 }, b: { 0: 0 } }));
    assert.deepEqual(asked(broker.sent[2]!), []);
    assert.deepEqual(answered(third), { 'b-0': '0' });
    assert.deepEqual(session.counts, { full: 1, incremental: 2, lost: 0, closed: 0 });
  });

  it('answers an unmoved partition again from where it was asked, as a full Fetch would', async () => {
    const broker = new SessionBroker();
    broker.ends.set('a-0', 3);
    const session = new FetchSession(broker.send);
    await session.fetch(request({ a: { 0: 0 } }));
    // kafkajs did not move past the batch (its handler failed): the same offset again.
    const again = await session.fetch(request({ a: { 0: 0 } }));
    assert.deepEqual(asked(broker.sent[1]!), []);
    assert.deepEqual(answered(again), { 'a-0': '0,1,2' });
  });

  it('forgets the partitions no longer asked for, and takes them back from their new offsets', async () => {
    const broker = new SessionBroker();
    broker.ends.set('a-1', 5);
    const session = new FetchSession(broker.send);
    await session.fetch(request({ a: { 0: 0, 1: 5 } }));
    // a-1 paused: not asked for, so forgotten; records arriving there are not answered.
    broker.ends.set('a-1', 8);
    const paused = await session.fetch(request({ a: { 0: 0 } }));
    assert.deepEqual(broker.sent[1]!.forgottenTopics, [{ topic: 'a', partitions: [1] }]);
    assert.deepEqual(answered(paused), {});
    const resumed = await session.fetch(request({ a: { 0: 0, 1: 5 } }));
    assert.deepEqual(asked(broker.sent[2]!), ['a-1@5']);
    assert.deepEqual(answered(resumed), { 'a-1': '5,6,7' });
  });

  it('a lost session: the same request again in full, in a new session', async () => {
    const broker = new SessionBroker();
    broker.ends.set('a-0', 1);
    const session = new FetchSession(broker.send);
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    broker.evict();
    const response = await session.fetch(request({ a: { 0: 1, 1: 0 } }));
    assert.deepEqual(
      broker.sent.map((w) => [w.sessionEpoch, asked(w).join(' ')]),
      [
        [0, 'a-0@0 a-1@0'],
        [1, 'a-0@1'],
        [0, 'a-0@1 a-1@0'],
      ],
    );
    assert.deepEqual(answered(response), { 'a-0': '', 'a-1': '' });
    assert.deepEqual(session.counts, { full: 2, incremental: 0, lost: 1, closed: 0 });
    // And it goes on incrementally in the new session.
    await session.fetch(request({ a: { 0: 1, 1: 0 } }));
    assert.equal(broker.sent[3]!.sessionEpoch, 1);
  });

  it('after a failed request the next one replaces the session: its id, epoch 0, everything', async () => {
    const broker = new SessionBroker();
    let fail = false;
    const session = new FetchSession(async (wire: SessionFetchRequest) => {
      if (fail) {
        broker.sent.push(wire);
        throw new Error('Connection error: ECONNRESET');
      }
      return broker.send(wire);
    });
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    fail = true;
    await assert.rejects(session.fetch(request({ a: { 0: 0, 1: 0 } })), /ECONNRESET/);
    fail = false;
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    const last = broker.sent.at(-1)!;
    assert.equal(last.sessionId, 1);
    assert.equal(last.sessionEpoch, 0);
    assert.deepEqual(asked(last), ['a-0@0', 'a-1@0']);
  });

  it('a broker without a free session slot (session 0): every request in full', async () => {
    const sent: SessionFetchRequest[] = [];
    const session = new FetchSession(async (wire: SessionFetchRequest): Promise<SessionFetchResponse> => {
      sent.push(wire);
      return { errorCode: 0, sessionId: 0, responses: [] };
    });
    await session.fetch(request({ a: { 0: 0 } }));
    await session.fetch(request({ a: { 0: 0 } }));
    assert.deepEqual(
      sent.map((w) => [w.sessionId, w.sessionEpoch, asked(w).length]),
      [
        [0, 0, 1],
        [0, 0, 1],
      ],
    );
  });

  it('a session refused right after it was made new: a retriable error, not an empty answer', async () => {
    const session = new FetchSession(async (): Promise<SessionFetchResponse> => ({ errorCode: 71, sessionId: 0, responses: [] }));
    await assert.rejects(session.fetch(request({ a: { 0: 0 } })), (error: unknown) => error instanceof FetchSessionError && error.retriable);
  });

  it('requests overlapping in time go one after another, each against the last one answered', async () => {
    const broker = new SessionBroker();
    const session = new FetchSession(broker.send);
    const [, second] = await Promise.all([session.fetch(request({ a: { 0: 0, 1: 0 } })), session.fetch(request({ a: { 0: 0, 1: 0 } }))]);
    assert.deepEqual(
      broker.sent.map((w) => w.sessionEpoch),
      [0, 1],
    );
    assert.deepEqual(answered(second), {});
  });

  it('restart: the next request replaces the session in full (a topic id changed), then goes on incrementally', async () => {
    const broker = new SessionBroker();
    const session = new FetchSession(broker.send);
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    session.restart();
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    await session.fetch(request({ a: { 0: 0, 1: 0 } }));
    assert.deepEqual(
      broker.sent.map((w) => [w.sessionId, w.sessionEpoch, asked(w).length]),
      [
        [0, 0, 2],
        [1, 1, 0],
        [1, 0, 2],
        [2, 1, 0],
      ],
    );
  });

  it('close: a last request with epoch -1 ends the session at the broker; the next fetch starts a new one', async () => {
    const broker = new SessionBroker();
    const session = new FetchSession(broker.send);
    await session.fetch(request({ a: { 0: 0 } }));
    assert.equal(broker.open, 1);
    await session.close();
    assert.equal(broker.open, 0, 'the broker holds no session once closed');
    assert.deepEqual([broker.sent.at(-1)!.sessionId, broker.sent.at(-1)!.sessionEpoch, asked(broker.sent.at(-1)!)], [1, -1, []]);
    await session.fetch(request({ a: { 0: 0 } }));
    assert.deepEqual([broker.sent.at(-1)!.sessionId, broker.sent.at(-1)!.sessionEpoch], [0, 0]);
    assert.equal(session.counts.closed, 1);
  });

  it('close without a session sends nothing; a close waits for the request in flight', async () => {
    const broker = new SessionBroker();
    const session = new FetchSession(broker.send);
    await session.close();
    assert.equal(broker.sent.length, 0);
    const fetched = session.fetch(request({ a: { 0: 0 } }));
    const closed = session.close();
    await Promise.all([fetched, closed]);
    assert.deepEqual(
      broker.sent.map((w) => w.sessionEpoch),
      [0, -1],
    );
  });
});
