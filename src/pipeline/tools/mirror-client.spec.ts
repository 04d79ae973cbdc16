import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NEVER, Observable, VirtualTimeScheduler, of, throwError } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord, DecodedSourceBatch } from '../../core/record';
import { encodeCheckpointKey, encodeCheckpointValue, encodeHeartbeatKey, encodeHeartbeatValue, type Checkpoint } from '../../formats';
import { DefaultReplicationPolicy } from '../../policy';
import { MirrorClient } from './mirror-client';
import { CheckpointsTopicMissingError, ToolUsageError } from './tool-errors';

const CHECKPOINTS = 'primary.checkpoints.internal';

function checkpointRecord(offset: number, cp: Omit<Checkpoint, 'metadata'> & { metadata?: string }, partition = 0): KafkaRecord {
  return {
    topic: CHECKPOINTS,
    partition,
    offset,
    timestamp: 1_700_000_000_000 + offset,
    key: encodeCheckpointKey(cp),
    value: encodeCheckpointValue({ ...cp, metadata: cp.metadata ?? '' }),
    headers: [],
  };
}

function raw(offset: number, key: Buffer | null, value: Buffer | null, partition = 0, topic = CHECKPOINTS): KafkaRecord {
  return { topic, partition, offset, timestamp: 0, key, value, headers: [] };
}

function batch(records: KafkaRecord[], partition = 0): DecodedSourceBatch {
  const topic = records[0]?.topic ?? CHECKPOINTS;
  const next = records.length === 0 ? 0 : records[records.length - 1]!.offset + 1;
  return { kind: 'records', topic, partition, records, nextOffset: next, highWatermark: next, bytes: 0 };
}

function fakeAdmin(topics: string[]): ClusterAdmin {
  return {
    cluster: 'backup',
    listTopics: () => of(topics.map((name) => ({ name, partitions: 1 }))),
  } as unknown as ClusterAdmin;
}

function fakeReader(byTopic: Record<string, Observable<DecodedSourceBatch>>): TopicReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    cluster: 'backup',
    reads,
    recordAt: async () => undefined,
    readToEnd: (topic: string) => {
      reads.push(topic);
      return byTopic[topic] ?? of();
    },
    follow: () => NEVER,
  } as TopicReader & { reads: string[] };
}

const policy = new DefaultReplicationPolicy();

function client(topics: string[], byTopic: Record<string, Observable<DecodedSourceBatch>>, warnings: string[] = []): MirrorClient {
  const logger = {
    error: () => {},
    warn: (message: string, meta?: Record<string, unknown>) => warnings.push(`${message} ${JSON.stringify(meta)}`),
    info: () => {},
    debug: () => {},
    child: () => logger,
  };
  return new MirrorClient({ admin: fakeAdmin(topics), reader: fakeReader(byTopic), policy, logger });
}

const tp = (topic: string, partition: number) => ({ topic, partition });

