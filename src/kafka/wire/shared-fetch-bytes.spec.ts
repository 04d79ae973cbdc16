import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FetchRequest } from './fetch-ahead';
import { withSharedFetchBytes } from './shared-fetch-bytes';

const MIB = 1_048_576;

/** A Fetch as kafkajs's consumer asks for it: `partitions` partitions of each topic, each at `maxBytes`. */
function request(topics: Record<string, number>, maxBytes = MIB, total = 10 * MIB): FetchRequest {
  return {
    isolationLevel: 1,
    maxWaitTime: 500,
    minBytes: 1,
    maxBytes: total,
    topics: Object.entries(topics).map(([topic, count]) => ({
      topic,
      partitions: Array.from({ length: count }, (_, partition) => ({ partition, fetchOffset: String(100 + partition), maxBytes })),
    })),
  };
}

const sizes = (r: FetchRequest): number[] => r.topics.flatMap((t) => t.partitions.map((p) => p.maxBytes));

describe('withSharedFetchBytes', () => {
  it('gives a lone partition the whole shared size, two half of it each', () => {
    assert.deepEqual(sizes(withSharedFetchBytes(request({ large: 1 }), 4 * MIB)), [4 * MIB]);
    assert.deepEqual(sizes(withSharedFetchBytes(request({ a: 1, b: 1 }), 4 * MIB)), [2 * MIB, 2 * MIB]);
    assert.deepEqual(sizes(withSharedFetchBytes(request({ a: 3 }), 4 * MIB)), [1398101, 1398101, 1398101]);
  });

  it('leaves a request of four partitions or more as kafkajs made it (the same object)', () => {
    const requests: Record<string, number>[] = [{ a: 4 }, { a: 8 }, { a: 2, b: 2 }, { a: 1, b: 1, c: 1, d: 1, e: 1 }];
    for (const topics of requests) {
      const asked = request(topics);
      assert.equal(withSharedFetchBytes(asked, 4 * MIB), asked);
    }
  });

  it("never shrinks a partition's own size, and keeps what the fetch reads from where", () => {
    const asked = request({ t: 2 }, 3 * MIB);
    assert.equal(withSharedFetchBytes(asked, 4 * MIB), asked, 'each already asks for more than its share (2 MiB)');
    const widened = withSharedFetchBytes(request({ t: 1 }), 4 * MIB);
    assert.deepEqual(
      { ...widened, topics: widened.topics.map((t) => ({ ...t, partitions: t.partitions.map(({ partition, fetchOffset }) => ({ partition, fetchOffset })) })) },
      { isolationLevel: 1, maxWaitTime: 500, minBytes: 1, maxBytes: 10 * MIB, topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: '100' }] }] },
    );
  });

  it("stays within the request's total", () => {
    assert.deepEqual(sizes(withSharedFetchBytes(request({ t: 1 }, MIB, 2 * MIB), 4 * MIB)), [2 * MIB]);
    assert.deepEqual(sizes(withSharedFetchBytes(request({ t: 2 }, MIB, 2 * MIB), 4 * MIB)), [MIB, MIB]);
  });

  it('leaves an empty request alone', () => {
    const asked = request({});
    assert.equal(withSharedFetchBytes(asked, 4 * MIB), asked);
  });
});
