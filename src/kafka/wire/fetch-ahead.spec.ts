import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FetchAhead, nextRequest, requestKey, type FetchRequest, type FetchResponse } from './fetch-ahead';

type Partitions = Record<number, { fetchOffset: number }>;

/** A request of topic `t` as kafkajs's consumer makes it. */
function request(partitions: Partitions, isolationLevel = 0): FetchRequest {
  return {
    isolationLevel,
    maxWaitTime: 500,
    minBytes: 1,
    maxBytes: 10_485_760,
    topics: [
      {
        topic: 't',
        partitions: Object.entries(partitions).map(([p, { fetchOffset }]) => ({ partition: Number(p), fetchOffset: String(fetchOffset), maxBytes: 1_048_576 })),
      },
    ],
  };
}

interface Answer {
  /** Offsets of the records (or last offsets of the whole batches) answered. */
  readonly offsets: readonly number[];
  readonly highWatermark: number;
  readonly lastStableOffset?: number;
}

function response(partitions: Record<number, Answer>): FetchResponse {
  return {
    responses: [
      {
        topicName: 't',
        partitions: Object.entries(partitions).map(([p, a]) => ({
          partition: Number(p),
          highWatermark: String(a.highWatermark),
          lastStableOffset: String(a.lastStableOffset ?? a.highWatermark),
          messages: a.offsets.map((offset) => ({ offset: String(offset) })),
        })),
      },
    ],
  };
}

/**
 * A broker whose log of topic `t` has `ends[p]` records in partition p and answers a Fetch with
 * up to `perFetch` records of each partition; it records every request it is sent.
 */
function fakeBroker(ends: Record<number, number>, perFetch = 10) {
  const sent: FetchRequest[] = [];
  let failNext = false;
  const send = (req: FetchRequest): Promise<FetchResponse> => {
    sent.push(req);
    if (failNext) {
      failNext = false;
      return Promise.reject(new Error('The broker went away.'));
    }
    const answers: Record<number, Answer> = {};
    for (const { partition, fetchOffset } of req.topics[0]!.partitions) {
      const from = Number(fetchOffset);
      const end = ends[partition]!;
      const offsets = Array.from({ length: Math.max(0, Math.min(perFetch, end - from)) }, (_, i) => from + i);
      answers[partition] = { offsets, highWatermark: end };
    }
    return Promise.resolve(response(answers));
  };
  return { sent, send, failNextSend: () => (failNext = true) };
}

/** Every request kafkajs's consumer would send next after `res` (each partition past its last record). */
function kafkajsNext(req: FetchRequest, res: FetchResponse): FetchRequest {
  const last = new Map(res.responses[0]!.partitions.map((p) => [p.partition, p.messages.at(-1)?.offset]));
  return {
    ...req,
    // kafkajs lists the partitions of each request in another order.
    topics: [
      {
        topic: 't',
        partitions: [...req.topics[0]!.partitions].reverse().map((p) => {
          const offset = last.get(p.partition);
          return offset === undefined ? p : { ...p, fetchOffset: String(Number(offset) + 1) };
        }),
      },
    ],
  };
}