describe('MirrorClient.remoteConsumerOffsets', () => {
  it('keeps the last checkpoint per topic-partition of the group, in offset order', async () => {
    const records = [
      checkpointRecord(0, { consumerGroupId: 'g1', topicPartition: tp('primary.orders', 0), upstreamOffset: 10, downstreamOffset: 8 }),
      checkpointRecord(1, { consumerGroupId: 'g2', topicPartition: tp('primary.orders', 0), upstreamOffset: 99, downstreamOffset: 98 }),
      checkpointRecord(2, { consumerGroupId: 'g1', topicPartition: tp('primary.orders', 1), upstreamOffset: 5, downstreamOffset: 5, metadata: 'm' }),
      // An upstream rewind: the later, smaller checkpoint wins, as in MM2.
      checkpointRecord(3, { consumerGroupId: 'g1', topicPartition: tp('primary.orders', 0), upstreamOffset: 4, downstreamOffset: 3 }),
    ];
    const offsets = await client([CHECKPOINTS], { [CHECKPOINTS]: of(batch(records)) }).remoteConsumerOffsets('g1', 'primary');
    assert.deepEqual(
      offsets.map((o) => [o.topic, o.partition, o.offset, o.metadata, o.upstreamOffset]),
      [
        ['primary.orders', 0, 3, '', 4],
        ['primary.orders', 1, 5, 'm', 5],
      ],
    );
    assert.equal(offsets[0]!.checkpointedAt, 1_700_000_000_003);
  });

  it('reads partition 0 only', async () => {
    const p0 = [checkpointRecord(0, { consumerGroupId: 'g', topicPartition: tp('primary.t', 0), upstreamOffset: 1, downstreamOffset: 1 })];
    const p1 = [checkpointRecord(0, { consumerGroupId: 'g', topicPartition: tp('primary.t', 0), upstreamOffset: 7, downstreamOffset: 7 }, 1)];
    const offsets = await client([CHECKPOINTS], { [CHECKPOINTS]: of(batch(p0), batch(p1, 1)) }).remoteConsumerOffsets('g', 'primary');
    assert.deepEqual(
      offsets.map((o) => o.offset),
      [1],
    );
  });

  it('skips malformed records (short, null key, tombstone) with a warning', async () => {
    const warnings: string[] = [];
    const good = checkpointRecord(3, { consumerGroupId: 'g', topicPartition: tp('primary.t', 0), upstreamOffset: 2, downstreamOffset: 2 });
    const records = [raw(0, Buffer.from([0, 5, 0x61]), Buffer.alloc(20)), raw(1, null, Buffer.alloc(20)), raw(2, good.key, null), good];
    const offsets = await client([CHECKPOINTS], { [CHECKPOINTS]: of(batch(records)) }, warnings).remoteConsumerOffsets('g', 'primary');
    assert.deepEqual(
      offsets.map((o) => o.offset),
      [2],
    );
    assert.equal(warnings.length, 3);
    assert.match(warnings[0]!, /^Skipped a malformed checkpoint record\./);
  });

  it('returns nothing for a group without checkpoints', async () => {
    const records = [checkpointRecord(0, { consumerGroupId: 'other', topicPartition: tp('primary.t', 0), upstreamOffset: 1, downstreamOffset: 1 })];
    assert.deepEqual(await client([CHECKPOINTS], { [CHECKPOINTS]: of(batch(records)) }).remoteConsumerOffsets('g', 'primary'), []);
  });

  it('says which topic is missing on which cluster instead of waiting for a timeout', async () => {
    await assert.rejects(client(['orders'], {}).remoteConsumerOffsets('g', 'primary'), (error: unknown) => {
      assert.ok(error instanceof CheckpointsTopicMissingError);
      assert.match(error.message, /Cluster "backup" has no topic primary\.checkpoints\.internal/);
      return true;
    });
  });

  it('fails when the topic cannot be read to its end in time, rather than answering with part of it', async () => {
    const scheduler = new VirtualTimeScheduler();
    const admin = fakeAdmin([CHECKPOINTS]);
    const c = new MirrorClient({ admin, reader: fakeReader({ [CHECKPOINTS]: NEVER }), policy, scheduler });
    const result = c.remoteConsumerOffsets('g', 'primary', { timeoutMs: 5000 });
    await new Promise((r) => setImmediate(r));
    scheduler.flush();
    await assert.rejects(result, /Reading primary\.checkpoints\.internal on cluster "backup" did not reach its end within 5000 ms/);
  });
});

describe('MirrorClient.remoteConsumerOffsetsMatching (KIP-1239)', () => {
  const records = [
    checkpointRecord(0, { consumerGroupId: 'orders-app', topicPartition: tp('primary.orders', 0), upstreamOffset: 3, downstreamOffset: 3 }),
    checkpointRecord(1, { consumerGroupId: 'orders-audit', topicPartition: tp('primary.orders', 0), upstreamOffset: 9, downstreamOffset: 8 }),
    checkpointRecord(2, { consumerGroupId: 'billing', topicPartition: tp('primary.bills', 0), upstreamOffset: 1, downstreamOffset: 1 }),
    checkpointRecord(3, { consumerGroupId: 'xorders-app', topicPartition: tp('primary.orders', 0), upstreamOffset: 1, downstreamOffset: 1 }),
  ];

  it('keeps every group whose id fully matches the Java regex, in one read', async () => {
    const reader = fakeReader({ [CHECKPOINTS]: of(batch(records)) });
    const c = new MirrorClient({ admin: fakeAdmin([CHECKPOINTS]), reader, policy });
    const result = await c.remoteConsumerOffsetsMatching('orders-.*', 'primary');
    assert.deepEqual([...result.keys()], ['orders-app', 'orders-audit']);
    assert.deepEqual(
      result.get('orders-audit')!.map((o) => o.offset),
      [8],
    );
    assert.deepEqual(reader.reads, [CHECKPOINTS]);
  });

  it('rejects a pattern that is not a usable Java regex', async () => {
    await assert.rejects(client([CHECKPOINTS], {}).remoteConsumerOffsetsMatching('orders(', 'primary'), ToolUsageError);
  });
});

