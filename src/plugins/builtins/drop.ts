/**
 * `drop`: drops the records it is applied to (Kafka Connect's Filter). Without `when` that is
 * every record, as Filter without a predicate; with `when` (and `negate`), which every step
 * takes (src/plugins/step-condition.ts), the records the condition selects, as Filter with a
 * predicate.
 */
import { defineTransform, z } from '../api';

export const drop = defineTransform({
  name: 'drop',
  summary:
    'Drops the records it is applied to: with `when`, those for which every condition holds (or, with negate: true, those for which one does not); without `when`, every record. Dropped records count as replicated.',
  configSchema: z.strictObject({}),
  create() {
    return { apply: () => undefined };
  },
});
