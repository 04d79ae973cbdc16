/**
 * `drop`: drops the records a predicate selects (Kafka Connect's Filter with a predicate); without
 * `when`, every record, as Filter without a predicate.
 */
import { defineTransform, z } from '../api';
import { compileRecordPredicate, recordPredicateSchema } from './record-predicate';

export const drop = defineTransform({
  name: 'drop',
  summary:
    'Drops records for which every condition under `when` holds (or, with negate: true, keeps only those records); without `when`, drops every record. Dropped records count as replicated.',
  configSchema: z
    .strictObject({
      when: recordPredicateSchema.optional(),
      negate: z.boolean().default(false).describe('true drops the records that do NOT satisfy `when`, i.e. keeps only those that do (needs `when`).'),
    })
    .refine((config) => !config.negate || config.when !== undefined, {
      message: 'negate needs a condition under `when` to negate',
      path: ['negate'],
    }),
  create(config) {
    if (config.when === undefined) return { apply: () => undefined };
    const matches = compileRecordPredicate(config.when);
    const negate = config.negate;
    return {
      apply(record) {
        return matches(record) !== negate ? undefined : record;
      },
    };
  },
});
