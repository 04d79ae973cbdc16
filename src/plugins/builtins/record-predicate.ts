/**
 * Record conditions shared by built-ins (Kafka Connect's predicates): `topic_matches`
 * (TopicNameMatches), `has_header` (HasHeaderKey) and `is_tombstone` (RecordIsTombstone).
 *
 * A predicate holds when every condition given holds; at least one must be given, so an empty
 * `when:` is an error instead of a predicate that is always true. The topic tested is the
 * record's target topic as it stands at this step: after the replication policy and any earlier
 * rename, as in MM2, where SMTs see the remote topic name.
 */
import { z, type MirrorRecord } from '../api';
import { fullMatchRegex, regexField } from '../full-match-regex';

export const recordPredicateSchema = z
  .strictObject({
    topic_matches: regexField('Holds when this Java regex (as Connect reads it) matches the whole target topic name (e.g. `primary\\.audit-.*`).').optional(),
    has_header: z.string().min(1).optional().describe('Holds when the record has at least one header with this key.'),
    is_tombstone: z
      .boolean()
      .optional()
      .describe('true: holds when the value is null (a tombstone); false: holds when it is not. An empty value is not a tombstone.'),
  })
  .refine((p) => p.topic_matches !== undefined || p.has_header !== undefined || p.is_tombstone !== undefined, {
    message: 'Give at least one condition: topic_matches, has_header or is_tombstone',
  })
  .describe('Conditions on a record; all given conditions must hold.');

export type RecordPredicateConfig = z.output<typeof recordPredicateSchema>;

export type RecordPredicate = (record: MirrorRecord) => boolean;

/** Builds the test once per step; the returned function allocates nothing per record. */
export function compileRecordPredicate(config: RecordPredicateConfig): RecordPredicate {
  const holds = compileCondition(config);
  return (record) => holds(record, () => record.value === null);
}

/** The part of a record a condition reads; `tombstone` is asked only when `is_tombstone` is given. */
export type Condition = (record: { readonly topic: string; readonly headers: MirrorRecord['headers'] }, tombstone: () => boolean) => boolean;

/** As compileRecordPredicate, for a record whose null value is told apart by the caller (a converted value). */
export function compileCondition(config: RecordPredicateConfig): Condition {
  const topic = config.topic_matches === undefined ? undefined : fullMatchRegex(config.topic_matches);
  const header = config.has_header;
  const tombstone = config.is_tombstone;
  return (record, isTombstone) =>
    (topic === undefined || topic.test(record.topic)) &&
    (header === undefined || hasHeader(record, header)) &&
    (tombstone === undefined || isTombstone() === tombstone);
}

export function hasHeader(record: { readonly headers: MirrorRecord['headers'] }, key: string): boolean {
  for (const h of record.headers) if (h.key === key) return true;
  return false;
}
