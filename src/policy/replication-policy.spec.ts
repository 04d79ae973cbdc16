import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createReplicationPolicy } from './create-replication-policy';
import { DefaultReplicationPolicy } from './default-replication-policy';
import { IdentityReplicationPolicy } from './identity-replication-policy';

type Opt = string | undefined;

// [separator (undefined = not configured), topic, topicSource, upstreamTopic, originalTopic,
//  isHeartbeatsTopic, isCheckpointsTopic, isInternalTopic, isMM2InternalTopic]
// From Kafka 4.3.1's own DefaultReplicationPolicy, configured with only the separator. Covers
// Java's Pattern.split rules (trailing empties dropped, leading kept), regex-special and empty
// separators.
const DEFAULT_VECTORS: readonly (readonly [Opt, string, Opt, Opt, string, boolean, boolean, boolean, boolean])[] = [
  [undefined, '', undefined, undefined, '', false, false, false, false],
  [undefined, '.', undefined, undefined, '.', false, false, true, false],
  [undefined, '..', undefined, undefined, '..', false, false, true, false],
  [undefined, 'a', undefined, undefined, 'a', false, false, false, false],
  [undefined, 'a.', undefined, undefined, 'a.', false, false, false, false],
  [undefined, '.x', '', 'x', 'x', false, false, true, false],
  [undefined, 'a..b', 'a', '.b', 'b', false, false, false, false],
  [undefined, 'a.b.c', 'a', 'b.c', 'c', false, false, false, false],
  [undefined, 'a.b', 'a', 'b', 'b', false, false, false, false],
  [undefined, 'source.heartbeats', 'source', 'heartbeats', 'heartbeats', true, false, false, false],
  [undefined, 'heartbeats', undefined, undefined, 'heartbeats', true, false, false, false],
  [undefined, 'xheartbeats', undefined, undefined, 'xheartbeats', false, false, false, false],
  [undefined, 'a.heartbeats.', 'a', 'heartbeats.', 'heartbeats.', false, false, false, false],
  [undefined, '__a__b', undefined, undefined, '__a__b', false, false, true, false],
  [undefined, 'a__', undefined, undefined, 'a__', false, false, false, false],
  [undefined, '__', undefined, undefined, '__', false, false, true, false],
  [undefined, '___x', undefined, undefined, '___x', false, false, true, false],
  [undefined, 'a___b', undefined, undefined, 'a___b', false, false, false, false],
  [undefined, 'a|b', undefined, undefined, 'a|b', false, false, false, false],
  [undefined, 'a\\Eb', undefined, undefined, 'a\\Eb', false, false, false, false],
  [undefined, 'ab', undefined, undefined, 'ab', false, false, false, false],
  ['.', '', undefined, undefined, '', false, false, false, false],
  ['.', '.', undefined, undefined, '.', false, false, true, false],
  ['.', '..', undefined, undefined, '..', false, false, true, false],
  ['.', 'a', undefined, undefined, 'a', false, false, false, false],
  ['.', 'a.', undefined, undefined, 'a.', false, false, false, false],
  ['.', '.x', '', 'x', 'x', false, false, true, false],
  ['.', 'a..b', 'a', '.b', 'b', false, false, false, false],
  ['.', 'a.b.c', 'a', 'b.c', 'c', false, false, false, false],
  ['.', 'a.b', 'a', 'b', 'b', false, false, false, false],
  ['.', 'source.heartbeats', 'source', 'heartbeats', 'heartbeats', true, false, false, false],
  ['.', 'heartbeats', undefined, undefined, 'heartbeats', true, false, false, false],
  ['.', 'xheartbeats', undefined, undefined, 'xheartbeats', false, false, false, false],
  ['.', 'a.heartbeats.', 'a', 'heartbeats.', 'heartbeats.', false, false, false, false],
  ['.', '__a__b', undefined, undefined, '__a__b', false, false, true, false],
  ['.', 'a__', undefined, undefined, 'a__', false, false, false, false],
  ['.', '__', undefined, undefined, '__', false, false, true, false],
  ['.', '___x', undefined, undefined, '___x', false, false, true, false],
  ['.', 'a___b', undefined, undefined, 'a___b', false, false, false, false],
  ['.', 'a|b', undefined, undefined, 'a|b', false, false, false, false],
  ['.', 'a\\Eb', undefined, undefined, 'a\\Eb', false, false, false, false],
  ['.', 'ab', undefined, undefined, 'ab', false, false, false, false],
  ['__', '', undefined, undefined, '', false, false, false, false],
  ['__', '.', undefined, undefined, '.', false, false, true, false],
  ['__', '..', undefined, undefined, '..', false, false, true, false],
  ['__', 'a', undefined, undefined, 'a', false, false, false, false],
  ['__', 'a.', undefined, undefined, 'a.', false, false, false, false],
  ['__', '.x', undefined, undefined, '.x', false, false, true, false],
  ['__', 'a..b', undefined, undefined, 'a..b', false, false, false, false],
  ['__', 'a.b.c', undefined, undefined, 'a.b.c', false, false, false, false],
  ['__', 'a.b', undefined, undefined, 'a.b', false, false, false, false],
  ['__', 'source.heartbeats', undefined, undefined, 'source.heartbeats', false, false, false, false],
  ['__', 'heartbeats', undefined, undefined, 'heartbeats', true, false, false, false],
  ['__', 'xheartbeats', undefined, undefined, 'xheartbeats', false, false, false, false],
  ['__', 'a.heartbeats.', undefined, undefined, 'a.heartbeats.', false, false, false, false],
  ['__', '__a__b', '', 'a__b', 'b', false, false, true, false],
  ['__', 'a__', undefined, undefined, 'a__', false, false, false, false],
  ['__', '__', undefined, undefined, '__', false, false, true, false],
  ['__', '___x', '', '_x', '_x', false, false, true, false],
  ['__', 'a___b', 'a', '_b', '_b', false, false, false, false],
  ['__', 'a|b', undefined, undefined, 'a|b', false, false, false, false],
  ['__', 'a\\Eb', undefined, undefined, 'a\\Eb', false, false, false, false],
  ['__', 'ab', undefined, undefined, 'ab', false, false, false, false],
  ['|', '', undefined, undefined, '', false, false, false, false],
  ['|', '.', undefined, undefined, '.', false, false, true, false],
  ['|', '..', undefined, undefined, '..', false, false, true, false],
  ['|', 'a', undefined, undefined, 'a', false, false, false, false],
  ['|', 'a.', undefined, undefined, 'a.', false, false, false, false],
  ['|', '.x', undefined, undefined, '.x', false, false, true, false],
  ['|', 'a..b', undefined, undefined, 'a..b', false, false, false, false],
  ['|', 'a.b.c', undefined, undefined, 'a.b.c', false, false, false, false],
  ['|', 'a.b', undefined, undefined, 'a.b', false, false, false, false],
  ['|', 'source.heartbeats', undefined, undefined, 'source.heartbeats', false, false, false, false],
  ['|', 'heartbeats', undefined, undefined, 'heartbeats', true, false, false, false],
  ['|', 'xheartbeats', undefined, undefined, 'xheartbeats', false, false, false, false],
  ['|', 'a.heartbeats.', undefined, undefined, 'a.heartbeats.', false, false, false, false],
  ['|', '__a__b', undefined, undefined, '__a__b', false, false, true, false],
  ['|', 'a__', undefined, undefined, 'a__', false, false, false, false],
  ['|', '__', undefined, undefined, '__', false, false, true, false],
  ['|', '___x', undefined, undefined, '___x', false, false, true, false],
  ['|', 'a___b', undefined, undefined, 'a___b', false, false, false, false],
  ['|', 'a|b', 'a', 'b', 'b', false, false, false, false],
  ['|', 'a\\Eb', undefined, undefined, 'a\\Eb', false, false, false, false],
  ['|', 'ab', undefined, undefined, 'ab', false, false, false, false],
  ['\\E', '', undefined, undefined, '', false, false, false, false],
  ['\\E', '.', undefined, undefined, '.', false, false, true, false],
  ['\\E', '..', undefined, undefined, '..', false, false, true, false],
  ['\\E', 'a', undefined, undefined, 'a', false, false, false, false],
  ['\\E', 'a.', undefined, undefined, 'a.', false, false, false, false],
  ['\\E', '.x', undefined, undefined, '.x', false, false, true, false],
  ['\\E', 'a..b', undefined, undefined, 'a..b', false, false, false, false],
  ['\\E', 'a.b.c', undefined, undefined, 'a.b.c', false, false, false, false],
  ['\\E', 'a.b', undefined, undefined, 'a.b', false, false, false, false],
  ['\\E', 'source.heartbeats', undefined, undefined, 'source.heartbeats', false, false, false, false],
  ['\\E', 'heartbeats', undefined, undefined, 'heartbeats', true, false, false, false],
  ['\\E', 'xheartbeats', undefined, undefined, 'xheartbeats', false, false, false, false],
  ['\\E', 'a.heartbeats.', undefined, undefined, 'a.heartbeats.', false, false, false, false],
  ['\\E', '__a__b', undefined, undefined, '__a__b', false, false, true, false],
  ['\\E', 'a__', undefined, undefined, 'a__', false, false, false, false],
  ['\\E', '__', undefined, undefined, '__', false, false, true, false],
  ['\\E', '___x', undefined, undefined, '___x', false, false, true, false],
  ['\\E', 'a___b', undefined, undefined, 'a___b', false, false, false, false],
  ['\\E', 'a|b', undefined, undefined, 'a|b', false, false, false, false],
  ['\\E', 'a\\Eb', 'a', 'b', 'b', false, false, false, false],
  ['\\E', 'ab', undefined, undefined, 'ab', false, false, false, false],
  ['', '', undefined, undefined, '', false, false, false, false],
  ['', '.', undefined, undefined, '.', false, false, true, false],
  ['', '..', '.', '.', '.', false, false, true, false],
  ['', 'a', undefined, undefined, 'a', false, false, false, false],
  ['', 'a.', 'a', '.', '.', false, false, false, false],
  ['', '.x', '.', 'x', 'x', false, false, true, false],
  ['', 'a..b', 'a', '..b', 'b', false, false, false, false],
  ['', 'a.b.c', 'a', '.b.c', 'c', false, false, false, false],
  ['', 'a.b', 'a', '.b', 'b', false, false, false, false],
  ['', 'source.heartbeats', 's', 'ource.heartbeats', 's', false, false, false, false],
  ['', 'heartbeats', 'h', 'eartbeats', 's', false, false, false, false],
  ['', 'xheartbeats', 'x', 'heartbeats', 's', false, false, false, false],
  ['', 'a.heartbeats.', 'a', '.heartbeats.', '.', false, false, false, false],
  ['', '__a__b', '_', '_a__b', 'b', false, false, true, false],
  ['', 'a__', 'a', '__', '_', false, false, false, false],
  ['', '__', '_', '_', '_', false, false, true, false],
  ['', '___x', '_', '__x', 'x', false, false, true, false],
  ['', 'a___b', 'a', '___b', 'b', false, false, false, false],
  ['', 'a|b', 'a', '|b', 'b', false, false, false, false],
  ['', 'a\\Eb', 'a', '\\Eb', 'b', false, false, false, false],
  ['', 'ab', 'a', 'b', 'b', false, false, false, false],
  ['-', '', undefined, undefined, '', false, false, false, false],
  ['-', '.', undefined, undefined, '.', false, false, true, false],
  ['-', '..', undefined, undefined, '..', false, false, true, false],
  ['-', 'a', undefined, undefined, 'a', false, false, false, false],
  ['-', 'a.', undefined, undefined, 'a.', false, false, false, false],
  ['-', '.x', undefined, undefined, '.x', false, false, true, false],
  ['-', 'a..b', undefined, undefined, 'a..b', false, false, false, false],
  ['-', 'a.b.c', undefined, undefined, 'a.b.c', false, false, false, false],
  ['-', 'a.b', undefined, undefined, 'a.b', false, false, false, false],
  ['-', 'source.heartbeats', undefined, undefined, 'source.heartbeats', false, false, false, false],
  ['-', 'heartbeats', undefined, undefined, 'heartbeats', true, false, false, false],
  ['-', 'xheartbeats', undefined, undefined, 'xheartbeats', false, false, false, false],
  ['-', 'a.heartbeats.', undefined, undefined, 'a.heartbeats.', false, false, false, false],
  ['-', '__a__b', undefined, undefined, '__a__b', false, false, true, false],
  ['-', 'a__', undefined, undefined, 'a__', false, false, false, false],
  ['-', '__', undefined, undefined, '__', false, false, true, false],
  ['-', '___x', undefined, undefined, '___x', false, false, true, false],
  ['-', 'a___b', undefined, undefined, 'a___b', false, false, false, false],
  ['-', 'a|b', undefined, undefined, 'a|b', false, false, false, false],
  ['-', 'a\\Eb', undefined, undefined, 'a\\Eb', false, false, false, false],
  ['-', 'ab', undefined, undefined, 'ab', false, false, false, false],
];

