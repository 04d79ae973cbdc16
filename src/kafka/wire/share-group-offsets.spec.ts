/**
 * The share-group requests (KIP-932) against bytes Kafka wrote (fixtures/, captured by
 * test/interop/capture-share-group-fixtures.ts): each request as the request class of Kafka's
 * Java AdminClient encodes it, and a Kafka 4.3.1 broker's answer to exactly that request. Topic
 * ids and member ids differ per capture; everything else is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  alterShareGroupOffsetsRequest,
  decodeAlterShareGroupOffsetsV0,
  decodeDescribeShareGroupOffsetsResponse,
  decodeShareGroupDescribeV1,
  describeShareGroupOffsetsRequest,
  encodeAlterShareGroupOffsetsV0,
  encodeDescribeShareGroupOffsetsRequest,
  encodeShareGroupDescribeV1,
  shareGroupDescribeRequest,
} from './share-group-offsets';

/** `src/kafka/wire/fixtures/<name>`, from `dist/src/kafka/wire/`. */
const fixture = (name: string): Buffer =>
  Buffer.from(readFileSync(resolve(__dirname, '..', '..', '..', '..', 'src', 'kafka', 'wire', 'fixtures', name), 'utf8').replace(/\s/g, ''), 'hex');

const TOPIC_ID = /^[A-Za-z0-9_-]{22}$/;
const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

test("AlterShareGroupOffsets v0: the request is byte for byte what Kafka's Java AdminClient encodes", () => {
  const idle = encodeAlterShareGroupOffsetsV0('wire-share-idle', [
    {
      topic: 'wire-share',
      partitions: [
        { partition: 0, startOffset: 3 },
        { partition: 1, startOffset: 4 },
      ],
    },
    { topic: 'wire-share-missing', partitions: [{ partition: 0, startOffset: 1 }] },
  ]);
  assert.equal(idle.toString('hex'), fixture('java-alter-share-group-offsets-v0-request.hex').toString('hex'));
  const busy = encodeAlterShareGroupOffsetsV0('wire-share-busy', [{ topic: 'wire-share', partitions: [{ partition: 0, startOffset: 0 }] }]);
  assert.equal(busy.toString('hex'), fixture('java-alter-share-group-offsets-busy-v0-request.hex').toString('hex'));
});

test("AlterShareGroupOffsets v0: a broker's answer per partition, the unknown topic refused and the others altered", () => {
  const response = decodeAlterShareGroupOffsetsV0(fixture('broker-alter-share-group-offsets-v0.hex'));
  assert.equal(response.throttleTimeMs, 0);
  assert.equal(response.errorCode, 0);
  assert.equal(response.errorMessage, null);
  const byTopic = new Map(response.topics.map((t) => [t.topic, t]));
  assert.deepEqual(byTopic.get('wire-share')?.partitions, [
    { partition: 0, errorCode: 0, errorMessage: null },
    { partition: 1, errorCode: 0, errorMessage: null },
  ]);
  assert.match(byTopic.get('wire-share')!.topicId, TOPIC_ID);
  assert.notEqual(byTopic.get('wire-share')!.topicId, ZERO_ID);
  assert.deepEqual(byTopic.get('wire-share-missing'), {
    topic: 'wire-share-missing',
    topicId: ZERO_ID,
    partitions: [{ partition: 0, errorCode: 3, errorMessage: 'This server does not host this topic-partition.' }], // UNKNOWN_TOPIC_OR_PARTITION
  });
});

test('AlterShareGroupOffsets v0: a group with a member is refused as a whole, NON_EMPTY_GROUP', () => {
  assert.deepEqual(decodeAlterShareGroupOffsetsV0(fixture('broker-alter-share-group-offsets-busy-v0.hex')), {
    throttleTimeMs: 0,
    errorCode: 68,
    errorMessage: 'The group is not empty.',
    topics: [],
  });
});

test("DescribeShareGroupOffsets: the request (every topic, or some partitions) is what Kafka's Java AdminClient encodes", () => {
  const ours = encodeDescribeShareGroupOffsetsRequest([
    { groupId: 'wire-share-idle', topics: null },
    { groupId: 'wire-share-busy', topics: null },
    { groupId: 'wire-share-missing', topics: [{ topic: 'wire-share', partitions: [0, 1] }] },
  ]);
  assert.equal(ours.toString('hex'), fixture('java-describe-share-group-offsets-v1-request.hex').toString('hex'));
});

test("DescribeShareGroupOffsets v1: a broker's start offsets and lags; -1 where the group has none", () => {
  const response = decodeDescribeShareGroupOffsetsResponse(fixture('broker-describe-share-group-offsets-v1.hex'), 1);
  assert.equal(response.throttleTimeMs, 0);
  const topicIds = new Set(response.groups.flatMap((g) => g.topics.map((t) => t.topicId)));
  assert.equal(topicIds.size, 1, 'one topic, one id');
  assert.match([...topicIds][0]!, TOPIC_ID);
  const offsets = response.groups.map((g) => ({
    group: g.groupId,
    error: g.errorCode,
    partitions: g.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.topic,
        partition: p.partition,
        startOffset: p.startOffset,
        leaderEpoch: p.leaderEpoch,
        lag: p.lag,
        error: p.errorCode,
      })),
    ),
  }));
  const at = (partition: number, startOffset: number, lag: number) => ({ topic: 'wire-share', partition, startOffset, leaderEpoch: 0, lag, error: 0 });
  assert.deepEqual(offsets, [
    // Altered to 3 and 4 (10 and 6 records).
    { group: 'wire-share-idle', error: 0, partitions: [at(0, 3, 7), at(1, 4, 2)] },
    // Given 2 and 1; its member acquired records there and acknowledged none.
    { group: 'wire-share-busy', error: 0, partitions: [at(0, 2, 8), at(1, 1, 5)] },
    // No such group: the partitions asked for, without a start offset.
    { group: 'wire-share-missing', error: 0, partitions: [at(0, -1, -1), at(1, -1, -1)] },
  ]);
});

