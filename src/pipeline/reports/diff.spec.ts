import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { of, throwError } from '#rxjs';
import type { ClusterAdmin, TopicDescription } from '../../core/ports/cluster-admin';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import { SecurityDisabledError, type TopicAcl } from '../../core/ports/topic-acl';
import { parsePipeline } from '../../config';
import { diffPipeline } from './diff';
import { formatDiff } from './diff-report';
import { topicAcl as acl } from '../../flow/topics/topic-acl-fixture';

interface FakeCluster {
  readonly topics: readonly TopicDescription[];
  /** The cluster's topic ACLs; `undefined` for a cluster without an authorizer. */
  readonly acls: readonly TopicAcl[] | undefined;
}

/** Admins over topic and ACL lists, recording every call, so the spec can see the diff only reads. */
function fakeClients(clusters: Record<string, FakeCluster>): KafkaClients & { readonly calls: string[] } {
  const calls: string[] = [];
  const admin = (cluster: string) => {
    const state = clusters[cluster]!;
    const call =
      <T>(name: string, fn: () => T) =>
      () => {
        calls.push(`${cluster}.${name}`);
        return of(fn());
      };
    return {
      cluster,
      listTopics: call('listTopics', () => state.topics),
      describeTopicConfigs: call('describeTopicConfigs', () => new Map()),
      describeTopicAcls: () => {
        calls.push(`${cluster}.describeTopicAcls`);
        return state.acls === undefined ? throwError(() => new SecurityDisabledError(cluster)) : of(state.acls);
      },
    } as unknown as ClusterAdmin;
  };
  return {
    calls,
    admin,
    writer: () => assert.fail('the diff writes nothing'),
    source: () => assert.fail('the diff reads no records'),
    reader: () => assert.fail('the diff reads no records'),
    checkReachable: async () => undefined,
    closeRoles: async () => undefined,
    close: async () => undefined,
  };
}

const pipeline = (acls: string) =>
  parsePipeline(
    `
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
flows:
  - { source: primary, target: backup, topics: ['orders', 'team\\..*'], topic_sync: { acls: ${acls} } }
`,
    'pipeline.yaml',
  );

const topics = (names: readonly string[]): TopicDescription[] => names.map((name) => ({ name, partitions: 1 }));
const sourceTopics = topics(['orders', 'team.a', 'other']);
const targetTopics = topics(['primary.orders', 'primary.team.a']);