// [alias, separator, topic, formatRemoteTopic("R", topic), topicSource, upstreamTopic, originalTopic,
//  isHeartbeatsTopic, isInternalTopic] from Kafka 4.3.1's own IdentityReplicationPolicy.
const IDENTITY_VECTORS: readonly (readonly [Opt, Opt, string, string, Opt, Opt, string, boolean, boolean])[] = [
  [undefined, undefined, '', '', undefined, '', '', false, false],
  [undefined, undefined, 'topic1', 'topic1', undefined, 'topic1', 'topic1', false, false],
  [undefined, undefined, 'a.b', 'a.b', undefined, 'a.b', 'a.b', false, false],
  [undefined, undefined, 'heartbeats', 'R.heartbeats', undefined, undefined, 'heartbeats', true, false],
  [undefined, undefined, 'x.heartbeats', 'R.x.heartbeats', 'x', 'heartbeats', 'heartbeats', true, false],
  [undefined, undefined, 'xheartbeats', 'R.xheartbeats', undefined, undefined, 'xheartbeats', false, false],
  [undefined, undefined, 'a.b.heartbeats', 'R.a.b.heartbeats', 'a', 'b.heartbeats', 'heartbeats', true, false],
  [undefined, undefined, 'a_heartbeats', 'R.a_heartbeats', undefined, undefined, 'a_heartbeats', false, false],
  [undefined, undefined, 'heartbeats.x', 'heartbeats.x', undefined, 'heartbeats.x', 'heartbeats.x', false, false],
  [undefined, undefined, 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', undefined, 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', false, true],
  [undefined, '_', '', '', undefined, '', '', false, false],
  [undefined, '_', 'topic1', 'topic1', undefined, 'topic1', 'topic1', false, false],
  [undefined, '_', 'a.b', 'a.b', undefined, 'a.b', 'a.b', false, false],
  [undefined, '_', 'heartbeats', 'R_heartbeats', undefined, undefined, 'heartbeats', true, false],
  [undefined, '_', 'x.heartbeats', 'R_x.heartbeats', undefined, undefined, 'x.heartbeats', false, false],
  [undefined, '_', 'xheartbeats', 'R_xheartbeats', undefined, undefined, 'xheartbeats', false, false],
  [undefined, '_', 'a.b.heartbeats', 'R_a.b.heartbeats', undefined, undefined, 'a.b.heartbeats', false, false],
  [undefined, '_', 'a_heartbeats', 'R_a_heartbeats', 'a', 'heartbeats', 'heartbeats', true, false],
  [undefined, '_', 'heartbeats.x', 'heartbeats.x', undefined, 'heartbeats.x', 'heartbeats.x', false, false],
  [undefined, '_', 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', undefined, 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', false, false],
  ['src', undefined, '', '', 'src', '', '', false, false],
  ['src', undefined, 'topic1', 'topic1', 'src', 'topic1', 'topic1', false, false],
  ['src', undefined, 'a.b', 'a.b', 'src', 'a.b', 'a.b', false, false],
  ['src', undefined, 'heartbeats', 'R.heartbeats', undefined, undefined, 'heartbeats', true, false],
  ['src', undefined, 'x.heartbeats', 'R.x.heartbeats', 'x', 'heartbeats', 'heartbeats', true, false],
  ['src', undefined, 'xheartbeats', 'R.xheartbeats', undefined, undefined, 'xheartbeats', false, false],
  ['src', undefined, 'a.b.heartbeats', 'R.a.b.heartbeats', 'a', 'b.heartbeats', 'heartbeats', true, false],
  ['src', undefined, 'a_heartbeats', 'R.a_heartbeats', undefined, undefined, 'a_heartbeats', false, false],
  ['src', undefined, 'heartbeats.x', 'heartbeats.x', 'src', 'heartbeats.x', 'heartbeats.x', false, false],
  ['src', undefined, 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', 'src', 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', false, true],
  ['src', '_', '', '', 'src', '', '', false, false],
  ['src', '_', 'topic1', 'topic1', 'src', 'topic1', 'topic1', false, false],
  ['src', '_', 'a.b', 'a.b', 'src', 'a.b', 'a.b', false, false],
  ['src', '_', 'heartbeats', 'R_heartbeats', undefined, undefined, 'heartbeats', true, false],
  ['src', '_', 'x.heartbeats', 'R_x.heartbeats', undefined, undefined, 'x.heartbeats', false, false],
  ['src', '_', 'xheartbeats', 'R_xheartbeats', undefined, undefined, 'xheartbeats', false, false],
  ['src', '_', 'a.b.heartbeats', 'R_a.b.heartbeats', undefined, undefined, 'a.b.heartbeats', false, false],
  ['src', '_', 'a_heartbeats', 'R_a_heartbeats', 'a', 'heartbeats', 'heartbeats', true, false],
  ['src', '_', 'heartbeats.x', 'heartbeats.x', 'src', 'heartbeats.x', 'heartbeats.x', false, false],
  ['src', '_', 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', 'src', 'mm2-offsets.A.internal', 'mm2-offsets.A.internal', false, false],
];

// [separator, internal.topic.separator.enabled, topic, isInternalTopic, isMM2InternalTopic,
//  isCheckpointsTopic] from Kafka 4.3.1 (KIP-1074 rules: `foo.internal`, `foo-internal` and
//  `mm2-offsets-CLUSTER-internal` are NOT internal any more).
const INTERNAL_VECTORS: readonly (readonly [Opt, false | undefined, string, boolean, boolean, boolean])[] = [
  [undefined, undefined, '__consumer_offsets', true, false, false],
  [undefined, undefined, '.hiddentopic', true, false, false],
  [undefined, undefined, 'mm2-offsets.CLUSTER.internal', true, true, false],
  [undefined, undefined, 'mm2-offsets-CLUSTER-internal', false, false, false],
  [undefined, undefined, 'mm2-offsets_CLUSTER_internal', false, false, false],
  [undefined, undefined, 'foo.internal', false, false, false],
  [undefined, undefined, 'foo-internal', false, false, false],
  [undefined, undefined, 'A.checkpoints.internal', true, true, true],
  [undefined, undefined, 'checkpoints.internal', false, false, false],
  [undefined, undefined, 'mm2-offset-syncs.B.internal', true, true, false],
  [undefined, undefined, 'mm2-offset-syncs__B__internal', false, false, false],
  [undefined, undefined, 'A__checkpoints__internal', false, false, false],
  [undefined, undefined, 'mm2x.internal', true, true, false],
  [undefined, undefined, 'mm2.internal', true, true, false],
  [undefined, undefined, 'MM2-offsets.A.internal', false, false, false],
  [undefined, undefined, '_single', false, false, false],
  [undefined, undefined, 'heartbeats', false, false, false],
  [undefined, undefined, 'x.replica', false, false, false],
  ['__', undefined, '__consumer_offsets', true, false, false],
  ['__', undefined, '.hiddentopic', true, false, false],
  ['__', undefined, 'mm2-offsets.CLUSTER.internal', false, false, false],
  ['__', undefined, 'mm2-offsets-CLUSTER-internal', false, false, false],
  ['__', undefined, 'mm2-offsets_CLUSTER_internal', false, false, false],
  ['__', undefined, 'foo.internal', false, false, false],
  ['__', undefined, 'foo-internal', false, false, false],
  ['__', undefined, 'A.checkpoints.internal', false, false, false],
  ['__', undefined, 'checkpoints.internal', false, false, false],
  ['__', undefined, 'mm2-offset-syncs.B.internal', false, false, false],
  ['__', undefined, 'mm2-offset-syncs__B__internal', true, true, false],
  ['__', undefined, 'A__checkpoints__internal', true, true, true],
  ['__', undefined, 'mm2x.internal', false, false, false],
  ['__', undefined, 'mm2.internal', false, false, false],
  ['__', undefined, 'MM2-offsets.A.internal', false, false, false],
  ['__', undefined, '_single', false, false, false],
  ['__', undefined, 'heartbeats', false, false, false],
  ['__', undefined, 'x.replica', false, false, false],
  ['__', false, '__consumer_offsets', true, false, false],
  ['__', false, '.hiddentopic', true, false, false],
  ['__', false, 'mm2-offsets.CLUSTER.internal', true, true, false],
  ['__', false, 'mm2-offsets-CLUSTER-internal', false, false, false],
  ['__', false, 'mm2-offsets_CLUSTER_internal', false, false, false],
  ['__', false, 'foo.internal', false, false, false],
  ['__', false, 'foo-internal', false, false, false],
  ['__', false, 'A.checkpoints.internal', true, true, true],
  ['__', false, 'checkpoints.internal', false, false, false],
  ['__', false, 'mm2-offset-syncs.B.internal', true, true, false],
  ['__', false, 'mm2-offset-syncs__B__internal', false, false, false],
  ['__', false, 'A__checkpoints__internal', false, false, false],
  ['__', false, 'mm2x.internal', true, true, false],
  ['__', false, 'mm2.internal', true, true, false],
  ['__', false, 'MM2-offsets.A.internal', false, false, false],
  ['__', false, '_single', false, false, false],
  ['__', false, 'heartbeats', false, false, false],
  ['__', false, 'x.replica', false, false, false],
];

describe('DefaultReplicationPolicy', () => {
  for (const [separator, topic, source, upstream, original, isHb, isCp, isInternal, isMM2] of DEFAULT_VECTORS) {
    it(`separator ${JSON.stringify(separator)}: ${JSON.stringify(topic)} behaves as in Kafka 4.3.1`, () => {
      const p = new DefaultReplicationPolicy({ separator });
      assert.equal(p.topicSource(topic), source, 'topicSource');
      assert.equal(p.upstreamTopic(topic), upstream, 'upstreamTopic');
      assert.equal(p.originalTopic(topic), original, 'originalTopic');
      assert.equal(p.isHeartbeatsTopic(topic), isHb, 'isHeartbeatsTopic');
      assert.equal(p.isCheckpointsTopic(topic), isCp, 'isCheckpointsTopic');
      assert.equal(p.isInternalTopic(topic), isInternal, 'isInternalTopic');
      assert.equal(p.isMM2InternalTopic(topic), isMM2, 'isMM2InternalTopic');
    });
  }

  for (const [separator, enabled, topic, isInternal, isMM2, isCp] of INTERNAL_VECTORS) {
    it(`separator ${JSON.stringify(separator)}, internal separator ${enabled ?? 'default'}: ${topic} internal=${isInternal}`, () => {
      const p = new DefaultReplicationPolicy({ separator, internalTopicSeparatorEnabled: enabled });
      assert.equal(p.isInternalTopic(topic), isInternal, 'isInternalTopic');
      assert.equal(p.isMM2InternalTopic(topic), isMM2, 'isMM2InternalTopic');
      assert.equal(p.isCheckpointsTopic(topic), isCp, 'isCheckpointsTopic');
    });
  }

  it('names topics like Kafka 4.3.1 for each separator', () => {
    const names = (separator?: string, internalTopicSeparatorEnabled?: boolean) => {
      const p = new DefaultReplicationPolicy({ separator, internalTopicSeparatorEnabled });
      return [p.formatRemoteTopic('A', 't'), p.heartbeatsTopic(), p.offsetSyncsTopic('B'), p.checkpointsTopic('A')];
    };
    assert.deepEqual(names(), ['A.t', 'heartbeats', 'mm2-offset-syncs.B.internal', 'A.checkpoints.internal']);
    assert.deepEqual(names('__'), ['A__t', 'heartbeats', 'mm2-offset-syncs__B__internal', 'A__checkpoints__internal']);
    assert.deepEqual(names('__', false), ['A__t', 'heartbeats', 'mm2-offset-syncs.B.internal', 'A.checkpoints.internal']);
    assert.deepEqual(names('|'), ['A|t', 'heartbeats', 'mm2-offset-syncs|B|internal', 'A|checkpoints|internal']);
    assert.deepEqual(names(''), ['At', 'heartbeats', 'mm2-offset-syncsBinternal', 'Acheckpointsinternal']);
    assert.deepEqual(names('-', false), ['A-t', 'heartbeats', 'mm2-offset-syncs.B.internal', 'A.checkpoints.internal']);
  });

  it('ignores internalTopicSeparatorEnabled when no separator is configured, as MM2 does', () => {
    const p = new DefaultReplicationPolicy({ internalTopicSeparatorEnabled: false });
    assert.equal(p.offsetSyncsTopic('B'), 'mm2-offset-syncs.B.internal');
  });

  // ReplicationPolicyTest (connect/mirror-client)
  it('internal topic separator: offset syncs and checkpoints follow it, heartbeats never', () => {
    const off = new DefaultReplicationPolicy({ separator: '__', internalTopicSeparatorEnabled: false });
    const on = new DefaultReplicationPolicy({ separator: '__', internalTopicSeparatorEnabled: true });
    assert.equal(off.offsetSyncsTopic('CLUSTER'), 'mm2-offset-syncs.CLUSTER.internal');
    assert.equal(on.offsetSyncsTopic('CLUSTER'), 'mm2-offset-syncs__CLUSTER__internal');
    assert.equal(off.checkpointsTopic('CLUSTER'), 'CLUSTER.checkpoints.internal');
    assert.equal(on.checkpointsTopic('CLUSTER'), 'CLUSTER__checkpoints__internal');
    assert.equal(on.heartbeatsTopic(), 'heartbeats');
    assert.equal(off.heartbeatsTopic(), 'heartbeats');
  });

  // MirrorClientTest (connect/mirror-client)
  it('recognises heartbeats topics (testIsHeartbeatTopic)', () => {
    const p = new DefaultReplicationPolicy();
    for (const t of ['heartbeats', 'source1.heartbeats', 'source2.source1.heartbeats']) assert.equal(p.isHeartbeatsTopic(t), true, t);
    for (const t of ['heartbeats!', '!heartbeats', 'source1heartbeats', 'source1-heartbeats']) assert.equal(p.isHeartbeatsTopic(t), false, t);
  });

  it('recognises checkpoints topics (testIsCheckpointTopic)', () => {
    const p = new DefaultReplicationPolicy();
    assert.equal(p.isCheckpointsTopic('source1.checkpoints.internal'), true);
    for (const t of ['checkpoints.internal', 'checkpoints-internal', 'checkpoints.internal!', '!checkpoints.internal', 'source1checkpointsinternal']) {
      assert.equal(p.isCheckpointsTopic(t), false, t);
    }
  });

  it('tells internal topics (ReplicationPolicyTest.testInternalTopic, as in Kafka 4.3.1)', () => {
    const p = new DefaultReplicationPolicy();
    assert.equal(p.isInternalTopic('__consumer_offsets'), true);
    assert.equal(p.isInternalTopic('.hiddentopic'), true);
    assert.equal(p.isInternalTopic('mm2-offsets.CLUSTER.internal'), true);
    // Older MM2 said true; Kafka 4.3.1 says false (KIP-1074).
    assert.equal(p.isInternalTopic('mm2-offsets-CLUSTER-internal'), false);
    assert.equal(p.isInternalTopic('mm2-offsets_CLUSTER_internal'), false);
  });

  it('finds remote topics by separator (remoteTopicsTest, remoteTopicsSeparatorTest)', () => {
    const remote = (p: DefaultReplicationPolicy, t: string) => !p.isInternalTopic(t) && p.topicSource(t) !== undefined;
    const dot = new DefaultReplicationPolicy();
    for (const t of ['topic1', 'topic2', 'topic3']) assert.equal(remote(dot, t), false, t);
    for (const t of ['source1.topic4', 'source1.source2.topic5', 'source3.source4.source5.topic6']) assert.equal(remote(dot, t), true, t);
    const under = new DefaultReplicationPolicy({ separator: '__' });
    for (const t of ['topic1', 'topic2', 'topic3']) assert.equal(remote(under, t), false, t);
    for (const t of ['source1__topic4', 'source1__source2__topic5', 'source3__source4__source5__topic6']) assert.equal(remote(under, t), true, t);
  });

  it('resolves the original topic through any number of hops', () => {
    const p = new DefaultReplicationPolicy();
    assert.equal(p.originalTopic('source3.source2.source1.topic'), 'topic');
    assert.equal(p.upstreamTopic('source3.source2.source1.topic'), 'source2.source1.topic');
  });
});

describe('IdentityReplicationPolicy', () => {
  for (const [sourceAlias, separator, topic, remote, source, upstream, original, isHb, isInternal] of IDENTITY_VECTORS) {
    it(`alias ${JSON.stringify(sourceAlias)}, separator ${JSON.stringify(separator)}: ${JSON.stringify(topic)} behaves as in Kafka 4.3.1`, () => {
      const p = new IdentityReplicationPolicy({ sourceAlias, separator });
      assert.equal(p.formatRemoteTopic('R', topic), remote, 'formatRemoteTopic');
      assert.equal(p.topicSource(topic), source, 'topicSource');
      assert.equal(p.upstreamTopic(topic), upstream, 'upstreamTopic');
      assert.equal(p.originalTopic(topic), original, 'originalTopic');
      assert.equal(p.isHeartbeatsTopic(topic), isHb, 'isHeartbeatsTopic');
      assert.equal(p.isInternalTopic(topic), isInternal, 'isInternalTopic');
    });
  }

  it('keeps names but renames heartbeats (testIdentityReplicationTopicSource)', () => {
    const p = new IdentityReplicationPolicy({ sourceAlias: 'primary' });
    assert.equal(p.formatRemoteTopic('primary', 'topic1'), 'topic1');
    assert.equal(p.topicSource('topic1'), 'primary');
    assert.equal(p.formatRemoteTopic('backup', 'heartbeats'), 'backup.heartbeats');
    assert.equal(p.topicSource('backup.heartbeats'), 'backup');
  });

  it('treats every topic but bare heartbeats as remote (testIdentityReplicationRemoteTopics)', () => {
    const p = new IdentityReplicationPolicy({ sourceAlias: 'source' });
    const remote = (t: string) => !p.isInternalTopic(t) && p.topicSource(t) !== undefined;
    for (const t of ['topic1', 'topic2', 'topic3', 'backup.heartbeats']) assert.equal(remote(t), true, t);
    assert.equal(remote('heartbeats'), false);
  });

  it('walks heartbeat chains like the default policy (testIdentityReplicationUpstreamClusters)', () => {
    const p = new IdentityReplicationPolicy({ sourceAlias: 'source' });
    const sources = new Set<string>();
    for (const topic of ['topic1', 'topic2', 'heartbeats', 'source1.heartbeats', 'source1.source2.heartbeats', 'source3.source4.source5.heartbeats']) {
      if (!p.isHeartbeatsTopic(topic)) continue;
      // MirrorClient.allSources: walk up one topic's chain, stopping at a repeated alias.
      const seen = new Set<string>();
      let t = topic;
      let s = p.topicSource(t);
      while (s !== undefined && !seen.has(s)) {
        seen.add(s);
        t = p.upstreamTopic(t)!;
        s = p.topicSource(t);
      }
      for (const alias of seen) sources.add(alias);
    }
    assert.deepEqual([...sources].sort(), ['source1', 'source2', 'source3', 'source4', 'source5']);
  });
});

describe('createReplicationPolicy', () => {
  it('builds the default policy with its options', () => {
    const p = createReplicationPolicy({ type: 'default', separator: '_', internalTopicSeparatorEnabled: false });
    assert.ok(p instanceof DefaultReplicationPolicy);
    assert.equal(p.formatRemoteTopic('A', 't'), 'A_t');
    assert.equal(p.checkpointsTopic('A'), 'A.checkpoints.internal');
  });

  it('builds the identity policy with the source alias', () => {
    const p = createReplicationPolicy({ type: 'identity', sourceAlias: 'primary' });
    assert.ok(p instanceof IdentityReplicationPolicy);
    assert.equal(p.formatRemoteTopic('primary', 'orders'), 'orders');
    assert.equal(p.topicSource('orders'), 'primary');
  });
});
