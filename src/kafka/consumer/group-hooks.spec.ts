import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { groupHooks } from './group-hooks';

import { kafkajsConsumerGroup } from '../wire/kafkajs-internals';

const ConsumerGroup = kafkajsConsumerGroup();

interface FakeGroup {
  groupId: string;
  memberId: string | null;
  generationId: number | null;
  coordinator: { heartbeat(request: { groupGenerationId: number }): Promise<unknown> };
  assigners: object[];
  heartbeats: number[];
  /** kafkajs's shared heartbeat (ConsumerGroup.heartbeat), as keepAlive calls it. */
  heartbeat(options: { interval: number }): Promise<void>;
  keepAlives: number[];
}

/** A member whose kafkajs group is a fake: the hooked join registers it, the real join then fails on it. */
async function joined(answer: (generation: number) => Promise<unknown> = () => Promise.resolve({})) {
  const { partitionAssigners, member } = groupHooks({ beforeJoin: () => Promise.resolve() });
  const group: FakeGroup = {
    keepAlives: [],
    heartbeat: async ({ interval }) => {
      group.keepAlives.push(interval);
      await answer(group.generationId ?? -1);
    },
    groupId: 'g',
    memberId: 'm-1',
    generationId: 5,
    heartbeats: [],
    coordinator: {
      heartbeat: (request) => {
        group.heartbeats.push(request.groupGenerationId);
        return answer(request.groupGenerationId);
      },
    },
    assigners: [partitionAssigners[0]!({ cluster: {} } as never)],
  };
  await ConsumerGroup.prototype.joinAndSync.call(group).catch(() => undefined); // the real join fails on the fake, as it should
  return { member, group };
}

const protocolError = (type: string) => Promise.reject(Object.assign(new Error(type), { type }));

test('a member asked about its current generation asks the coordinator with it', async () => {
  const { member, group } = await joined();
  assert.equal(member.generation(), 5);
  assert.equal(await member.stillMember(5), true);
  assert.equal(await member.stillMember(), true);
  assert.deepEqual(group.heartbeats, [5, 5]);
});

test('a member that rejoined past the generation asked about no longer belongs to it, although its heartbeat would pass', async () => {
  const { member, group } = await joined();
  group.generationId = 6;
  assert.equal(await member.stillMember(5), false, 'what it held in generation 5 was given up before the join');
  assert.deepEqual(group.heartbeats, [], 'decided without asking: the coordinator would take generation 6');
  assert.equal(await member.stillMember(6), true);
  group.generationId = null;
  assert.equal(await member.stillMember(6), false, 'between joins, after giving generation 6 up');
});

test('a member the coordinator forgot (kafkajs drops its member id to join again) no longer belongs to the generation it had', async () => {
  const { member, group } = await joined();
  group.memberId = null;
  assert.equal(await member.stillMember(5), false, 'a process resumed after its session expired: another member may hold its partitions');
  assert.equal(await member.stillMember(), true, 'asked about no generation: nothing to be fenced from yet');
  assert.deepEqual(group.heartbeats, []);
});

test("the coordinator's answers: a rebalance waiting for this member keeps it, a newer generation without it does not", async () => {
  let answer = 'REBALANCE_IN_PROGRESS';
  const { member } = await joined(() => protocolError(answer));
  assert.equal(await member.stillMember(5), true);
  for (answer of ['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID']) assert.equal(await member.stillMember(5), false, answer);
  answer = 'COORDINATOR_NOT_AVAILABLE';
  await assert.rejects(member.stillMember(5), /COORDINATOR_NOT_AVAILABLE/);
});

test('holds: a fetch belongs to the generation it was assigned in until the member knows it left it, without asking the coordinator', async () => {
  const { member, group } = await joined();
  assert.equal(member.holds(5), true);
  assert.equal(member.holds(undefined), true, 'no assignment asked about: nothing to drop');
  group.memberId = null;
  assert.equal(member.holds(5), false, 'told it is no member any more (its session expired): another member may own the partitions');
  group.memberId = 'm-1';
  group.generationId = 6;
  assert.equal(member.holds(5), false, 'joined again since');
  assert.equal(member.holds(6), true);
  assert.deepEqual(group.heartbeats, []);
});

test("keepAlive sends kafkajs's own (shared, throttled) heartbeat of a joined member, and never rejects: the fetch loop acts on the answer", async () => {
  const unjoined = groupHooks({ beforeJoin: () => Promise.resolve() });
  await unjoined.member.keepAlive(1000); // before the first join: nothing to keep alive, nothing thrown

  let answer: Promise<unknown> = Promise.resolve({});
  const { member, group } = await joined(() => answer);
  await member.keepAlive(1000);
  assert.deepEqual(group.keepAlives, [1000], 'through ConsumerGroup.heartbeat, which sends only once the interval passed');
  answer = protocolError('REBALANCE_IN_PROGRESS');
  await member.keepAlive(1000);
  answer = protocolError('UNKNOWN_MEMBER_ID');
  await member.keepAlive(1000);
  assert.equal(group.keepAlives.length, 3);
  group.memberId = null; // kafkajs forgot the member id and is about to join again
  await member.keepAlive(1000);
  assert.equal(group.keepAlives.length, 3, 'no member id: no heartbeat');
  assert.deepEqual(group.heartbeats, [], 'never the membership check of stillMember');
});
