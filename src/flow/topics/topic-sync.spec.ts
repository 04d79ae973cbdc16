import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, VirtualTimeScheduler, defer, firstValueFrom, of } from '#rxjs';
import type { ClusterAdmin, NewTopic, TopicConfigEntry, TopicDescription } from '../../core/ports/cluster-admin';
import { silentLogger } from '../../core/ports/logger';
import { TopicSync, UNLISTED_GRACE_MS, sameTopics, type ReplicatedTopic } from './topic-sync';

/** A cluster's admin over a topic list in memory, recording what is asked of it. */
function fakeAdmin(cluster: string, topics: TopicDescription[], configs: Record<string, TopicConfigEntry[]> = {}) {
  const calls: string[] = [];
  const created: NewTopic[] = [];
  const admin = {
    cluster,
    listTopics: (): Observable<readonly TopicDescription[]> => defer(() => (calls.push('listTopics'), of([...topics]))),
    describeTopicConfigs: (names: readonly string[]) =>
      defer(() => (calls.push(`describeTopicConfigs ${names.join(',')}`), of(new Map(names.map((n) => [n, configs[n] ?? []]))))),
    createTopics: (list: readonly NewTopic[]) =>
      defer(() => {
        created.push(...list);
        for (const t of list) topics.push({ name: t.name, partitions: t.partitions });
        return of(list.map((t) => t.name));
      }),
    createPartitions: (topic: string, count: number) =>
      defer(() => {
        calls.push(`createPartitions ${topic} ${count}`);
        const i = topics.findIndex((t) => t.name === topic);
        topics[i] = { name: topic, partitions: count };
        return of(undefined);
      }),
  } as unknown as ClusterAdmin;
  return { admin, calls, created, topics };
}

const entry = (name: string, value: string, isDefault = false): TopicConfigEntry => ({
  name,
  value,
  isDefault,
  readOnly: false,
  sensitive: false,
  source: isDefault ? 'default' : 'topic',
});

function topicSync(
  source: ReturnType<typeof fakeAdmin>,
  target: ReturnType<typeof fakeAdmin>,
  syncConfigs = true,
  scheduler: VirtualTimeScheduler = new VirtualTimeScheduler(),
) {
  return new TopicSync({
    scheduler,
    sourceAdmin: source.admin,
    targetAdmin: target.admin,
    remoteTopic: (t) => `primary.${t}`,
    shouldReplicate: (t) => !t.startsWith('__') && t !== 'excluded',
    // Non-default values only, as MM2's DefaultConfigPropertyFilter keeps them.
    targetConfig: (entries) => Object.fromEntries(entries.filter((e) => !e.isDefault).map((e) => [e.name, e.value!])),
    syncConfigs,
    replicationFactor: -1,
    logger: silentLogger,
  });
}

