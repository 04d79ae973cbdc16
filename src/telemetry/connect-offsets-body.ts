import type { ConnectorClass } from './connect-api';

/**
 * The body of `PATCH /connectors/{name}/offsets` (KIP-875), Connect's ConnectorOffsets:
 * `{"offsets": [{"partition": {…}, "offset": {…} | null}, …]}`, checked as MM2's connectors
 * check it in their `alterOffsets` (MirrorUtils), with their messages. Connect answers those
 * checks' failures with 500 (an exception from the connector); here they are the 400 they are.
 */

/** One partition's new offset as the body gives it; a null offset removes the stored one. */
export interface OffsetChange {
  readonly partition: Readonly<Record<string, unknown>>;
  readonly offset: Readonly<Record<string, unknown>> | null;
}

/** A MirrorSourceConnector's change: a source topic-partition of a cluster, and its last replicated offset (null: none). */
export interface SourceOffsetChange {
  readonly cluster: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number | null;
}

/** Connect's answer to a body without offsets (ConnectorsResource.alterConnectorOffsets). */
export const NO_OFFSETS_MESSAGE = 'Partitions / offsets need to be provided for an alter offsets request';

/** The changes of a PATCH body; a string says what is wrong with it. */
export function parseOffsetsBody(body: string): OffsetChange[] | string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return `The request body is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  const offsets = isObject(value) ? value['offsets'] : undefined;
  if (offsets === undefined || offsets === null || (Array.isArray(offsets) && offsets.length === 0)) return NO_OFFSETS_MESSAGE;
  if (!Array.isArray(offsets)) return 'The request body must be {"offsets": [{"partition": {…}, "offset": {…}}, …]}: "offsets" is not a list.';
  const changes: OffsetChange[] = [];
  for (const [i, entry] of offsets.entries()) {
    const partition = isObject(entry) ? entry['partition'] : undefined;
    const offset = isObject(entry) ? entry['offset'] : undefined;
    if (!isObject(partition)) return 'Source partitions may not be null';
    if (offset !== null && offset !== undefined && !isObject(offset)) return `offsets[${i}].offset must be a JSON object such as {"offset": 42}, or null.`;
    changes.push({ partition, offset: offset ?? null });
  }
  return changes;
}

/**
 * MM2's checks of a connector's new offsets (MirrorSourceConnector, MirrorCheckpointConnector,
 * MirrorHeartbeatConnector `alterOffsets`); the first problem's message, or undefined.
 */
export function checkOffsets(type: ConnectorClass, changes: readonly OffsetChange[]): string | undefined {
  const keys: Record<ConnectorClass, { strings: readonly string[]; partition: boolean; onlyZero: boolean }> = {
    MirrorSourceConnector: { strings: ['cluster', 'topic'], partition: true, onlyZero: false },
    MirrorCheckpointConnector: { strings: ['group', 'topic'], partition: true, onlyZero: true },
    MirrorHeartbeatConnector: { strings: ['sourceClusterAlias', 'targetClusterAlias'], partition: false, onlyZero: true },
  };
  const rules = keys[type];
  for (const { partition, offset } of changes) {
    // A tombstone is allowed for anything, as MM2 allows it: garbage must be removable.
    if (offset === null) continue;
    for (const key of rules.strings) {
      if (!(key in partition)) return `Source partition ${javaMap(partition)} is missing the '${key}' key, which is required`;
      if (typeof partition[key] !== 'string')
        return `Source partition ${javaMap(partition)} has an invalid value ${javaValue(partition[key])} for the '${key}' key, which must be a string`;
    }
    if (rules.partition) {
      if (!('partition' in partition)) return `Source partition ${javaMap(partition)} is missing the 'partition' key, which is required`;
      const p = partition['partition'];
      if (typeof p !== 'number' || !Number.isInteger(p) || p > 2 ** 31 - 1)
        return `Source partition ${javaMap(partition)} has an invalid value ${javaValue(p)} for the 'partition' key, which must be an integer`;
      if (p < 0) return `Source partition ${javaMap(partition)} has an invalid value ${p} for the 'partition' key, which cannot be negative`;
    }
    if (!('offset' in offset))
      return `Source offset ${javaMap(offset)} for source partition ${javaMap(partition)} is missing the 'offset' key, which is required`;
    const o = offset['offset'];
    if (typeof o !== 'number' || !Number.isSafeInteger(o))
      return `Source offset ${javaMap(offset)} for source partition ${javaMap(partition)} has an invalid value ${javaValue(o)} for the 'offset' key, which must be an integer`;
    if (rules.onlyZero && o !== 0)
      return `Source offset ${javaMap(offset)} for source partition ${javaMap(partition)} has an invalid value ${o} for the 'offset' key; the only accepted value is 0`;
    if (o < 0)
      return `Source offset ${javaMap(offset)} for source partition ${javaMap(partition)} has an invalid value ${o} for the 'offset' key, which cannot be negative`;
  }
  return undefined;
}

/** A MirrorSourceConnector's changes, once `checkOffsets` passed them (a tombstone's partition must still name one). */
export function sourceOffsetChanges(changes: readonly OffsetChange[]): SourceOffsetChange[] | string {
  const out: SourceOffsetChange[] = [];
  for (const { partition, offset } of changes) {
    const { cluster, topic, partition: p } = partition;
    if (typeof cluster !== 'string' || typeof topic !== 'string' || typeof p !== 'number' || !Number.isInteger(p) || p < 0)
      return `Source partition ${javaMap(partition)} does not name a source topic-partition ({"cluster": "<source alias>", "partition": 0, "topic": "<topic>"}), so no stored offset has it.`;
    out.push({ cluster, topic, partition: p, offset: offset === null ? null : (offset['offset'] as number) });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A map as Java prints it in MM2's messages: `{cluster=a, partition=0, topic=t1}`. */
function javaMap(map: Readonly<Record<string, unknown>>): string {
  return `{${Object.keys(map)
    .sort()
    .map((k) => `${k}=${javaValue(map[k])}`)
    .join(', ')}}`;
}

function javaValue(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? 'null' : JSON.stringify(value);
}
