import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy } from './default-replication-policy';
import { IdentityReplicationPolicy } from './identity-replication-policy';
import type { ReplicationPolicy } from './replication-policy';
import { isCycle, shouldReplicateTopic } from './should-replicate';
import { DefaultTopicFilter, type TopicFilter } from './topic-filter';

const all: TopicFilter = { shouldReplicateTopic: () => true };
const none: TopicFilter = { shouldReplicateTopic: () => false };

// Flow source -> target, as in MirrorSourceConnectorTest. Every expectation was also checked
// against Kafka 4.3.1's MirrorSourceConnector.shouldReplicateTopic.
function check(policy: ReplicationPolicy, filter: TopicFilter, expected: Readonly<Record<string, boolean>>, replicateHeartbeats = true): void {
  const ctx = { policy, filter, targetAlias: 'target', replicateHeartbeats };
  for (const [topic, want] of Object.entries(expected)) assert.equal(shouldReplicateTopic(topic, ctx), want, topic);
}

describe('shouldReplicateTopic', () => {
  it('never replicates back to a cluster in the topic chain (testNoCycles)', () => {
    check(new DefaultReplicationPolicy(), all, {
      'target.topic1': false,
      'target.source.topic1': false,
      'source.target.topic1': false,
      'target.source.target.topic1': false,
      'source.target.source.topic1': false,
      topic1: true,
      'source.topic1': true,
      'othersource.topic1': true,
      'othertarget.topic1': true,
      'other.another.topic1': true,
    });
  });

  it('cannot see cycles of normal topics with the identity policy (testNoCycles, identity part)', () => {
    check(new IdentityReplicationPolicy({ sourceAlias: 'source' }), all, {
      'source.topic1': true,
      'target.topic1': true,
      'target.source.topic1': true,
      'source.target.topic1': true,
      topic1: true,
      'othersource.topic1': true,
      'othertarget.topic1': true,
      'other.another.topic1': true,
    });
  });

  it('still stops heartbeat cycles with the identity policy (testIdentityReplication)', () => {
    check(new IdentityReplicationPolicy(), all, {
      'target.topic1': true,
      'target.source.topic1': true,
      'source.target.topic1': true,
      'target.source.target.topic1': true,
      'source.target.source.topic1': true,
      topic1: true,
      'othersource.topic1': true,
      'target.heartbeats': false,
      'target.source.heartbeats': false,
      'source.target.heartbeats': false,
      'target.source.target.heartbeats': false,
      'source.target.source.heartbeats': false,
      heartbeats: true,
      'othersource.heartbeats': true,
    });
  });

  it('replicates heartbeats by default and despite the filter (testReplicatesHeartbeatsByDefault / DespiteFilter)', () => {
    check(new DefaultReplicationPolicy(), new DefaultTopicFilter(), { heartbeats: true, 'us-west.heartbeats': true });
    check(new DefaultReplicationPolicy(), none, { heartbeats: true, 'us-west.heartbeats': true, orders: false });
    // With separator "_", `us-west.heartbeats` is not a heartbeats topic.
    check(new DefaultReplicationPolicy({ separator: '_' }), none, { heartbeats: true, 'us-west.heartbeats': false, us_west_heartbeats: true });
  });

  it('leaves heartbeats to the filter when heartbeat replication is off', () => {
    check(new DefaultReplicationPolicy(), none, { heartbeats: false, 'us-west.heartbeats': false }, false);
    // testReplicatesHeartbeatsWhenDisabledButFilterAllows; Kafka 4.3.1's default filter includes them too.
    check(new DefaultReplicationPolicy(), all, { heartbeats: true, 'us-west.heartbeats': true }, false);
    check(new DefaultReplicationPolicy(), new DefaultTopicFilter(), { heartbeats: true, 'us-west.heartbeats': true }, false);
  });

  it('never replicates internal topics, even when the filter allows them', () => {
    check(new DefaultReplicationPolicy(), all, {
      __consumer_offsets: false,
      '.hidden': false,
      'mm2-offsets.source.internal': false,
      'source.checkpoints.internal': false,
      'mm2-offset-syncs.target.internal': false,
      'foo.internal': true,
      'foo-internal': true,
      'x.replica': true,
    });
    check(new DefaultReplicationPolicy(), new DefaultTopicFilter(), { 'x.replica': false, 'mm2-configs.A.internal': false, orders: true });
  });
});

describe('isCycle', () => {
  it('does not throw when upstreamTopic returns nothing (testIsCycleWithNullUpstreamTopic)', () => {
    class NoUpstream extends DefaultReplicationPolicy {
      override upstreamTopic(): string | undefined {
        return undefined;
      }
    }
    assert.equal(isCycle('.b', { policy: new NoUpstream(), targetAlias: 'target' }), false);
  });

  it('gives up on a policy whose upstream chain never ends', () => {
    class Loop extends DefaultReplicationPolicy {
      override topicSource(): string {
        return 'elsewhere';
      }
      override upstreamTopic(topic: string): string {
        return topic === 'a' ? 'b' : 'a';
      }
    }
    assert.throws(() => isCycle('a', { policy: new Loop(), targetAlias: 'target' }), /did not settle/);
  });
});
