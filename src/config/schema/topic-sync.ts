/** `flows[].topic_sync`: creating remote topics and keeping their partitions, configs and ACLs in step with the source. */
import { z } from '#zod';
import { DEFAULT_CONFIG_PROPERTIES_EXCLUDE } from '../../policy';
import { regexList } from './fields';

/** MM2 `config.properties.exclude` default (DefaultConfigPropertyFilter): never synced. */
export const defaultConfigsExclude: readonly string[] = DEFAULT_CONFIG_PROPERTIES_EXCLUDE;

const topicAclsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Copy the source's topic ACLs of replicated topics to their remote topics: never `ALLOW WRITE`, `ALLOW ALL` as `ALLOW READ`, never deleting a target ACL. A cluster without an authorizer turns it off for the flow (said once). MM2: `sync.topic.acls.enabled` (true).",
      ),
    interval_ms: z
      .int()
      .min(1000)
      .default(60000)
      .describe(
        'How often topic ACLs are synced, ms; the first time at start. Each pass reads the ACLs of both clusters once and creates only the missing ones. MM2: `sync.topic.acls.interval.seconds` (600 s, so an ACL granted on the source reached the target ten minutes later).',
      ),
    prefixed: z
      .boolean()
      .default(true)
      .describe(
        'Copy prefixed topic ACLs too, as prefixed ACLs on the remote name of the prefix (`orders.` → `primary.orders.`), when a replicated topic starts with the prefix. MM2 copies literal ACLs only (an mm2.properties file gets false).',
      ),
  })
  .describe('Topic ACL sync (MM2: `sync.topic.acls.*`).');

export const topicSyncSchema = z
  .strictObject({
    refresh_enabled: z
      .boolean()
      .default(true)
      .describe(
        'Look for new topics and partitions every `refresh_interval_ms`; false replicates the topics (and partitions) found at start, and no later ones, as MirrorMaker 1 did. MM2: `refresh.topics.enabled` (true).',
      ),
    refresh_interval_ms: z
      .int()
      .min(1000)
      .default(30000)
      .describe(
        'How often new topics and partitions are looked for, ms. MM2: `refresh.topics.interval.seconds` (600 s, which made new topics appear far too late).',
      ),
    replication_factor: z
      .int()
      .max(32767)
      .refine((value) => value === -1 || value >= 1, "must be -1 (the target broker's default) or at least 1")
      .default(-1)
      .describe(
        "Replication factor of remote topics created on the target; -1 = the target broker's `default.replication.factor`. MM2: `replication.factor` (2).",
      ),
    sync_configs: z
      .boolean()
      .default(true)
      .describe('Copy topic configs to remote topics, when creating them and then every `configs_interval_ms`. MM2: `sync.topic.configs.enabled` (true).'),
    configs_interval_ms: z
      .int()
      .min(1000)
      .default(60000)
      .describe(
        'How often the configs of remote topics are brought in line with their source topics, ms. MM2: `sync.topic.configs.interval.seconds` (600 s, so a retention change took up to 10 minutes to arrive).',
      ),
    use_defaults_from: z
      .enum(['source', 'target'])
      .default('target')
      .describe(
        "For a config at its default on the source: `target` leaves the remote topic at the target cluster's default (removing an override there), `source` sets the source's default value on it. MM2: `use.defaults.from` (target).",
      ),
    configs_exclude: regexList('Topic config names never copied (regexes, full match). MM2: `config.properties.exclude`.').default(() => [
      ...defaultConfigsExclude,
    ]),
    acls: topicAclsSchema.prefault({}),
  })
  .describe('Creating remote topics and keeping their partitions and configs in step with the source.');
