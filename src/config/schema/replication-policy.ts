/** `flows[].replication_policy`: how remote topics are named. */
import { z } from '#zod';

const defaultPolicySchema = z.strictObject({
  type: z.literal('default').describe('Remote topics are `<source><separator><topic>`. MM2: `DefaultReplicationPolicy`.'),
  separator: z.string().min(1).default('.').describe('Between the source alias and the topic name. MM2: `replication.policy.separator` (".").'),
  internal_topic_separator_enabled: z
    .boolean()
    .default(true)
    .describe(
      'Use `separator` in internal topic names too (`mm2-offset-syncs<sep><alias><sep>internal`); false keeps ".". MM2: `replication.policy.internal.topic.separator.enabled` (true).',
    ),
});

const identityPolicySchema = z.strictObject({
  type: z
    .literal('identity')
    .describe(
      'Remote topics keep their names; only heartbeats are prefixed. Cannot prevent replication loops for normal topics. MM2: `IdentityReplicationPolicy`.',
    ),
  separator: z
    .string()
    .min(1)
    .default('.')
    .describe('Used for the prefixed heartbeats topic (`<source><separator>heartbeats`), as MM2 does. MM2: `replication.policy.separator` (".").'),
});

export const replicationPolicySchema = z
  .discriminatedUnion('type', [defaultPolicySchema, identityPolicySchema])
  .describe('How remote topics are named. MM2: `replication.policy.class`.');
