import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy, IdentityReplicationPolicy } from '../../policy';
import {
  checkpointTopics,
  countHopsForTopic,
  heartbeatTopics,
  isCheckpointTopic,
  isHeartbeatTopic,
  remoteTopics,
  replicationHops,
  upstreamClusters,
} from './remote-topology';

// Ported from Kafka's MirrorClientTest (connect/mirror-client), same topics and expectations.
const policy = new DefaultReplicationPolicy();
const identity = (source: string) => new IdentityReplicationPolicy({ sourceAlias: source });

describe('remote topology (MirrorClientTest)', () => {
  it('testIsHeartbeatTopic', () => {
    for (const t of ['heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats']) assert.equal(isHeartbeatTopic(policy, t), true, t);
    for (const t of ['heartbeats!', '!heartbeats', 'source1heartbeats', 'source1-heartbeats']) assert.equal(isHeartbeatTopic(policy, t), false, t);
  });

  it('testIsCheckpointTopic', () => {
    assert.equal(isCheckpointTopic(policy, 'source1.checkpoints.internal'), true);
    for (const t of ['checkpoints.internal', 'checkpoints-internal', 'checkpoints.internal!', '!checkpoints.internal', 'source1checkpointsinternal']) {
      assert.equal(isCheckpointTopic(policy, t), false, t);
    }
  });

  it('countHopsForTopicTest', () => {
    const vectors: [string, string, number][] = [
      ['topic', 'source', -1],
      ['source', 'source', -1],
      ['sourcetopic', 'source', -1],
      ['source1.topic', 'source2', -1],
      ['source1.topic', 'source1', 1],
      ['source2.source1.topic', 'source2', 1],
      ['source2.source1.topic', 'source1', 2],
      ['source3.source2.source1.topic', 'source1', 3],
      ['source3.source2.source1.topic', 'source4', -1],
    ];
    for (const [topic, alias, hops] of vectors) assert.equal(countHopsForTopic(policy, topic, alias), hops, `${topic} from ${alias}`);
  });

  it('counts a looping chain as not upstream instead of hanging', () => {
    assert.equal(countHopsForTopic(policy, 'a.b.a.b.topic', 'c'), -1);
    assert.equal(countHopsForTopic(policy, 'a.b.a.b.topic', 'b'), 2);
  });

  it('heartbeatTopicsTest', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats', 'source3.heartbeats'];
    assert.deepEqual(heartbeatTopics(policy, topics), ['heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats', 'source3.heartbeats']);
  });

  it('checkpointsTopicsTest', () => {
    const topics = [
      'topic1',
      'topic2',
      'checkpoints.internal',
      'source1.checkpoints.internal',
      'source2.source1.checkpoints.internal',
      'source3.checkpoints.internal',
    ];
    assert.deepEqual(checkpointTopics(policy, topics), [
      'source1.checkpoints.internal',
      'source2.source1.checkpoints.internal',
      'source3.checkpoints.internal',
    ]);
  });

  it('replicationHopsTest', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.heartbeats'];
    assert.equal(replicationHops(policy, topics, 'source1'), 1);
    assert.equal(replicationHops(policy, topics, 'source2'), 2);
    assert.equal(replicationHops(policy, topics, 'source3'), 1);
    assert.equal(replicationHops(policy, topics, 'source4'), -1);
  });

  it('replicationHops takes the shortest path when a cluster is reached several ways', () => {
    const topics = ['a.b.c.heartbeats', 'c.heartbeats', 'orders'];
    assert.equal(replicationHops(policy, topics, 'c'), 1);
    assert.equal(replicationHops(policy, topics, 'b'), 2);
  });

  it('upstreamClustersTest', () => {
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.source4.source5.heartbeats'];
    assert.deepEqual(upstreamClusters(policy, topics), ['source1', 'source2', 'source3', 'source4', 'source5']);
  });

  it('testIdentityReplicationUpstreamClusters', () => {
    // The identity policy still prefixes heartbeats, so hops and upstream clusters work as usual.
    const topics = ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.source4.source5.heartbeats'];
    assert.deepEqual(upstreamClusters(identity('source'), topics), ['source1', 'source2', 'source3', 'source4', 'source5']);
  });

  it('remoteTopicsTest', () => {
    const topics = ['topic1', 'topic2', 'topic3', 'source1.topic4', 'source1.source2.topic5', 'source3.source4.source5.topic6'];
    assert.deepEqual(remoteTopics(policy, topics), ['source1.source2.topic5', 'source1.topic4', 'source3.source4.source5.topic6']);
    assert.deepEqual(remoteTopics(policy, topics, 'source1'), ['source1.source2.topic5', 'source1.topic4']);
    assert.deepEqual(remoteTopics(policy, topics, 'source2'), []);
  });

  it('testIdentityReplicationRemoteTopics', () => {
    const topics = ['topic1', 'topic2', 'topic3', 'heartbeats', 'backup.heartbeats'];
    // Every topic is remote for the identity policy, except the local heartbeats topic.
    assert.deepEqual(remoteTopics(identity('source'), topics), ['backup.heartbeats', 'topic1', 'topic2', 'topic3']);
  });

  it('remoteTopicsSeparatorTest', () => {
    const topics = ['topic1', 'topic2', 'topic3', 'source1__topic4', 'source1__source2__topic5', 'source3__source4__source5__topic6'];
    const underscores = new DefaultReplicationPolicy({ separator: '__' });
    assert.deepEqual(remoteTopics(underscores, topics), ['source1__source2__topic5', 'source1__topic4', 'source3__source4__source5__topic6']);
  });

  it('remote topics leave out internal topics', () => {
    const topics = ['__consumer_offsets', 'source1.checkpoints.internal', 'mm2-offset-syncs.b.internal', 'a.orders'];
    assert.deepEqual(remoteTopics(policy, topics), ['a.orders']);
  });

  it('testIdentityReplicationTopicSource', () => {
    const p = identity('primary');
    assert.equal(p.formatRemoteTopic('primary', 'topic1'), 'topic1');
    assert.equal(p.topicSource('topic1'), 'primary');
    assert.equal(p.formatRemoteTopic('backup', 'heartbeats'), 'backup.heartbeats');
    assert.equal(p.topicSource('backup.heartbeats'), 'backup');
  });
});
