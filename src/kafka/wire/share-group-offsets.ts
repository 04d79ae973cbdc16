/**
 * The share-group (KIP-932, Kafka 4.2+) admin requests that kafkajs does not speak: how far a
 * share group got on each partition, changing that on a group without members, and whether a
 * group has members. mirrorflow sends them through a kafkajs broker connection to the group's
 * coordinator. Every version is flexible (request header v2, response header v1), as a Kafka
 * 4.3.1 broker describes them (`Schema.toString()` of its message classes):
 *
 *   DescribeShareGroupOffsets (key 90) Request (v0, v1) => [groups] TAG_BUFFER
 *     groups     => group_id COMPACT_STRING | topics COMPACT_NULLABLE_ARRAY (null: every topic) | TAG_BUFFER
 *     topics     => topic_name COMPACT_STRING | partitions COMPACT_ARRAY INT32 | TAG_BUFFER
 *   DescribeShareGroupOffsets Response (v0, v1) => throttle_time_ms INT32 | [groups] TAG_BUFFER
 *     groups     => group_id COMPACT_STRING | [topics] | error_code INT16 | error_message COMPACT_NULLABLE_STRING | TAG_BUFFER
 *     topics     => topic_name COMPACT_STRING | topic_id UUID | [partitions] | TAG_BUFFER
 *     partitions => partition_index INT32 | start_offset INT64 | leader_epoch INT32 | lag INT64 (v1+)
 *                   | error_code INT16 | error_message COMPACT_NULLABLE_STRING | TAG_BUFFER
 *
 *   AlterShareGroupOffsets (key 91) Request (v0) => group_id COMPACT_STRING | [topics] TAG_BUFFER
 *     topics     => topic_name COMPACT_STRING | [partitions] | TAG_BUFFER
 *     partitions => partition_index INT32 | start_offset INT64 | TAG_BUFFER
 *   AlterShareGroupOffsets Response (v0) => throttle_time_ms INT32 | error_code INT16
 *                   | error_message COMPACT_NULLABLE_STRING | [responses] TAG_BUFFER
 *     responses  => topic_name COMPACT_STRING | topic_id UUID | [partitions] | TAG_BUFFER
 *     partitions => partition_index INT32 | error_code INT16 | error_message COMPACT_NULLABLE_STRING | TAG_BUFFER
 *
 *   ShareGroupDescribe (key 77) Request (v1) => group_ids COMPACT_ARRAY COMPACT_STRING
 *                   | include_authorized_operations BOOLEAN | TAG_BUFFER
 *   ShareGroupDescribe Response (v1) => throttle_time_ms INT32 | [groups] TAG_BUFFER
 *     groups     => error_code INT16 | error_message COMPACT_NULLABLE_STRING | group_id COMPACT_STRING
 *                   | group_state COMPACT_STRING | group_epoch INT32 | assignment_epoch INT32
 *                   | assignor_name COMPACT_STRING | [members] | authorized_operations INT32 | TAG_BUFFER
 *     members    => member_id COMPACT_STRING | rack_id COMPACT_NULLABLE_STRING | member_epoch INT32
 *                   | client_id COMPACT_STRING | client_host COMPACT_STRING
 *                   | subscribed_topic_names COMPACT_ARRAY COMPACT_STRING | assignment | TAG_BUFFER
 *     assignment => [topic_partitions] TAG_BUFFER
 *     topic_partitions => topic_id UUID | topic_name COMPACT_STRING | partitions COMPACT_ARRAY INT32 | TAG_BUFFER
 *
 * What a 4.3.1 broker answers (fixtures/, captured by test/interop/capture-share-group-fixtures.ts,
 * and tried on it): an alter of a group that does not exist creates it, Empty, with those start
 * offsets; the partitions an alter does not name keep theirs; a partition of a topic that does not
 * exist is refused (UNKNOWN_TOPIC_OR_PARTITION) while the others are still altered; a group with
 * members is refused as a whole (NON_EMPTY_GROUP at the top, no topics); a partition the group
 * has no start offset for is described with -1 (a group asked for every topic lists only
 * partitions it subscribed to or was given); an unknown group is GROUP_ID_NOT_FOUND in
 * ShareGroupDescribe. A start offset past the partition's end is accepted.
 * (See compact-codec.ts for the field types.)
 */
import { CompactReader, CompactWriter, flexibleRequest } from './compact-codec';

