import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { type Observable, defer, of, throwError } from '#rxjs';
import { AclSync } from './acl-sync';
import { AclSyncStatus } from './acl-sync-status';
import { OutageStatus } from '../status/outage-status';
import type { Logger } from '../../core/ports/logger';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import { SecurityDisabledError, topicAclKey, type AclCreateResult, type TopicAcl } from '../../core/ports/topic-acl';
import { KafkaTransportError } from '../../core/errors';
import { topicAcl as acl } from './topic-acl-fixture';

const newScheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

interface Line {
  readonly level: string;
  readonly message: string;
  readonly meta: Record<string, unknown>;
}

function recordingLogger(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (message: string, meta: Record<string, unknown> = {}) =>
      lines.push({ level, message, meta });
  const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => logger };
  return logger;
}

/** A source and a target admin over ACL lists; `failures` makes the next calls of an operation fail. */
function harness(
  scheduler: TestScheduler,
  options: { sourceAcls: TopicAcl[]; targetAcls?: TopicAcl[]; failures?: Map<string, (() => Error)[]>; listLagMs?: number },
) {
  const target = new Map<string, TopicAcl>((options.targetAcls ?? []).map((a) => [topicAclKey(a), a]));
  /** When each ACL was created: a target under load lists new ACLs `listLagMs` later. */
  const createdAt = new Map<string, number>();
  const calls: { at: number; call: string }[] = [];
  const call = <T>(name: string, fn: () => T): Observable<T> =>
    defer(() => {
      calls.push({ at: scheduler.now(), call: name });
      const fail = options.failures?.get(name)?.shift();
      return fail ? throwError(fail) : of(fn());
    });
  const sourceAdmin = {
    cluster: 'primary',
    describeTopicAcls: () => call('source.describe', () => [...options.sourceAcls]),
    listTopics: () => call('source.list', () => [{ name: 'orders', partitions: 1 }]),
  } as unknown as ClusterAdmin;
  const targetAdmin = {
    cluster: 'backup',
    describeTopicAcls: () =>
      call('target.describe', () =>
        [...target.values()].filter((a) => scheduler.now() - (createdAt.get(topicAclKey(a)) ?? -Infinity) >= (options.listLagMs ?? 0)),
      ),
    createTopicAcls: (acls: readonly TopicAcl[]) =>
      call('target.create', (): AclCreateResult[] =>
        acls.map((a) => {
          if (a.principal === 'User:refused') return { acl: a, error: 'INVALID_REQUEST' };
          target.set(topicAclKey(a), a);
          createdAt.set(topicAclKey(a), scheduler.now());
          return { acl: a };
        }),
      ),
  } as unknown as ClusterAdmin;
  const lines: Line[] = [];
  const status = new AclSyncStatus();
  const outages = new OutageStatus();
  const sync = new AclSync({
    settings: { source: 'primary', target: 'backup', intervalMs: 100, prefixed: true },
    sourceAdmin,
    targetAdmin,
    remoteTopic: (t) => `primary.${t}`,
    shouldReplicate: (t) => t === 'orders',
    scheduler,
    logger: recordingLogger(lines),
    status,
    outages,
  });
  return { sync, status, outages, lines, calls, targetAcls: () => [...target.values()] };
}

