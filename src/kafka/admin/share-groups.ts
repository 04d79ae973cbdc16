/**
 * Share groups (KIP-932) in the port's terms: their state, and their share-partition start
 * offsets read and set, with the requests of ../wire/share-group-offsets.ts sent to each group's
 * coordinator (a share group's coordinator is found as a consumer group's is). kafkajs knows none
 * of these APIs; a cluster that does not list them (before Kafka 4.2, or with share groups off)
 * is reported as such, not retried.
 */
import { GroupActiveError, type GroupState, type ShareGroupDescription, type ShareGroupStartOffset } from '../../core/ports/cluster-admin';
import { KafkaTransportError } from '../../core/errors';
import type { RawBroker, RawCluster } from '../wire/raw-cluster';
import { kafkajsProtocolErrors } from '../wire/kafkajs-internals';
import {
  ALTER_SHARE_GROUP_OFFSETS_API_KEY,
  ALTER_SHARE_GROUP_OFFSETS_V0,
  DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY,
  DESCRIBE_SHARE_GROUP_OFFSETS_V0,
  DESCRIBE_SHARE_GROUP_OFFSETS_V1,
  SHARE_GROUP_DESCRIBE_API_KEY,
  SHARE_GROUP_DESCRIBE_V1,
  alterShareGroupOffsetsRequest,
  describeShareGroupOffsetsRequest,
  shareGroupDescribeRequest,
} from '../wire/share-group-offsets';

const GROUP_ID_NOT_FOUND = 69;
const NON_EMPTY_GROUP = 68;

/** Kafka's share group states (`Empty`, `Stable`, `Dead`) in the port's words. */
const SHARE_GROUP_STATES: Record<string, GroupState> = { empty: 'empty', stable: 'stable', dead: 'dead' };

/** The highest of `versions` the broker takes of `apiKey`; errors when it takes none. */
function supportedVersion(broker: RawBroker, cluster: string, apiKey: number, versions: readonly number[], api: string): number {
  const range = broker.versions?.[apiKey];
  const version = range === undefined ? undefined : [...versions].reverse().find((v) => v >= range.minVersion && v <= range.maxVersion);
  if (version === undefined) {
    throw new KafkaTransportError(
      cluster,
      `the cluster does not support share groups (${api}; a Kafka cluster has them with the share.version feature finalized at 1 or more)`,
      false,
    );
  }
  return version;
}

/** kafkajs's error for a Kafka error code (its `type`, `retriable`), with the broker's message when it gave one. */
function brokerError(code: number, message: string | null, context: string): Error {
  const error = kafkajsProtocolErrors().createErrorFromCode(code);
  error.message = `${context}: ${message ?? error.message}`;
  return error;
}

/**
 * The share groups' states, with one ShareGroupDescribe per coordinator (the groups looked up
 * one FindCoordinator each, as Kafka's admin client does): a group the coordinator does not know
 * is `dead`. Rejects on the first group the broker answers with another error.
 */
export async function describeShareGroups(cluster: RawCluster, name: string, groupIds: readonly string[]): Promise<Map<string, ShareGroupDescription>> {
  const batches: { readonly broker: RawBroker; readonly groupIds: string[] }[] = [];
  for (const groupId of new Set(groupIds)) {
    const broker = await cluster.coordinator(groupId, 'group');
    // A broker not known by its id stands alone: two of them may be different brokers.
    const batch = broker.nodeId === null ? undefined : batches.find((b) => b.broker.nodeId === broker.nodeId);
    if (batch === undefined) batches.push({ broker, groupIds: [groupId] });
    else batch.groupIds.push(groupId);
  }
  const described = new Map<string, ShareGroupDescription>();
  for (const { broker, groupIds: ids } of batches) {
    supportedVersion(broker, name, SHARE_GROUP_DESCRIBE_API_KEY, [SHARE_GROUP_DESCRIBE_V1], 'ShareGroupDescribe');
    const response = await broker.send(shareGroupDescribeRequest(ids));
    const answered = new Map(response.groups.map((g) => [g.groupId, g]));
    for (const groupId of ids) {
      const group = answered.get(groupId);
      if (group === undefined || group.errorCode === GROUP_ID_NOT_FOUND) {
        described.set(groupId, { state: 'dead', members: 0 });
        continue;
      }
      if (group.errorCode !== 0) throw brokerError(group.errorCode, group.errorMessage, `share group "${groupId}"`);
      described.set(groupId, { state: SHARE_GROUP_STATES[group.groupState.toLowerCase()] ?? 'unknown', members: group.members.length });
    }
  }
  return described;
}

export async function fetchShareGroupOffsets(cluster: RawCluster, name: string, groupId: string): Promise<ShareGroupStartOffset[]> {
  const broker = await cluster.coordinator(groupId, 'group');
  const version = supportedVersion(
    broker,
    name,
    DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY,
    [DESCRIBE_SHARE_GROUP_OFFSETS_V0, DESCRIBE_SHARE_GROUP_OFFSETS_V1],
    'DescribeShareGroupOffsets',
  );
  const response = await broker.send(describeShareGroupOffsetsRequest([{ groupId, topics: null }], version));
  const group = response.groups.find((g) => g.groupId === groupId);
  if (group === undefined || group.errorCode === GROUP_ID_NOT_FOUND) return [];
  if (group.errorCode !== 0) throw brokerError(group.errorCode, group.errorMessage, `share group "${groupId}"`);
  const offsets: ShareGroupStartOffset[] = [];
  for (const t of group.topics) {
    for (const p of t.partitions) {
      if (p.errorCode !== 0) throw brokerError(p.errorCode, p.errorMessage, `share group "${groupId}" on ${t.topic}-${p.partition}`);
      // -1: no start offset there yet (a partition it subscribed to but never read).
      if (p.startOffset >= 0) offsets.push({ topic: t.topic, partition: p.partition, startOffset: p.startOffset });
    }
  }
  return offsets.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

export async function alterShareGroupOffsets(cluster: RawCluster, name: string, groupId: string, offsets: readonly ShareGroupStartOffset[]): Promise<void> {
  if (offsets.length === 0) return;
  const byTopic = new Map<string, { partition: number; startOffset: number }[]>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push({ partition: o.partition, startOffset: o.startOffset });
    byTopic.set(o.topic, list);
  }
  const broker = await cluster.coordinator(groupId, 'group');
  supportedVersion(broker, name, ALTER_SHARE_GROUP_OFFSETS_API_KEY, [ALTER_SHARE_GROUP_OFFSETS_V0], 'AlterShareGroupOffsets');
  const response = await broker.send(
    alterShareGroupOffsetsRequest(
      groupId,
      [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a.partition - b.partition) })),
    ),
  );
  if (response.errorCode === NON_EMPTY_GROUP) {
    throw new GroupActiveError(name, groupId, { cause: brokerError(response.errorCode, response.errorMessage, `share group "${groupId}"`) }, 'share group');
  }
  if (response.errorCode !== 0) throw brokerError(response.errorCode, response.errorMessage, `share group "${groupId}"`);
  const refused = response.topics.flatMap((t) => t.partitions.filter((p) => p.errorCode !== 0).map((p) => ({ ...p, topic: t.topic })));
  if (refused.length === 0) return;
  const first = refused[0]!;
  const partitions = refused.map((p) => `${p.topic}-${p.partition}`).join(', ');
  throw brokerError(first.errorCode, first.errorMessage, `share group "${groupId}": the start offsets of ${partitions} were refused (the others were set)`);
}
