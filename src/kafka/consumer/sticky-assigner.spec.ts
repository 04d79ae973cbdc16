import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AssignerProtocol, PartitionAssigners } from '../kafkajs';
import { STICKY_ASSIGNER_NAME, STICKY_SLOT_ASSIGNER_NAME, decodeClaims, encodeClaims, stickyAssigner, type HeldPartitions } from './sticky-assigner';
import { SLOT_ASSIGNER_NAME } from './slot-assigner';
import type { TopicPartition } from '../../core/record';
import { silentLogger } from '../../core/ports/logger';

const cluster = { findTopicPartitionMetadata: (topic: string) => Array.from({ length: topic === 'a' ? 9 : 3 }, (_, partitionId) => ({ partitionId })) };
const tps = (topic: string, ...partitions: number[]): TopicPartition[] => partitions.map((partition) => ({ topic, partition }));
const slots = (count: number) => ({ count, of: (tp: TopicPartition) => tp.partition % count });

function member(memberId: string, held: HeldPartitions | undefined, slotCount?: number) {
  const made = stickyAssigner({ held: () => held, ...(slotCount === undefined ? {} : { slots: slots(slotCount) }) })({ cluster } as never);
  return { memberId, memberMetadata: made.protocol({ topics: ['a', 'b'] }).metadata };
}

async function assign(members: ReturnType<typeof member>[], slotCount?: number, logger = silentLogger): Promise<Record<string, TopicPartition[]>> {
  const leader = stickyAssigner({ held: () => undefined, ...(slotCount === undefined ? {} : { slots: slots(slotCount) }), logger })({ cluster } as never);
  const result = await leader.assign({ members, topics: ['a', 'b'] } as never);
  return Object.fromEntries(
    result.map((r) => {
      const { assignment } = AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!;
      return [r.memberId, Object.entries(assignment).flatMap(([topic, partitions]) => tps(topic, ...partitions))];
    }),
  );
}

test('claims travel in the user data: generation, slot count and partitions by topic', () => {
  const held = { generation: 42, partitions: [...tps('a', 3, 1), ...tps('b', 0), ...tps('ü-topic', 7)] };
  assert.deepEqual(decodeClaims(encodeClaims(held, undefined)), { generation: 42, slots: undefined, owned: held.partitions });
  assert.deepEqual(decodeClaims(encodeClaims(undefined, 4)), { generation: -1, slots: 4, owned: [] });
  // What cannot be read claims nothing.
  assert.equal(decodeClaims(Buffer.from([0, 0, 0])), undefined);
  assert.equal(decodeClaims(Buffer.concat([encodeClaims(held, undefined).subarray(0, 20)])), undefined);
  assert.equal(decodeClaims(undefined), undefined);
});

test('its own protocol names, at-least-once and exactly-once, beside the old assigners', () => {
  const alo = stickyAssigner({ held: () => undefined })({ cluster } as never);
  const eos = stickyAssigner({ held: () => undefined, slots: slots(3) })({ cluster } as never);
  assert.equal(alo.protocol({ topics: ['a'] }).name, STICKY_ASSIGNER_NAME);
  assert.equal(eos.protocol({ topics: ['a'] }).name, STICKY_SLOT_ASSIGNER_NAME);
  const roundRobin = PartitionAssigners.roundRobin({ cluster } as never);
  assert.notEqual(STICKY_ASSIGNER_NAME, roundRobin.name);
  assert.notEqual(STICKY_SLOT_ASSIGNER_NAME, SLOT_ASSIGNER_NAME);
});

test('members keep what they held; a newcomer takes its share from them', async () => {
  const first = await assign([member('m1', undefined), member('m2', undefined)]);
  assert.equal(first['m1']!.length + first['m2']!.length, 12);
  const second = await assign([
    member('m1', { generation: 1, partitions: first['m1']! }),
    member('m2', { generation: 1, partitions: first['m2']! }),
    member('m3', undefined),
  ]);
  assert.deepEqual(
    Object.values(second).map((t) => t.length),
    [4, 4, 4],
  );
  for (const m of ['m1', 'm2']) {
    const before = new Set(first[m]!.map((tp) => `${tp.topic}-${tp.partition}`));
    assert.ok(
      second[m]!.every((tp) => before.has(`${tp.topic}-${tp.partition}`)),
      `${m} kept only what it had`,
    );
  }
});

test('exactly-once: whole slots, and a member with another slot count gets nothing, said in a warning', async () => {
  const warnings: string[] = [];
  const result = await assign([member('a', undefined, 3), member('b', undefined, 3), member('c', undefined, 5)], 3, {
    ...silentLogger,
    warn: (message: string) => void warnings.push(message),
  });
  assert.deepEqual(result['c'], []);
  assert.equal(result['a']!.length + result['b']!.length, 12);
  for (const owned of [result['a']!, result['b']!]) {
    const mine = new Set(owned.map((tp) => tp.partition % 3));
    assert.equal([...result['a']!, ...result['b']!].filter((tp) => mine.has(tp.partition % 3)).length, owned.length, 'no slot split');
  }
  assert.ok(warnings.some((w) => /another slot count/.test(w)));
});