test('ACL sync: a pass at start and one per interval, creating only what the target lacks; each skip logged and counted once', () => {
  const scheduler = newScheduler();
  scheduler.run(({ cold, expectObservable, flush }) => {
    const sourceAcls = [acl({}), acl({ operation: 'WRITE' }), acl({ operation: 'ALL', principal: 'User:admin' }), acl({ name: 'payments' })];
    const h = harness(scheduler, { sourceAcls, targetAcls: [acl({ name: 'primary.orders' }), acl({ name: 'primary.orders', principal: 'User:local' })] });
    // An ACL added on the source at 150 reaches the target at the pass of 200.
    scheduler.schedule(() => sourceAcls.push(acl({ principal: 'User:late', operation: 'DESCRIBE' })), 150);
    expectObservable(h.sync.run(cold('250ms s'))).toBe('250ms |');
    flush();
    assert.deepEqual(
      h.calls.filter((c) => c.call === 'source.describe').map((c) => c.at),
      [0, 100, 200],
    );
    assert.deepEqual(
      h.calls.filter((c) => c.call === 'target.create').map((c) => c.at),
      [0, 200],
      'nothing to create at 100',
    );
    assert.deepEqual(
      h
        .targetAcls()
        .map((a) => `${a.principal} ${a.operation} ${a.name}`)
        .sort(),
      ['User:admin READ primary.orders', 'User:alice READ primary.orders', 'User:late DESCRIBE primary.orders', 'User:local READ primary.orders'],
    );
    assert.equal(h.status.created, 2);
    assert.equal(h.status.passes, 3);
    assert.deepEqual(h.status.skipped, { 'allow-write': 1, wildcard: 0, prefixed: 0, 'not-replicated': 1, refused: 0 });
    const skips = h.lines.filter((l) => l.message.startsWith('Topic ACL not copied'));
    assert.deepEqual(
      skips.map((l) => [l.level, l.meta['reason'], l.meta['acl']]),
      [
        ['info', 'allow-write', 'ALLOW User:alice WRITE on topic "orders" from *'],
        ['debug', 'not-replicated', 'ALLOW User:alice READ on topic "payments" from *'],
      ],
    );
    assert.equal(h.status.state, 'stopped');
  });
});

test('ACL sync: a source without an authorizer is said once at info and ends the sync; the target is never asked', () => {
  const scheduler = newScheduler();
  scheduler.run(({ cold, expectObservable, flush }) => {
    const h = harness(scheduler, { sourceAcls: [], failures: new Map([['source.describe', [() => new SecurityDisabledError('primary')]]]) });
    expectObservable(h.sync.run(cold('500ms s'))).toBe('|');
    flush();
    assert.equal(h.status.state, 'no-authorizer');
    assert.deepEqual(
      h.lines.map((l) => [l.level, l.meta['cluster']]),
      [['info', 'primary']],
    );
    assert.deepEqual(
      h.calls.map((c) => c.call),
      ['source.describe'],
    );
  });
});

test('ACL sync: an outage is retried within the pass and reported; a refusal is logged, counted and tried again at the next interval', () => {
  const scheduler = newScheduler();
  scheduler.run(({ cold, expectObservable, flush }) => {
    const down = () => new KafkaTransportError('backup', 'Describing topic ACLs failed: Connection refused', true);
    const denied = () => new KafkaTransportError('primary', 'Describing topic ACLs failed: CLUSTER_AUTHORIZATION_FAILED', false);
    // The pass at 0 is refused (not retriable); the pass at 100 meets the target down twice, then goes through.
    const h = harness(scheduler, {
      sourceAcls: [acl({}), acl({ principal: 'User:refused' })],
      failures: new Map([
        ['source.describe', [denied]],
        ['target.describe', [down, down]],
      ]),
    });
    expectObservable(h.sync.run(cold('3000ms s'))).toBe('3000ms |');
    flush();
    assert.equal(h.status.errors, 1, 'the failed pass');
    assert.equal(h.lines.filter((l) => l.message.startsWith('Syncing topic ACLs failed')).length, 1);
    assert.ok(h.outages.recovered >= 1, 'the outage of the target ended');
    assert.ok(h.lines.some((l) => l.level === 'warn' && l.meta['cluster'] === 'backup' && l.meta['operation'] === 'syncing topic ACLs'));
    assert.deepEqual(
      h.targetAcls().map((a) => a.principal),
      ['User:alice'],
    );
    assert.equal(h.status.skipped.refused, 1);
    assert.ok(h.lines.some((l) => l.level === 'warn' && l.meta['reason'] === 'refused' && l.meta['error'] === 'INVALID_REQUEST'));
    assert.equal(h.status.state, 'stopped');
  });
});

test('ACL sync: an ACL the target lists only seconds after creating it is not created again meanwhile', () => {
  const scheduler = newScheduler();
  scheduler.run(({ cold, expectObservable, flush }) => {
    const h = harness(scheduler, { sourceAcls: [acl({})], listLagMs: 250 });
    expectObservable(h.sync.run(cold('450ms s'))).toBe('450ms |');
    flush();
    assert.deepEqual(
      h.calls.filter((c) => c.call === 'target.create').map((c) => c.at),
      [0],
    );
    assert.equal(h.status.created, 1);
    assert.equal(h.status.passes, 5);
  });
});