describe('MirrorClient topology', () => {
  it('answers from the cluster topic names', async () => {
    const c = client(['orders', 'heartbeats', 'a.heartbeats', 'b.a.heartbeats', 'a.orders', CHECKPOINTS, '__consumer_offsets'], {});
    assert.deepEqual(await c.heartbeatTopics(), ['a.heartbeats', 'b.a.heartbeats', 'heartbeats']);
    assert.deepEqual(await c.checkpointTopics(), [CHECKPOINTS]);
    assert.deepEqual(await c.upstreamClusters(), ['a', 'b']);
    assert.equal(await c.replicationHops('a'), 1);
    assert.equal(await c.replicationHops('b'), 1);
    assert.equal(await c.replicationHops('c'), -1);
    assert.deepEqual(await c.remoteTopics(), ['a.heartbeats', 'a.orders', 'b.a.heartbeats']);
    assert.deepEqual(await c.remoteTopics('b'), ['b.a.heartbeats']);
  });

  it('reports the newest heartbeat per path and skips malformed ones', async () => {
    const hb = (offset: number, source: string, target: string, ts: number, topic = 'a.heartbeats'): KafkaRecord => ({
      topic,
      partition: 0,
      offset,
      timestamp: ts,
      key: encodeHeartbeatKey({ sourceClusterAlias: source, targetClusterAlias: target }),
      value: encodeHeartbeatValue({ timestamp: ts }),
      headers: [],
    });
    const warnings: string[] = [];
    const c = client(
      ['a.heartbeats'],
      { 'a.heartbeats': of(batch([hb(0, 'a', 'b', 100), hb(1, 'a', 'b', 300), raw(2, Buffer.alloc(1), null, 0, 'a.heartbeats'), hb(3, 'x', 'a', 50)])) },
      warnings,
    );
    assert.deepEqual(await c.lastHeartbeats(['a.heartbeats']), [
      { topic: 'a.heartbeats', sourceClusterAlias: 'a', targetClusterAlias: 'b', timestamp: 300 },
      { topic: 'a.heartbeats', sourceClusterAlias: 'x', targetClusterAlias: 'a', timestamp: 50 },
    ]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^Skipped malformed heartbeat records\. .*"records":1/);
  });

  it('leaves out a heartbeats topic that cannot be read, with a warning', async () => {
    const warnings: string[] = [];
    const hb: KafkaRecord = {
      topic: 'b.heartbeats',
      partition: 0,
      offset: 0,
      timestamp: 7,
      key: encodeHeartbeatKey({ sourceClusterAlias: 'b', targetClusterAlias: 'c' }),
      value: encodeHeartbeatValue({ timestamp: 7 }),
      headers: [],
    };
    const c = client(['a.heartbeats', 'b.heartbeats'], { 'a.heartbeats': throwError(() => new Error('gone')), 'b.heartbeats': of(batch([hb])) }, warnings);
    assert.deepEqual(await c.lastHeartbeats(['a.heartbeats', 'b.heartbeats']), [
      { topic: 'b.heartbeats', sourceClusterAlias: 'b', targetClusterAlias: 'c', timestamp: 7 },
    ]);
    assert.match(warnings[0]!, /^Could not read a heartbeats topic; its heartbeats are left out\. .*"topic":"a\.heartbeats".*gone/);
  });
});
