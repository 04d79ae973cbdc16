/**
 * The topic a flow's transforms send a topic's records to, as far as it depends on the topic
 * alone, so that topic sync creates (and grows) the remote topic under the name records are
 * written to, with the source topic's partitions and configs. MM2 does not: it creates the
 * policy's name and leaves a RegexRouter's target to the broker's auto-creation.
 *
 * `rename_topic` steps are applied in order (a name they cannot rename to is left as it was: the
 * records then fail on their own), those with a `when` of `topic_matches` alone only where it
 * holds (or, negated, does not); the header and drop built-ins keep the topic. Steps whose topic
 * depends on the record (`route_by_timestamp`, a rename on a header or tombstone condition) or
 * is unknown (plugins) end the walk: the name reached so far is the answer.
 */
import type { MirrorRecord } from '../core/record';
import { renameTopic } from './builtins/rename-topic';
import { noopTransformMetrics, type Transform } from './api';
import { silentLogger } from '../core/ports/logger';
import type { TransformStep } from './transform-chain';
import { conditional, splitStepCondition } from './step-condition';

const KEEP_TOPIC: ReadonlySet<string> = new Set(['insert_header', 'drop_headers', 'drop']);

/** For valid steps (see validateTransformSteps); a step whose options do not parse ends the walk. */
export function topicAfterTransforms(steps: readonly TransformStep[], flow: { readonly source: string; readonly target: string }): (topic: string) => string {
  const renames: Transform[] = [];
  for (const step of steps) {
    if (KEEP_TOPIC.has(step.type)) continue;
    if (step.type !== renameTopic.name) break;
    const split = splitStepCondition(step.options);
    const parsed = renameTopic.configSchema.safeParse(split.options);
    if (!parsed.success || !('condition' in split)) break;
    const when = split.condition.when;
    if (when !== undefined && (when.has_header !== undefined || when.is_tombstone !== undefined)) break;
    renames.push(conditional(renameTopic.create(parsed.data, { flow, logger: silentLogger, metrics: noopTransformMetrics }), split.condition));
  }
  if (renames.length === 0) return (topic) => topic;
  return (topic) => {
    let record: MirrorRecord = { source: { topic, partition: 0, offset: 0 }, topic, partition: 0, timestamp: 0, key: null, value: null, headers: [] };
    for (const rename of renames) {
      try {
        record = rename.apply(record) ?? record;
      } catch {
        return record.topic;
      }
    }
    return record.topic;
  };
}
