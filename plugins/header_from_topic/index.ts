/**
 * header_from_topic: adds a header whose value is taken from the record's source topic name by a
 * Java regex and a Java replacement — e.g. the region of `eu.orders` as `region: eu` — so
 * consumers of a merged or renamed topic still know where a record came from.
 *
 * The regex is read as Kafka Connect and the flows' `topics:` read theirs (through the plugin
 * API's Java regex support): `(?i)`, `\Q…\E` and whole-name matching behave as in an MM2 setup.
 */
import { defineTransform, fullMatchRegex, JavaReplacement, regexField, regexProblem, z, type RecordHeader, type ContractSamples } from '../../src/plugins/api';

/** A flow sees few topics; past this many, the cache starts over rather than grow. */
const CACHE_LIMIT = 10_000;

const configSchema = z
  .strictObject({
    regex: regexField('Java regex that must match the whole source topic name, e.g. `(?<region>[a-z]+)\\.orders`.'),
    header: z.string().min(1).describe('Key of the header added to records of matching topics.'),
    value: z.string().describe('Header value, in Java replacement syntax: `$1` or `${name}` insert a group of the match, `\\$` is a literal dollar.'),
  })
  .superRefine((config, ctx) => {
    if (regexProblem(config.regex) !== undefined) return; // reported on `regex` already
    try {
      JavaReplacement.forRegex(fullMatchRegex(config.regex), config.value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `Invalid value: ${(error as Error).message}`, path: ['value'] });
    }
  });

/** Samples of the plugin contract (`mirrorflow plugins check`). */
export const contract: ContractSamples = {
  options: { regex: '(.*)', header: 'origin', value: '$1' },
  invalid: [
    { options: { regex: '(', header: 'origin', value: 'x' }, option: 'regex' },
    { options: { regex: '(.*)', header: '', value: 'x' }, option: 'header' },
  ],
};

export default defineTransform({
  name: 'header_from_topic',
  summary: 'Adds a header taken from the source topic name by a Java regex and replacement; records of other topics pass unchanged.',
  configSchema,
  create(config, context) {
    const regex = fullMatchRegex(config.regex);
    const replacement = JavaReplacement.forRegex(regex, config.value);
    // Per source topic: the header to add, or null when the topic does not match.
    const headers = new Map<string, RecordHeader | null>();
    const unmatched = context.metrics.counter('records_unmatched', 'Records whose source topic the regex did not match, passed unchanged.');

    const headerFor = (topic: string): RecordHeader | null => {
      let header = headers.get(topic);
      if (header === undefined) {
        const match = regex.exec(topic);
        header = match === null ? null : { key: config.header, value: Buffer.from(replacement.expand(match), 'utf8') };
        if (headers.size >= CACHE_LIMIT) headers.clear();
        headers.set(topic, header);
      }
      return header;
    };

    return {
      apply(record) {
        const header = headerFor(record.source.topic);
        if (header === null) {
          unmatched.inc();
          return record;
        }
        return { ...record, headers: [...record.headers, header] };
      },
    };
  },
});