describe('diffPipeline: topic ACLs', () => {
  it('reports an ACL the sync would create as drift, with its remote name, and the ACLs it does not copy as information', async () => {
    const clients = fakeClients({
      primary: {
        topics: sourceTopics,
        acls: [
          acl({ principal: 'User:reader' }),
          acl({ principal: 'User:admin', operation: 'ALL' }),
          acl({ principal: 'User:writer', operation: 'WRITE' }),
          acl({ name: 'team.', patternType: 'PREFIXED', principal: 'User:blocked', permission: 'DENY', operation: 'ALL', host: '10.0.0.1' }),
          acl({ name: '*', principal: 'User:everyone' }),
          acl({ name: 'other' }),
          acl({ name: 'oth', patternType: 'PREFIXED' }),
        ],
      },
      // ALLOW ALL is copied as READ, and is there already.
      backup: {
        topics: targetTopics,
        acls: [acl({ name: 'primary.orders', principal: 'User:admin' }), acl({ name: 'primary.orders', principal: 'User:local' })],
      },
    });
    const diff = await diffPipeline(pipeline('{ prefixed: true }'), clients);
    const text = formatDiff(diff);
    const expected = [
      'Flow primary->backup: primary -> backup',
      '  ✗ ACL missing on backup: ALLOW User:reader READ, LITERAL topic primary.orders, host * (the ACL sync creates it)',
      '  ✗ ACL missing on backup: DENY User:blocked ALL, PREFIXED topic primary.team., host 10.0.0.1 (the ACL sync creates it)',
      '  · ACL of primary not copied: ALLOW User:everyone READ, LITERAL topic *, host * (a literal "*" would cover topics of the target that are not remote topics of this source)',
      '  · ACL of primary not copied: ALLOW User:writer WRITE, LITERAL topic orders, host * (ALLOW WRITE is never copied: only the replication writes remote topics)',
      '  · 2 ACLs of primary not copied: no topic it covers is replicated by this flow',
      '  1 topic ACL in sync',
      '  2 topics in sync',
      '',
      'Drift: 2.',
    ];
    assert.ok(text.includes(expected.join('\n')), text);
    assert.equal(diff.drift, 2);
    assert.deepEqual(
      clients.calls.filter((c) => !/\.(listTopics|describeTopicConfigs|describeTopicAcls)$/.test(c)),
      [],
      'only list and describe calls',
    );
  });

  it('is in sync when the target has every copy, its own ACLs left out of it', async () => {
    const clients = fakeClients({
      primary: { topics: sourceTopics, acls: [acl({}), acl({ operation: 'WRITE' })] },
      backup: { topics: targetTopics, acls: [acl({ name: 'primary.orders' }), acl({ name: 'primary.orders', principal: 'User:local' })] },
    });
    const diff = await diffPipeline(pipeline('{}'), clients);
    const text = formatDiff(diff);
    assert.equal(diff.drift, 0);
    assert.match(text, /\n {2}1 topic ACL in sync\n/);
    assert.match(text, /\nIn sync\.\n$/);
  });

  it('says prefixed ACLs are not copied when topic_sync.acls.prefixed is off', async () => {
    const clients = fakeClients({
      primary: { topics: sourceTopics, acls: [acl({ name: 'team.', patternType: 'PREFIXED' })] },
      backup: { topics: targetTopics, acls: [] },
    });
    const text = formatDiff(await diffPipeline(pipeline('{ prefixed: false }'), clients));
    assert.ok(
      text.includes(
        '  · ACL of primary not copied: ALLOW User:alice READ, PREFIXED topic team., host * (prefixed ACLs are not copied: topic_sync.acls.prefixed is off)\n',
      ),
      text,
    );
    assert.match(text, /\nIn sync\.\n$/);
  });

  for (const [noAuthorizer, other] of [
    ['backup', 'primary'],
    ['primary', 'backup'],
  ] as const) {
    it(`does not compare ACLs when ${noAuthorizer} has no authorizer: neither drift nor an error`, async () => {
      const clients = fakeClients({
        [noAuthorizer]: { topics: noAuthorizer === 'primary' ? sourceTopics : targetTopics, acls: undefined },
        [other]: { topics: other === 'primary' ? sourceTopics : targetTopics, acls: [acl({ name: other === 'primary' ? 'orders' : 'primary.orders' })] },
      });
      const diff = await diffPipeline(pipeline('{}'), clients);
      const text = formatDiff(diff);
      assert.equal(diff.drift, 0);
      assert.deepEqual(diff.flows[0]!.acls, { notCompared: `${noAuthorizer} has no authorizer, so it keeps no ACLs` });
      assert.ok(text.includes(`\n  Topic ACLs: not compared (${noAuthorizer} has no authorizer, so it keeps no ACLs)\n`), text);
      assert.match(text, /\nIn sync\.\n$/);
    });
  }

  it('leaves ACLs out when the flow does not sync them', async () => {
    const clients = fakeClients({
      primary: { topics: sourceTopics, acls: [acl({})] },
      backup: { topics: targetTopics, acls: [] },
    });
    const diff = await diffPipeline(pipeline('{ enabled: false }'), clients);
    assert.equal(diff.flows[0]!.acls, undefined);
    assert.equal(diff.drift, 0);
    assert.doesNotMatch(formatDiff(diff), /ACL/);
    assert.equal(
      clients.calls.some((c) => c.endsWith('describeTopicAcls')),
      false,
    );
  });
});
