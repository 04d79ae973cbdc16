/**
 * The provenance header a flow with `provenance.enabled` adds to every record it writes: where the
 * record was first produced and every cluster it has been written to since. It is mirrorflow's
 * own format (docs/active-active.md); Confluent Replicator's `provenance.header.enable` stands for
 * the same idea, with a header that holds less (the origin cluster's id, topic and a timestamp,
 * so it stops a record only on its way back to its origin).
 *
 *   key    mirrorflow.provenance
 *   value  1|<cluster>>…>[cluster]|<origin topic>|<origin partition>|<origin offset>     (ASCII)
 *
 * The clusters are aliases in the order the record reached them: the first is its origin (where
 * a producer wrote it), the last the cluster that holds this copy. Partition and offset are
 * decimal, the origin topic is the topic's name on the origin cluster. `1` is the version; a
 * reader that meets another treats the header as not its own. Kafka topic names are
 * `[A-Za-z0-9._-]` and cluster aliases `[A-Za-z0-9_-]`, so neither `|` nor `>` occurs in a field.
 * Example, a record produced at offset 1234 of `orders` partition 3 on `west`, copied to `east`
 * and from there to `south`:
 *
 *   1|west>east>south|orders|3|1234        (31 bytes; the key is 21)
 *
 * The header is always the record's last: a flow removes the one it was given (the last header,
 * when it has this key and parses) and appends its own, so the producer's headers keep their
 * order and duplicates, and a producer's header of the same name elsewhere is left alone.
 */
import type { RecordHeader } from '../core/record';

export const PROVENANCE_HEADER = 'mirrorflow.provenance';
export const PROVENANCE_VERSION = 1;

export interface Provenance {
  /** Origin first, the cluster holding this copy last; never empty. */
  readonly clusters: readonly string[];
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/** What comes before the offset in a header value: `1|a>b|topic|partition|`. */
export function provenancePrefix(clusters: readonly string[], topic: string, partition: number): string {
  return `${PROVENANCE_VERSION}|${clusters.join('>')}|${topic}|${partition}|`;
}

/** The header value for `offset` after a prefix from `provenancePrefix`. */
export function provenanceValue(prefix: string, offset: number): Buffer {
  return Buffer.from(prefix + offset, 'latin1');
}

export function encodeProvenance(p: Provenance): Buffer {
  return provenanceValue(provenancePrefix(p.clusters, p.topic, p.partition), p.offset);
}

/** The prefix and the offset of a header value; undefined when it is not a value of this format. */
export function splitProvenance(value: Buffer): { readonly prefix: string; readonly offset: number } | undefined {
  // The version and its separator: cheap to test before the value becomes a string.
  if (value.length < 9 || value[0] !== 0x31 || value[1] !== 0x7c) return undefined;
  const text = value.toString('latin1');
  const cut = text.lastIndexOf('|');
  const digits = text.slice(cut + 1);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(digits)) return undefined;
  const offset = Number(digits);
  return Number.isSafeInteger(offset) ? { prefix: text.slice(0, cut + 1), offset } : undefined;
}

const ALIAS = /^[A-Za-z0-9_-]+$/;
const TOPIC = /^[A-Za-z0-9._-]+$/;
const PARTITION = /^(0|[1-9][0-9]{0,9})$/;

/** The clusters, topic and partition of a prefix from `splitProvenance`; undefined when malformed. */
export function parseProvenancePrefix(prefix: string): Omit<Provenance, 'offset'> | undefined {
  const fields = prefix.split('|');
  // `1`, clusters, topic, partition and the empty string after the last `|`.
  if (fields.length !== 5 || fields[0] !== String(PROVENANCE_VERSION) || fields[4] !== '') return undefined;
  const clusters = fields[1]!.split('>');
  const [topic, partition] = [fields[2]!, fields[3]!];
  if (!clusters.every((c) => ALIAS.test(c)) || !TOPIC.test(topic) || !PARTITION.test(partition)) return undefined;
  return { clusters, topic, partition: Number(partition) };
}

export function decodeProvenance(value: Buffer): Provenance | undefined {
  const split = splitProvenance(value);
  const parsed = split === undefined ? undefined : parseProvenancePrefix(split.prefix);
  return split === undefined || parsed === undefined ? undefined : { ...parsed, offset: split.offset };
}

/** The record's provenance header, when its last header is one; otherwise undefined (the record was produced where it is). */
export function lastProvenanceHeader(headers: readonly RecordHeader[]): RecordHeader | undefined {
  const last = headers[headers.length - 1];
  return last !== undefined && last.key === PROVENANCE_HEADER && last.value !== null ? last : undefined;
}
