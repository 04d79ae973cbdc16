import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatPlan } from './plan-report';

describe('formatPlan', () => {
  it("shows clusters, each flow's topics as a table, groups, internal topics and problems", () => {
    const text = formatPlan({
      pipeline: 'p',
      clusters: [
        { alias: 'primary', bootstrapServers: ['h:1'], reachable: true },
        { alias: 'dr', bootstrapServers: ['h:2', 'h:3'], reachable: false, problem: 'Cluster "dr": cannot be reached (ECONNREFUSED)' },
      ],
      flows: [
        {
          flow: 'primary->backup',
          source: 'primary',
          target: 'backup',
          mode: 'replication',
          isolation: 'read_committed',
          sourceTopicCount: 5,
          topics: [
            { source: 'orders', partitions: 3, remote: 'primary.orders' },
            { source: 'pay', partitions: 2, remote: 'primary.pay', remotePartitions: 1, problem: 'fewer partitions' },
          ],
          groups: ['app'],
          internalTopics: [{ topic: 'mm2-offsets.primary.internal', cluster: 'backup', purpose: 'replication progress', exists: false }],
          problems: ['cannot describe the configs'],
        },
        {
          flow: 'backup->primary',
          source: 'backup',
          target: 'primary',
          mode: 'heartbeats only',
          internalTopics: [{ topic: 'heartbeats', cluster: 'primary', purpose: 'heartbeats', exists: true }],
          problems: [],
        },
      ],
      problemCount: 3,
    });
    assert.equal(
      text,
      [
        'Pipeline p',
        '',
        'Clusters',
        '  primary  h:1  reachable',
        '  dr       h:2,h:3  ✗ unreachable: Cluster "dr": cannot be reached (ECONNREFUSED)',
        '',
        'Flow primary->backup (replication)',
        '  Reads primary read_committed: records of aborted transactions are not copied',
        '  Topics: 2 of 5 on primary match',
        '    orders (3)  ->  primary.orders  would be created with 3 partitions',
        '    pay (2)     ->  primary.pay     exists with 1 partition  ✗ fewer partitions',
        '  Checkpointed groups (1): app',
        '  Internal topics',
        '    mm2-offsets.primary.internal on backup (replication progress): would be created',
        '  ✗ cannot describe the configs',
        '',
        'Flow backup->primary (heartbeats only)',
        '  Internal topics',
        '    heartbeats on primary (heartbeats): exists',
        '',
        '3 problems found.',
        '',
      ].join('\n'),
    );
  });

  it('says when a flow copies the records of aborted transactions', () => {
    const text = formatPlan({
      pipeline: 'p',
      clusters: [],
      flows: [{ flow: 'a->b', source: 'a', target: 'b', mode: 'replication', isolation: 'read_uncommitted', internalTopics: [], problems: [] }],
      problemCount: 0,
    });
    assert.match(text, /Reads a read_uncommitted: records of aborted transactions are copied, and committed on b \(MM2's default\)/);
  });
});