test('DescribeShareGroupOffsets v0: the same answer without lags', () => {
  const response = decodeDescribeShareGroupOffsetsResponse(fixture('broker-describe-share-group-offsets-v0.hex'), 0);
  const offsets = response.groups.map((g) => [g.groupId, g.topics.flatMap((t) => t.partitions.map((p) => [p.partition, p.startOffset, 'lag' in p]))]);
  assert.deepEqual(offsets, [
    [
      'wire-share-idle',
      [
        [0, 3, false],
        [1, 4, false],
      ],
    ],
    [
      'wire-share-busy',
      [
        [0, 2, false],
        [1, 1, false],
      ],
    ],
    [
      'wire-share-missing',
      [
        [0, -1, false],
        [1, -1, false],
      ],
    ],
  ]);
  // Read as v1, the v0 answer runs out: the version matters.
  assert.throws(() => decodeDescribeShareGroupOffsetsResponse(fixture('broker-describe-share-group-offsets-v0.hex'), 1), RangeError);
});

test("ShareGroupDescribe v1: the request is what Kafka's Java AdminClient encodes", () => {
  const ours = encodeShareGroupDescribeV1(['wire-share-idle', 'wire-share-busy', 'wire-share-missing']);
  assert.equal(ours.toString('hex'), fixture('java-share-group-describe-v1-request.hex').toString('hex'));
});

test("ShareGroupDescribe v1: a broker's states: Empty, Stable with its member, unknown", () => {
  const response = decodeShareGroupDescribeV1(fixture('broker-share-group-describe-v1.hex'));
  const byGroup = new Map(response.groups.map((g) => [g.groupId, g]));
  const missing = byGroup.get('wire-share-missing')!;
  assert.deepEqual([missing.errorCode, missing.errorMessage, missing.members], [69, 'Group wire-share-missing not found.', []]); // GROUP_ID_NOT_FOUND
  const idle = byGroup.get('wire-share-idle')!;
  assert.deepEqual([idle.errorCode, idle.groupState, idle.assignorName, idle.members], [0, 'Empty', 'simple', []]);
  const busy = byGroup.get('wire-share-busy')!;
  assert.deepEqual([busy.errorCode, busy.groupState, busy.members.length], [0, 'Stable', 1]);
  const member = busy.members[0]!;
  assert.equal(member.clientId, 'consumer-wire-share-busy-1');
  assert.deepEqual(member.subscribedTopics, ['wire-share']);
  assert.deepEqual(
    member.assignment.map((a) => [a.topic, a.partitions]),
    [['wire-share', [0, 1]]],
  );
  assert.match(member.memberId, TOPIC_ID);
  assert.equal(busy.authorizedOperations, -2147483648, 'not asked for');
});

test('a response cut short is refused with where it ended', () => {
  const cut = fixture('broker-describe-share-group-offsets-v1.hex').subarray(0, 40);
  assert.throws(() => decodeDescribeShareGroupOffsetsResponse(cut, 1), /DescribeShareGroupOffsets v1 response ends at byte 40/);
  assert.throws(() => decodeAlterShareGroupOffsetsV0(Buffer.from([0, 0, 0, 0])), /AlterShareGroupOffsets v0 response ends at byte 4/);
});

test("requests in kafkajs's shape: API keys 90, 91, 77, flexible (request header v2)", async () => {
  const describe = describeShareGroupOffsetsRequest([{ groupId: 'g', topics: null }], 1);
  assert.deepEqual([describe.request.apiKey, describe.request.apiVersion, describe.request.flexible], [90, 1, true]);
  assert.deepEqual([...(await describe.request.encode()).buffer], [2, 2, 0x67, 0, 0, 0]);
  const alter = alterShareGroupOffsetsRequest('g', [{ topic: 't', partitions: [{ partition: 1, startOffset: 2 ** 40 }] }]);
  assert.deepEqual([alter.request.apiKey, alter.request.apiVersion, alter.request.flexible], [91, 0, true]);
  assert.deepEqual([...(await alter.request.encode()).buffer], [2, 0x67, 2, 2, 0x74, 2, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
  const groups = shareGroupDescribeRequest(['g']);
  assert.deepEqual([groups.request.apiKey, groups.request.apiVersion, groups.request.flexible], [77, 1, true]);
  // Header tagged fields, throttle 5, no groups, tagged fields: parsed as decoded, errors left to the caller.
  const decoded = await groups.response.decode(Buffer.from([0, 0, 0, 0, 5, 1, 0]));
  assert.deepEqual(await groups.response.parse(decoded), { throttleTimeMs: 5, groups: [] });
});
