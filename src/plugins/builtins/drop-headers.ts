/**
 * `drop_headers`: removes headers by key (Kafka Connect's DropHeaders).
 */
import { defineTransform, z } from '../api';

export const dropHeaders = defineTransform({
  name: 'drop_headers',
  summary: 'Removes every header whose key is in the list; the remaining headers keep their order.',
  configSchema: z.strictObject({
    headers: z
      .array(z.string().min(1))
      .min(1)
      .describe('Header keys to remove (exact, case-sensitive). Every header with one of these keys is removed, repeats included.'),
  }),
  create(config) {
    const drop = new Set(config.headers);
    return {
      apply(record) {
        // Most records carry none of the headers: hand them on without copying.
        let found = false;
        for (const h of record.headers) {
          if (drop.has(h.key)) {
            found = true;
            break;
          }
        }
        if (!found) return record;
        return { ...record, headers: record.headers.filter((h) => !drop.has(h.key)) };
      },
    };
  },
});
