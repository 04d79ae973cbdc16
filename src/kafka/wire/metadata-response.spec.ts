/**
 * Our Metadata v5 response against kafkajs's own (its file, loaded beside the bundle): the same
 * answer for the same bytes, the replica lists shared within an answer, kafkajs's parse kept; and
 * kafkajs's v6 response, inside its bundle, decoding through ours.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import './install';
import { kafkajsInternal } from './kafkajs-internals';
import { metadataResponseV5, type MetadataResponse } from './metadata-response';
import { CompactWriter } from './compact-codec';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs's own module, compared with ours
const kafkajsV5 = require('kafkajs/src/protocol/requests/metadata/v5/response') as typeof metadataResponseV5;
const bundledV6 = kafkajsInternal('kafkajs/src/protocol/requests/metadata/v6/response') as typeof metadataResponseV5;

/** Broker ids as an INT32 array (−1 for null), as a Metadata answer lists replicas. */
const ids = (w: CompactWriter, list: readonly number[] | null): CompactWriter => {
  w.int32(list === null ? -1 : list.length);
  for (const id of list ?? []) w.int32(id);
  return w;
};

interface PartitionSpec {
  readonly error?: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[] | null;
  readonly offline?: readonly number[];
}

/** A Metadata v5 answer as a broker writes it: three brokers, controller 2, `topics`. */
function answer(topics: readonly { name: string; internal?: boolean; error?: number; partitions: readonly PartitionSpec[] }[]): Buffer {
  const w = new CompactWriter().int32(0).int32(3);
  for (const [id, rack] of [
    [1, 'rack-a'],
    [2, null],
    [3, 'rack-b'],
  ] as const)
    w.int32(id)
      .string('127.0.0.1')
      .int32(9091 + id)
      .string(rack);
  w.string('cluster-id').int32(2).int32(topics.length);
  for (const t of topics) {
    w.int16(t.error ?? 0)
      .string(t.name)
      .int8(t.internal === true ? 1 : 0)
      .int32(t.partitions.length);
    t.partitions.forEach((p, partition) => {
      w.int16(p.error ?? 0)
        .int32(partition)
        .int32(p.replicas[0] ?? -1);
      for (const list of [p.replicas, p.isr, p.offline ?? []]) ids(w, list);
    });
  }
  return w.build();
}

const placements = [
  { replicas: [1, 2, 3], isr: [1, 2, 3] },
  { replicas: [2, 3, 1], isr: [2, 3, 1] },
  { replicas: [3, 1, 2], isr: [3, 1], offline: [2] },
  { replicas: [1, 2, 3], isr: [1, 2, 3] },
  { replicas: [2, 3, 1], isr: null },
];
const topics = [
  { name: 'orders', partitions: placements },
  { name: '__consumer_offsets', internal: true, partitions: placements.slice(0, 2) },
  { name: 'empty', partitions: [] },
];

describe('the Metadata v5 response', () => {
  it("decodes what kafkajs's own decodes, field for field, a null list as an empty one", async () => {
    const bytes = answer(topics);
    assert.deepEqual(await metadataResponseV5.decode(bytes), await kafkajsV5.decode(bytes));
  });

  it('shares one frozen array per distinct list within an answer', async () => {
    const decoded: MetadataResponse = await metadataResponseV5.decode(answer(topics));
    const [orders, offsets] = decoded.topicMetadata;
    const p = orders!.partitionMetadata;
    assert.equal(p[0]!.replicas, p[3]!.replicas, 'the same placement, one array');
    assert.equal(p[0]!.replicas, p[0]!.isr, 'replicas and isr listing the same brokers, one array');
    assert.equal(p[1]!.replicas, offsets!.partitionMetadata[1]!.replicas, 'across topics');
    assert.notEqual(p[0]!.replicas, p[1]!.replicas, 'another order is another list');
    assert.deepEqual(p[2]!.offlineReplicas, [2]);
    assert.equal(p[0]!.offlineReplicas, p[4]!.isr, 'empty and null lists: one empty array');
    assert.ok(Object.isFrozen(p[0]!.replicas));
    const again = await metadataResponseV5.decode(answer(topics));
    assert.notEqual(again.topicMetadata[0]!.partitionMetadata[0]!.replicas, p[0]!.replicas, 'each answer has its own');
  });

  it("keeps kafkajs's parse: the first topic or partition error is thrown, an answer without one returned", async () => {
    const clean = await metadataResponseV5.decode(answer(topics));
    assert.equal(await metadataResponseV5.parse(clean), clean);
    const withError = answer([{ name: 'orders', partitions: [placements[0]!, { ...placements[1]!, error: 5 }] }]);
    for (const response of [metadataResponseV5, kafkajsV5])
      await assert.rejects(response.parse(await response.decode(withError)), { name: 'KafkaJSProtocolError', type: 'LEADER_NOT_AVAILABLE' });
  });

  it("is what kafkajs's bundled v6 response decodes with", async () => {
    const decoded: MetadataResponse = await bundledV6.decode(answer(topics));
    const p = decoded.topicMetadata[0]!.partitionMetadata;
    assert.equal(p[0]!.replicas, p[3]!.replicas);
  });
});
