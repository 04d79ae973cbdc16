/**
 * `rename_topic`: rewrites the target topic (Kafka Connect's RegexRouter).
 *
 * As in RegexRouter, the regex must match the whole target topic name, and the replacement
 * uses Java's syntax (`$1`, `${name}`, `\$`). Like RegexRouter's `Matcher.replaceFirst`, the
 * replacement then takes the place of the first match found from the start, which for a regex
 * such as `a|ab` or `(.*?)` is shorter than the name: the rest of the name is kept after it. The topic it sees is the target topic at this
 * step, i.e. after the replication policy (`primary.orders`), as in MM2.
 */
import { defineTransform, PluginError, z } from '../api';
import { firstMatchRegex, fullMatchRegex, regexField, regexProblem } from '../full-match-regex';
import { JavaReplacement, regexGroups } from '../java-replacement';
import { LEGAL_TOPIC, legalTopicName } from './topic-name';

/** Bounds the per-topic cache; a flow with more distinct topics than this just recomputes. */
const CACHE_LIMIT = 10_000;

export const renameTopic = defineTransform({
  name: 'rename_topic',
  summary: 'Renames the target topic when a regex matches the whole name; other records pass unchanged.',
  configSchema: z
    .strictObject({
      regex: regexField('Java regex (as Connect reads it) that must match the whole target topic name, e.g. `primary\\.(.*)`.'),
      replacement: z.string().describe('New topic name; `$1` or `${name}` insert a group of the match, `\\$` is a literal dollar (Java replacement syntax).'),
    })
    .superRefine((config, ctx) => {
      if (regexProblem(config.regex) !== undefined) return; // already reported on `regex`
      const groups = regexGroups(fullMatchRegex(config.regex));
      try {
        JavaReplacement.parse(config.replacement, groups.count, groups.names);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `Invalid replacement: ${(error as Error).message}`, path: ['replacement'] });
      }
    }),
  create(config) {
    const regex = fullMatchRegex(config.regex);
    const first = firstMatchRegex(config.regex);
    const groups = regexGroups(regex);
    const replacement = JavaReplacement.parse(config.replacement, groups.count, groups.names);
    // A topic's new name depends only on the topic, and a flow sees few topics.
    const renamed = new Map<string, string>();

    const rename = (topic: string): string => {
      if (!regex.test(topic)) return topic;
      first.lastIndex = 0;
      const match = first.exec(topic)!;
      const target = replacement.expand(match) + topic.slice(match[0].length);
      if (!legalTopicName(target)) {
        throw new PluginError('rename_topic', `renaming topic "${topic}" gives "${target}", which is not a legal Kafka topic name (${LEGAL_TOPIC}).`);
      }
      return target;
    };

    return {
      apply(record) {
        let target = renamed.get(record.topic);
        if (target === undefined) {
          target = rename(record.topic);
          if (renamed.size >= CACHE_LIMIT) renamed.clear();
          renamed.set(record.topic, target);
        }
        return target === record.topic ? record : { ...record, topic: target };
      },
    };
  },
});