export const SHARE_GROUP_DESCRIBE_API_KEY = 77;
export const SHARE_GROUP_DESCRIBE_V1 = 1;
export const DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY = 90;
/** v1 adds each partition's lag; an older broker may know v0 only. */
export const DESCRIBE_SHARE_GROUP_OFFSETS_V0 = 0;
export const DESCRIBE_SHARE_GROUP_OFFSETS_V1 = 1;
export const ALTER_SHARE_GROUP_OFFSETS_API_KEY = 91;
export const ALTER_SHARE_GROUP_OFFSETS_V0 = 0;

/** Which start offsets to describe of one group: `topics` null asks for every topic it has. */
export interface ShareGroupOffsetsQuery {
  readonly groupId: string;
  readonly topics: readonly { readonly topic: string; readonly partitions: readonly number[] }[] | null;
}

export interface DescribedSharePartition {
  readonly partition: number;
  /** The share-partition start offset: the first record not yet acknowledged; -1 when the group has none there. */
  readonly startOffset: number;
  readonly leaderEpoch: number;
  /** v1: records from the start offset to the end not yet acknowledged; -1 when unknown, undefined in v0. */
  readonly lag?: number;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface DescribedShareGroupOffsets {
  readonly groupId: string;
  readonly topics: readonly { readonly topic: string; readonly topicId: string; readonly partitions: readonly DescribedSharePartition[] }[];
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface DescribeShareGroupOffsetsResponse {
  readonly throttleTimeMs: number;
  readonly groups: readonly DescribedShareGroupOffsets[];
}

export interface ShareGroupStartOffsets {
  readonly topic: string;
  readonly partitions: readonly { readonly partition: number; readonly startOffset: number }[];
}

export interface AlterShareGroupOffsetsResponse {
  readonly throttleTimeMs: number;
  /** The group's error (NON_EMPTY_GROUP while it has members), 0 when the partitions say. */
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly topics: readonly {
    readonly topic: string;
    readonly topicId: string;
    readonly partitions: readonly { readonly partition: number; readonly errorCode: number; readonly errorMessage: string | null }[];
  }[];
}

export interface DescribedShareGroupMember {
  readonly memberId: string;
  readonly rackId: string | null;
  readonly memberEpoch: number;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopics: readonly string[];
  readonly assignment: readonly { readonly topicId: string; readonly topic: string; readonly partitions: readonly number[] }[];
}

export interface DescribedShareGroup {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly groupId: string;
  /** `Empty`, `Stable`, `Dead`, …, as Kafka names it. */
  readonly groupState: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly assignorName: string;
  readonly members: readonly DescribedShareGroupMember[];
  readonly authorizedOperations: number;
}

export interface ShareGroupDescribeResponse {
  readonly throttleTimeMs: number;
  readonly groups: readonly DescribedShareGroup[];
}

/** The DescribeShareGroupOffsets request body; v0 and v1 are the same. */
export function encodeDescribeShareGroupOffsetsRequest(groups: readonly ShareGroupOffsetsQuery[]): Buffer {
  const w = new CompactWriter();
  w.compactArray(groups, (g) => {
    w.compactString(g.groupId);
    w.compactArray(g.topics, (t) => {
      w.compactString(t.topic);
      w.compactArray(t.partitions, (p) => w.int32(p));
      w.noTaggedFields();
    });
    w.noTaggedFields();
  });
  return w.noTaggedFields().build();
}

/** Decodes what kafkajs's connection hands over after the correlation id: header tagged fields, then the body of `version`. */
export function decodeDescribeShareGroupOffsetsResponse(payload: Buffer, version: number): DescribeShareGroupOffsetsResponse {
  const r = new CompactReader(payload, `DescribeShareGroupOffsets v${version} response`);
  r.skipTaggedFields();
  const throttleTimeMs = r.int32();
  const groups = r.compactArray((): DescribedShareGroupOffsets => {
    const groupId = r.compactString() ?? '';
    const topics = r.compactArray(() => {
      const topic = r.compactString() ?? '';
      const topicId = r.uuid();
      const partitions = r.compactArray((): DescribedSharePartition => {
        const partition = r.int32();
        const startOffset = r.int64();
        const leaderEpoch = r.int32();
        const lag = version >= 1 ? r.int64() : undefined;
        const errorCode = r.int16();
        const errorMessage = r.compactString();
        r.skipTaggedFields();
        return { partition, startOffset, leaderEpoch, ...(lag === undefined ? {} : { lag }), errorCode, errorMessage };
      });
      r.skipTaggedFields();
      return { topic, topicId, partitions };
    });
    const errorCode = r.int16();
    const errorMessage = r.compactString();
    r.skipTaggedFields();
    return { groupId, topics, errorCode, errorMessage };
  });
  r.skipTaggedFields();
  return { throttleTimeMs, groups };
}

/** The AlterShareGroupOffsets v0 request body. */
export function encodeAlterShareGroupOffsetsV0(groupId: string, topics: readonly ShareGroupStartOffsets[]): Buffer {
  const w = new CompactWriter().compactString(groupId);
  w.compactArray(topics, (t) => {
    w.compactString(t.topic);
    w.compactArray(t.partitions, (p) => {
      w.int32(p.partition).int64(p.startOffset).noTaggedFields();
    });
    w.noTaggedFields();
  });
  return w.noTaggedFields().build();
}

export function decodeAlterShareGroupOffsetsV0(payload: Buffer): AlterShareGroupOffsetsResponse {
  const r = new CompactReader(payload, 'AlterShareGroupOffsets v0 response');
  r.skipTaggedFields();
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactString();
  const topics = r.compactArray(() => {
    const topic = r.compactString() ?? '';
    const topicId = r.uuid();
    const partitions = r.compactArray(() => {
      const partition = { partition: r.int32(), errorCode: r.int16(), errorMessage: r.compactString() };
      r.skipTaggedFields();
      return partition;
    });
    r.skipTaggedFields();
    return { topic, topicId, partitions };
  });
  r.skipTaggedFields();
  return { throttleTimeMs, errorCode, errorMessage, topics };
}

/** The ShareGroupDescribe v1 request body. */
export function encodeShareGroupDescribeV1(groupIds: readonly string[], includeAuthorizedOperations = false): Buffer {
  const w = new CompactWriter();
  w.compactArray(groupIds, (g) => w.compactString(g));
  return w
    .int8(includeAuthorizedOperations ? 1 : 0)
    .noTaggedFields()
    .build();
}

export function decodeShareGroupDescribeV1(payload: Buffer): ShareGroupDescribeResponse {
  const r = new CompactReader(payload, 'ShareGroupDescribe v1 response');
  r.skipTaggedFields();
  const throttleTimeMs = r.int32();
  const groups = r.compactArray((): DescribedShareGroup => {
    const errorCode = r.int16();
    const errorMessage = r.compactString();
    const groupId = r.compactString() ?? '';
    const groupState = r.compactString() ?? '';
    const groupEpoch = r.int32();
    const assignmentEpoch = r.int32();
    const assignorName = r.compactString() ?? '';
    const members = r.compactArray((): DescribedShareGroupMember => {
      const memberId = r.compactString() ?? '';
      const rackId = r.compactString();
      const memberEpoch = r.int32();
      const clientId = r.compactString() ?? '';
      const clientHost = r.compactString() ?? '';
      const subscribedTopics = r.compactArray(() => r.compactString() ?? '');
      const assignment = r.compactArray(() => {
        const tp = { topicId: r.uuid(), topic: r.compactString() ?? '', partitions: r.compactArray(() => r.int32()) };
        r.skipTaggedFields();
        return tp;
      });
      r.skipTaggedFields(); // the assignment's
      r.skipTaggedFields(); // the member's
      return { memberId, rackId, memberEpoch, clientId, clientHost, subscribedTopics, assignment };
    });
    const authorizedOperations = r.int32();
    r.skipTaggedFields();
    return { errorCode, errorMessage, groupId, groupState, groupEpoch, assignmentEpoch, assignorName, members, authorizedOperations };
  });
  r.skipTaggedFields();
  return { throttleTimeMs, groups };
}

export function describeShareGroupOffsetsRequest(groups: readonly ShareGroupOffsetsQuery[], version: number) {
  return flexibleRequest(
    { apiKey: DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY, apiVersion: version, apiName: 'DescribeShareGroupOffsets' },
    () => ({ buffer: encodeDescribeShareGroupOffsetsRequest(groups) }),
    (payload) => decodeDescribeShareGroupOffsetsResponse(payload, version),
  );
}

export function alterShareGroupOffsetsRequest(groupId: string, topics: readonly ShareGroupStartOffsets[]) {
  return flexibleRequest(
    { apiKey: ALTER_SHARE_GROUP_OFFSETS_API_KEY, apiVersion: ALTER_SHARE_GROUP_OFFSETS_V0, apiName: 'AlterShareGroupOffsets' },
    () => ({ buffer: encodeAlterShareGroupOffsetsV0(groupId, topics) }),
    decodeAlterShareGroupOffsetsV0,
  );
}

export function shareGroupDescribeRequest(groupIds: readonly string[]) {
  return flexibleRequest(
    { apiKey: SHARE_GROUP_DESCRIBE_API_KEY, apiVersion: SHARE_GROUP_DESCRIBE_V1, apiName: 'ShareGroupDescribe' },
    () => ({ buffer: encodeShareGroupDescribeV1(groupIds) }),
    decodeShareGroupDescribeV1,
  );
}
