import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planTopicAcls } from './topic-acl-plan';
import { topicAcl as acl } from './topic-acl-fixture';

const context = {
  remoteTopic: (topic: string) => `primary.${topic}`,
  shouldReplicate: (topic: string) => topic === 'orders' || topic.startsWith('team.'),
  replicatedTopics: ['orders', 'team.events'],
  prefixed: true,
};

test("planTopicAcls: MM2's rules — ALLOW WRITE dropped, ALLOW ALL as READ, DENY and others copied, renamed to the remote topic", () => {
  const plan = planTopicAcls(
    [
      acl({}),
      acl({ operation: 'WRITE' }),
      acl({ operation: 'ALL', principal: 'User:admin', host: '10.0.0.1' }),
      acl({ operation: 'ALL', permission: 'DENY', principal: 'User:bad' }),
      acl({ operation: 'WRITE', permission: 'DENY', principal: 'User:bad' }),
      acl({ operation: 'DESCRIBE' }),
    ],
    context,
  );
  assert.deepEqual(plan.copies, [
    acl({ name: 'primary.orders' }),
    acl({ name: 'primary.orders', operation: 'READ', principal: 'User:admin', host: '10.0.0.1' }),
    acl({ name: 'primary.orders', operation: 'ALL', permission: 'DENY', principal: 'User:bad' }),
    acl({ name: 'primary.orders', operation: 'WRITE', permission: 'DENY', principal: 'User:bad' }),
    acl({ name: 'primary.orders', operation: 'DESCRIBE' }),
  ]);
  assert.deepEqual(plan.skipped, [{ acl: acl({ operation: 'WRITE' }), reason: 'allow-write' }]);
});

test('planTopicAcls: an ALLOW ALL and an ALLOW READ of one principal become one target ACL', () => {
  const plan = planTopicAcls([acl({ operation: 'ALL' }), acl({})], context);
  assert.deepEqual(plan.copies, [acl({ name: 'primary.orders' })]);
});

test('planTopicAcls: topics not replicated and a literal "*" are skipped with their reason', () => {
  const plan = planTopicAcls([acl({ name: 'payments' }), acl({ name: '*' })], context);
  assert.deepEqual(plan.copies, []);
  assert.deepEqual(
    plan.skipped.map((s) => [s.acl.name, s.reason]),
    [
      ['payments', 'not-replicated'],
      ['*', 'wildcard'],
    ],
  );
});

test('planTopicAcls: a prefixed ACL is copied on the remote prefix when a replicated topic starts with it, and only when prefixed is on', () => {
  const prefixed = [
    acl({ name: 'team.', patternType: 'PREFIXED' }),
    acl({ name: 'other.', patternType: 'PREFIXED' }),
    acl({ name: 'team.', patternType: 'PREFIXED', operation: 'WRITE' }),
  ];
  const plan = planTopicAcls(prefixed, context);
  assert.deepEqual(plan.copies, [acl({ name: 'primary.team.', patternType: 'PREFIXED' })]);
  assert.deepEqual(
    plan.skipped.map((s) => [s.acl.name, s.acl.operation, s.reason]),
    [
      ['other.', 'READ', 'not-replicated'],
      ['team.', 'WRITE', 'allow-write'],
    ],
  );
  const off = planTopicAcls(prefixed.slice(0, 1), { ...context, prefixed: false });
  assert.deepEqual(off.copies, []);
  assert.deepEqual(
    off.skipped.map((s) => s.reason),
    ['prefixed'],
  );
});
