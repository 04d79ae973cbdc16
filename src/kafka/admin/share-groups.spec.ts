import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import type { KafkajsProtocolRequest, RawBroker, RawCluster } from '../wire/raw-cluster';
import { CompactReader } from '../wire/compact-codec';
import { SHARE_GROUP_DESCRIBE_API_KEY, type DescribedShareGroup, type ShareGroupDescribeResponse } from '../wire/share-group-offsets';
import { describeShareGroups } from './share-groups';

/** What a coordinator answers for one group: its state and member count, or an error code. */
type Answer = { readonly state: string; readonly members: number } | { readonly errorCode: number };

/**
 * A cluster whose groups are coordinated by the node of `coordinators` (null: a broker not known
 * by its id), each node answering ShareGroupDescribe from `answers`; every request's group ids recorded.
 */
function clusterOf(coordinators: Record<string, number | null>, answers: Record<string, Answer>) {
  const sent: { readonly node: number | null; readonly groupIds: readonly string[] }[] = [];
  const broker = (nodeId: number | null): RawBroker =>
    ({
      nodeId,
      versions: { [SHARE_GROUP_DESCRIBE_API_KEY]: { minVersion: 1, maxVersion: 1 } },
      send: async <T>(request: KafkajsProtocolRequest<T>): Promise<T> => {
        const body = new CompactReader((await request.request.encode()).buffer, 'ShareGroupDescribe v1 request');
        const groupIds = body.compactArray(() => body.compactString() ?? '');
        sent.push({ node: nodeId, groupIds });
        const groups = groupIds.map((groupId): DescribedShareGroup => {
          const answer = answers[groupId] ?? { errorCode: 69 }; // GROUP_ID_NOT_FOUND
          const members = 'members' in answer ? answer.members : 0;
          return {
            errorCode: 'errorCode' in answer ? answer.errorCode : 0,
            errorMessage: null,
            groupId,
            groupState: 'state' in answer ? answer.state : 'Dead',
            groupEpoch: 1,
            assignmentEpoch: 1,
            assignorName: 'simple',
            members: Array.from({ length: members }, (_, i) => ({
              memberId: `m${i}`,
              rackId: null,
              memberEpoch: 1,
              clientId: 'c',
              clientHost: '/127.0.0.1',
              subscribedTopics: [],
              assignment: [],
            })),
            authorizedOperations: 0,
          };
        });
        const response: ShareGroupDescribeResponse = { throttleTimeMs: 0, groups };
        return response as T;
      },
    }) as unknown as RawBroker;
  const cluster = {
    coordinator: async (groupId: string) => broker(coordinators[groupId] ?? null),
  } as unknown as RawCluster;
  return { cluster, sent };
}

test('describes the groups of one coordinator in one request, one request per coordinator', async () => {
  const { cluster, sent } = clusterOf(
    { a: 1, b: 2, c: 1, d: 2, e: 1 },
    { a: { state: 'Stable', members: 2 }, b: { state: 'Empty', members: 0 }, c: { state: 'Empty', members: 0 }, e: { state: 'Stable', members: 1 } },
  );
  const described = await describeShareGroups(cluster, 'target', ['a', 'b', 'c', 'd', 'e', 'a']);
  assert.deepEqual(sent, [
    { node: 1, groupIds: ['a', 'c', 'e'] },
    { node: 2, groupIds: ['b', 'd'] },
  ]);
  assert.deepEqual(Object.fromEntries(described), {
    a: { state: 'stable', members: 2 },
    b: { state: 'empty', members: 0 },
    c: { state: 'empty', members: 0 },
    d: { state: 'dead', members: 0 },
    e: { state: 'stable', members: 1 },
  });
});

test('a coordinator not known by its id is asked alone', async () => {
  const { cluster, sent } = clusterOf({ a: null, b: null, c: 3 }, { a: { state: 'Empty', members: 0 }, c: { state: 'Empty', members: 0 } });
  await describeShareGroups(cluster, 'target', ['a', 'b', 'c']);
  assert.deepEqual(sent, [
    { node: null, groupIds: ['a'] },
    { node: null, groupIds: ['b'] },
    { node: 3, groupIds: ['c'] },
  ]);
});

test('a group the coordinator answers with an error rejects the call, naming the group', async () => {
  const { cluster } = clusterOf({ a: 1, b: 1 }, { a: { state: 'Empty', members: 0 }, b: { errorCode: 30 } }); // GROUP_AUTHORIZATION_FAILED
  await assert.rejects(describeShareGroups(cluster, 'target', ['a', 'b']), /share group "b"/);
});
