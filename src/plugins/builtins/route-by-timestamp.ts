/**
 * `route_by_timestamp`: renames the target topic from the record's timestamp (Kafka Connect's
 * TimestampRouter).
 *
 * As in TimestampRouter, every `${topic}` in `topic_format` becomes the target topic at this step
 * (after the replication policy and any earlier rename, as in MM2), then every `${timestamp}` the
 * record's timestamp in `timestamp_format`, a Java SimpleDateFormat pattern read in UTC. A record
 * without a timestamp carries Kafka's -1, formatted as the millisecond before the epoch, as
 * Connect does for MM2's records.
 */
import { defineTransform, PluginError, z } from '../api';
import { JavaDateFormat } from '../java-date-format';
import { LEGAL_TOPIC, legalTopicName } from './topic-name';

export const routeByTimestamp = defineTransform({
  name: 'route_by_timestamp',
  summary: "Renames the target topic from a format with the topic and the record's timestamp, e.g. `${topic}-${timestamp}` gives `primary.orders-20240307`.",
  configSchema: z.strictObject({
    topic_format: z
      .string()
      .min(1)
      .default('${topic}-${timestamp}')
      .describe("New topic name: every `${topic}` is replaced by the target topic, every `${timestamp}` by the record's timestamp in timestamp_format."),
    timestamp_format: z
      .string()
      .default('yyyyMMdd')
      .superRefine((pattern, ctx) => {
        try {
          JavaDateFormat.parse(pattern);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `Invalid timestamp format: ${(error as Error).message}` });
        }
      })
      .describe("Java SimpleDateFormat pattern, in UTC: y (yy: two digits), M (MMM: Jan, MMMM: January), d, H, m, s, S (milliseconds), 'quoted text'."),
  }),
  create(config) {
    const format = JavaDateFormat.parse(config.timestamp_format);
    const topicFormat = config.topic_format;
    return {
      apply(record) {
        const target = topicFormat.replaceAll('${topic}', record.topic).replaceAll('${timestamp}', format.format(record.timestamp));
        if (!legalTopicName(target)) {
          throw new PluginError('route_by_timestamp', `topic "${record.topic}" becomes "${target}", which is not a legal Kafka topic name (${LEGAL_TOPIC}).`);
        }
        return target === record.topic ? record : { ...record, topic: target };
      },
    };
  },
});