describe('FetchAhead', () => {
  it("answers kafkajs's next request with the fetch already sent, and sends the one after it", async () => {
    const broker = fakeBroker({ 0: 30, 1: 30 });
    const ahead = new FetchAhead(broker.send);
    const first = request({ 0: { fetchOffset: 0 }, 1: { fetchOffset: 0 } });
    const one = await ahead.fetch(first);
    assert.equal(broker.sent.length, 2, 'the next Fetch went out as soon as the first was answered');
    assert.equal(requestKey(broker.sent[1]!), requestKey(request({ 0: { fetchOffset: 10 }, 1: { fetchOffset: 10 } })));

    const second = kafkajsNext(first, one);
    const two = await ahead.fetch(second);
    assert.deepEqual(
      two.responses[0]!.partitions.map((p) => p.messages.map((m) => m.offset)),
      [0, 1].map(() => Array.from({ length: 10 }, (_, i) => String(10 + i))),
      'offsets 10-19 of both partitions',
    );
    assert.equal(broker.sent.length, 3, 'kafkajs waited on no Fetch of its own; the third went out ahead');
    assert.deepEqual(ahead.counts, { sent: 2, used: 1, dropped: 0 });
  });

  it('sends the request kafkajs asks for when it is another one (a seek), and drops the early answer', async () => {
    const broker = fakeBroker({ 0: 30 });
    const ahead = new FetchAhead(broker.send);
    await ahead.fetch(request({ 0: { fetchOffset: 0 } }));
    const seek = request({ 0: { fetchOffset: 5 } });
    const answer = await ahead.fetch(seek);
    assert.equal(answer.responses[0]!.partitions[0]!.messages[0]!.offset, '5');
    assert.equal(requestKey(broker.sent[2]!), requestKey(seek), 'the seek went to the broker as asked');
    assert.equal(ahead.counts.dropped, 1);
  });

  it('sends nothing ahead once the consumer caught up, so an idle consumer and a stop are as before', async () => {
    const broker = fakeBroker({ 0: 10, 1: 3 });
    const ahead = new FetchAhead(broker.send);
    await ahead.fetch(request({ 0: { fetchOffset: 0 }, 1: { fetchOffset: 0 } }));
    await ahead.fetch(request({ 0: { fetchOffset: 10 }, 1: { fetchOffset: 3 } }));
    assert.equal(broker.sent.length, 2, 'both answers reached the end of every partition: no Fetch ahead');
    assert.deepEqual(ahead.counts, { sent: 0, used: 0, dropped: 0 });
  });

  it('lets a Fetch that kafkajs asked for fail as it would have without fetching ahead', async () => {
    const broker = fakeBroker({ 0: 30 });
    const ahead = new FetchAhead(broker.send);
    await ahead.fetch(request({ 0: { fetchOffset: 0 } }));
    broker.failNextSend();
    await assert.rejects(ahead.fetch(request({ 0: { fetchOffset: 5 } })), /went away/);
  });

  it('sends kafkajs its request again when the early Fetch failed', async () => {
    const broker = fakeBroker({ 0: 30 });
    let calls = 0;
    const ahead = new FetchAhead((req) => (++calls === 2 ? Promise.reject(new Error('The broker went away.')) : broker.send(req)));
    const first = request({ 0: { fetchOffset: 0 } });
    const one = await ahead.fetch(first);
    const two = await ahead.fetch(kafkajsNext(first, one));
    assert.equal(two.responses[0]!.partitions[0]!.messages[0]!.offset, '10', 'answered by a Fetch of its own');
    assert.equal(ahead.counts.dropped, 1);
  });
});

describe('nextRequest', () => {
  it('moves each partition that got records past its last one, and keeps the others where they were', () => {
    const next = nextRequest(
      request({ 0: { fetchOffset: 0 }, 1: { fetchOffset: 7 } }),
      response({ 0: { offsets: [0, 1, 2], highWatermark: 100 }, 1: { offsets: [], highWatermark: 7 } }),
    );
    assert.equal(requestKey(next!), requestKey(request({ 0: { fetchOffset: 3 }, 1: { fetchOffset: 7 } })));
  });

  it('keeps a partition whose records all lie below the fetch offset (a compressed batch that starts earlier)', () => {
    const next = nextRequest(
      request({ 0: { fetchOffset: 0 }, 1: { fetchOffset: 50 } }),
      response({ 0: { offsets: [9], highWatermark: 100 }, 1: { offsets: [40, 45], highWatermark: 100 } }),
    );
    assert.equal(requestKey(next!), requestKey(request({ 0: { fetchOffset: 10 }, 1: { fetchOffset: 50 } })));
  });

  it('reads a read_committed consumer as caught up at the last stable offset, not the high watermark', () => {
    const committed = request({ 0: { fetchOffset: 0 } }, 1);
    const open = response({ 0: { offsets: [0, 1, 2], highWatermark: 100, lastStableOffset: 3 } });
    assert.equal(nextRequest(committed, open), undefined, 'at the last stable offset: caught up');
    assert.notEqual(nextRequest(request({ 0: { fetchOffset: 0 } }, 0), open), undefined, 'read_uncommitted is behind the high watermark');
  });

  it('sends nothing ahead for an answer without records', () => {
    assert.equal(nextRequest(request({ 0: { fetchOffset: 4 } }), response({ 0: { offsets: [], highWatermark: 9 } })), undefined);
  });
});

describe('requestKey', () => {
  it('tells requests apart by partition offsets and sizes, not by the order kafkajs lists them in', () => {
    const a = request({ 0: { fetchOffset: 1 }, 1: { fetchOffset: 2 } });
    const reordered: FetchRequest = { ...a, topics: [{ topic: 't', partitions: [...a.topics[0]!.partitions].reverse() }] };
    assert.equal(requestKey(a), requestKey(reordered));
    assert.notEqual(requestKey(a), requestKey(request({ 0: { fetchOffset: 1 }, 1: { fetchOffset: 3 } })));
    assert.notEqual(requestKey(a), requestKey({ ...a, maxBytes: 1 }));
    assert.notEqual(requestKey(a), requestKey({ ...a, isolationLevel: 1 }));
  });
});