describe('TopicSync', () => {
  it('creates the missing remote topics with the source partition count and non-default configs, and emits the replicated topics sorted', async () => {
    const source = fakeAdmin(
      'primary',
      [
        { name: 'payments', partitions: 2 },
        { name: 'orders', partitions: 3 },
        { name: '__consumer_offsets', partitions: 50 },
        { name: 'excluded', partitions: 1 },
      ],
      {
        orders: [entry('retention.ms', '1000'), entry('cleanup.policy', 'delete', true)],
      },
    );
    const target = fakeAdmin('backup', [{ name: 'primary.payments', partitions: 2 }]);
    const topics = await firstValueFrom(topicSync(source, target).refresh());
    assert.deepEqual(topics, [
      { source: 'orders', target: 'primary.orders', partitions: 3 },
      { source: 'payments', target: 'primary.payments', partitions: 2 },
    ]);
    assert.deepEqual(target.created, [{ name: 'primary.orders', partitions: 3, replicationFactor: -1, configs: { 'retention.ms': '1000' } }]);
    assert.ok(source.calls.includes('describeTopicConfigs orders'), 'configs are read for the missing topic only');
  });

  it('does not read source configs when config sync is off', async () => {
    const source = fakeAdmin('primary', [{ name: 'orders', partitions: 1 }], { orders: [entry('retention.ms', '1000')] });
    const target = fakeAdmin('backup', []);
    await firstValueFrom(topicSync(source, target, false).refresh());
    assert.deepEqual(
      target.created.map((t) => t.configs),
      [{}],
    );
    assert.equal(source.calls.filter((c) => c.startsWith('describeTopicConfigs')).length, 0);
  });

  it('grows a remote topic whose source grew, and never shrinks or deletes anything', async () => {
    const source = fakeAdmin('primary', [
      { name: 'grown', partitions: 6 },
      { name: 'shrunk', partitions: 1 },
    ]);
    const target = fakeAdmin('backup', [
      { name: 'primary.grown', partitions: 4 },
      { name: 'primary.shrunk', partitions: 3 },
      { name: 'primary.gone', partitions: 1 },
    ]);
    await firstValueFrom(topicSync(source, target).refresh());
    assert.deepEqual(
      target.calls.filter((c) => c.startsWith('createPartitions')),
      ['createPartitions primary.grown 6'],
    );
    assert.deepEqual(target.created, []);
    assert.deepEqual(target.topics, [
      { name: 'primary.grown', partitions: 6 },
      { name: 'primary.shrunk', partitions: 3 },
      { name: 'primary.gone', partitions: 1 },
    ]);
  });

  it('answers an empty list and changes nothing on the target when nothing on the source is replicated', async () => {
    const source = fakeAdmin('primary', [{ name: '__consumer_offsets', partitions: 50 }]);
    const target = fakeAdmin('backup', []);
    assert.deepEqual(await firstValueFrom(topicSync(source, target).refresh()), []);
    assert.deepEqual(target.created, []);
    assert.deepEqual(
      target.calls.filter((c) => c !== 'listTopics'),
      [],
    );
  });

  it("does not ask again for a remote topic it created that the target's listing does not show yet; once listed and then gone, asks at the next refresh", async () => {
    const source = fakeAdmin('primary', [{ name: 'orders', partitions: 3 }]);
    const target = fakeAdmin('backup', []);
    const sync = topicSync(source, target);
    await firstValueFrom(sync.refresh());
    // A broker lists a new topic only once it applied the controller's records: minutes behind
    // after thousands of new partitions.
    target.topics.length = 0;
    for (let i = 0; i < 3; i++) {
      const topics = await firstValueFrom(sync.refresh());
      assert.deepEqual(topics, [{ source: 'orders', target: 'primary.orders', partitions: 3 }], 'still replicated');
    }
    assert.equal(target.created.length, 1, 'not asked for again while the listing lags');
    target.topics.push({ name: 'primary.orders', partitions: 3 });
    await firstValueFrom(sync.refresh());
    target.topics.length = 0; // listed, then deleted on the target
    await firstValueFrom(sync.refresh());
    assert.deepEqual(
      target.created.map((t) => t.name),
      ['primary.orders', 'primary.orders'],
      'a remote topic deleted after the target listed it is created again at once',
    );
  });

  it('asks again for a remote topic the target has not listed once the grace period passed (deleted before any listing showed it)', async () => {
    const scheduler = new VirtualTimeScheduler();
    const source = fakeAdmin('primary', [{ name: 'orders', partitions: 3 }]);
    const target = fakeAdmin('backup', []);
    const sync = topicSync(source, target, true, scheduler);
    await firstValueFrom(sync.refresh());
    target.topics.length = 0;
    scheduler.frame += UNLISTED_GRACE_MS - 1;
    await firstValueFrom(sync.refresh());
    assert.equal(target.created.length, 1, 'within the grace period: not asked for again');
    scheduler.frame += 1;
    await firstValueFrom(sync.refresh());
    assert.deepEqual(
      target.created.map((t) => t.name),
      ['primary.orders', 'primary.orders'],
    );
    target.topics.length = 0;
    await firstValueFrom(sync.refresh());
    assert.equal(target.created.length, 2, 'created again: a new grace period');
  });

  it('asks again at once for a remote topic it created when the target lists a topic whose name collides with it, and creates it once that one is gone', async () => {
    // The backpressure test's case: the remote topic is deleted before any listing showed it, and
    // `primary_orders` is created in its place; Kafka refuses `primary.orders` beside it.
    const source = fakeAdmin('primary', [{ name: 'orders', partitions: 3 }]);
    const target = fakeAdmin('backup', []);
    const sync = topicSync(source, target);
    await firstValueFrom(sync.refresh());
    target.topics.length = 0;
    target.topics.push({ name: 'primary_orders', partitions: 1 });
    let refused = 0;
    const realCreate = target.admin.createTopics.bind(target.admin);
    Object.assign(target.admin, {
      createTopics: (list: readonly NewTopic[], options?: { readonly served?: boolean }) =>
        target.topics.some((t) => t.name === 'primary_orders')
          ? defer(() => {
              refused++;
              throw new Error("Topic 'primary.orders' collides with existing topic: primary_orders");
            })
          : realCreate(list, options),
    });
    await assert.rejects(firstValueFrom(sync.refresh()), /collides/);
    await assert.rejects(firstValueFrom(sync.refresh()), /collides/);
    assert.equal(refused, 2, 'asked for at each refresh while the other topic is listed, as for any missing topic');
    target.topics.length = 0; // the colliding topic deleted
    await firstValueFrom(sync.refresh());
    assert.deepEqual(
      target.created.map((t) => t.name),
      ['primary.orders', 'primary.orders'],
      'created again at the first refresh after the colliding topic is gone',
    );
  });

  it('asks again at the next refresh for a remote topic the target refused as existing (it did not create it)', async () => {
    const source = fakeAdmin('primary', [{ name: 'orders', partitions: 3 }]);
    const target = fakeAdmin('backup', []);
    // Refused as existing: created by someone else, whose topic the listing does not show yet.
    const refusing = {
      ...target.admin,
      createTopics: (list: readonly NewTopic[]) => defer(() => (target.created.push(...list), of([]))),
    } as unknown as ClusterAdmin;
    const sync = topicSync(source, { ...target, admin: refusing });
    await firstValueFrom(sync.refresh());
    await firstValueFrom(sync.refresh());
    assert.deepEqual(
      target.created.map((t) => t.name),
      ['primary.orders', 'primary.orders'],
    );
  });

  it('tells `listed` the topics with the ids the listing gave, before anything is created, without asking for ids again', async () => {
    const source = fakeAdmin('primary', [
      { name: 'orders', partitions: 3, topicId: 'id-orders' },
      { name: 'payments', partitions: 2, topicId: 'id-payments' },
      { name: 'audit', partitions: 1, topicId: 'id-audit' },
    ]);
    const idRequests: (readonly string[])[] = [];
    Object.assign(source.admin, { topicIds: (topics: readonly string[]) => defer(() => (idRequests.push(topics), of(new Map<string, string>()))) });
    const target = fakeAdmin('backup', []);
    let createdWhenListed: number | undefined;
    let listed: readonly ReplicatedTopic[] = [];
    const sync = new TopicSync({
      sourceAdmin: source.admin,
      targetAdmin: target.admin,
      remoteTopic: (t) => `primary.${t}`,
      shouldReplicate: (t) => t !== 'audit',
      targetConfig: () => ({}),
      syncConfigs: false,
      replicationFactor: -1,
      logger: silentLogger,
      scheduler: new VirtualTimeScheduler(),
    });
    const topics = await firstValueFrom(
      sync.refresh((early) => {
        listed = early;
        createdWhenListed = target.created.length;
      }),
    );
    const expected = [
      { source: 'orders', target: 'primary.orders', partitions: 3, topicId: 'id-orders' },
      { source: 'payments', target: 'primary.payments', partitions: 2, topicId: 'id-payments' },
    ];
    assert.deepEqual(listed, expected);
    assert.equal(createdWhenListed, 0, 'told before the remote topics were created');
    assert.deepEqual(topics, expected);
    assert.deepEqual(
      target.created.map((t) => t.name),
      ['primary.orders', 'primary.payments'],
    );
    assert.deepEqual(idRequests, [], 'no request of its own for the ids');
  });

  it('asks for the ids of the replicated topics when the listing gave none (brokers before 3.1 list without them)', async () => {
    const source = fakeAdmin('primary', [
      { name: 'orders', partitions: 3 },
      { name: 'excluded', partitions: 1 },
    ]);
    const idRequests: (readonly string[])[] = [];
    Object.assign(source.admin, {
      topicIds: (topics: readonly string[]) => defer(() => (idRequests.push(topics), of(new Map([['orders', 'id-orders']])))),
    });
    const topics = await firstValueFrom(topicSync(source, fakeAdmin('backup', [])).refresh());
    assert.deepEqual(topics, [{ source: 'orders', target: 'primary.orders', partitions: 3, topicId: 'id-orders' }]);
    assert.deepEqual(idRequests, [['orders']]);
  });
});

describe('sameTopics', () => {
  const t = (source: string, partitions: number): ReplicatedTopic => ({ source, target: `primary.${source}`, partitions });
  it('tells a changed subscription (topic added, partitions grown) from an unchanged one', () => {
    assert.equal(sameTopics([t('a', 1), t('b', 2)], [t('a', 1), t('b', 2)]), true);
    assert.equal(sameTopics([t('a', 1)], [t('a', 1), t('b', 2)]), false);
    assert.equal(sameTopics([t('a', 1)], [t('a', 2)]), false);
  });
});
