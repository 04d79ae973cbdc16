/**
 * fail_on_value (tests only): throws on records whose value, read as UTF-8, is one of `values`,
 * and passes every other record unchanged. Loaded with `--plugin-dir dist/test/plugins`.
 */
import { defineTransform, z } from '../../../src/plugins/api';

export default defineTransform({
  name: 'fail_on_value',
  summary: 'Throws on records whose value is one of `values` (tests only).',
  configSchema: z.strictObject({ values: z.array(z.string()).describe('Values to throw on.') }),
  create(config) {
    const bad = new Set(config.values);
    return {
      apply(record) {
        // A message that quotes the value, as JSON.parse's do: it must never reach a log.
        if (record.value !== null && bad.has(record.value.toString('utf8'))) throw new TypeError(`cannot handle ${record.value.toString('utf8')}`);
        return record;
      },
    };
  },
});
