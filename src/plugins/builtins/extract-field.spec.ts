import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * HoistField and ExtractField on data with a schema (json_envelope).
 * Every expected outcome is what Kafka 4.3.1's own classes (the SMT and JsonConverter, on JDK 17,
 * run by test/interop/java/ConnectTransformOracle.java) made of the same record.
 */
const VECTORS: readonly (readonly [
  string,
  readonly (readonly [string, Record<string, unknown>])[],
  'json' | 'json_envelope',
  string | null,
  string | null,
  ChainOutcome,
])[] = [
  [
    'hoist',
    [['hoist_field', { field: 'w' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","field":"w"}],"optional":false},"payload":{"w":{"id":1,"in":{"s":"x"}}}}',
      headers: [],
    },
  ],
  [
    'hoist',
    [['hoist_field', { field: 'w' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string","optional":true},"payload":null}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"field":"w"}],"optional":false},"payload":{"w":null}}',
      headers: [],
    },
  ],
  [
    'hoist',
    [['hoist_field', { field: 'w' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string"},"payload":"x"}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"w"}],"optional":false},"payload":{"w":"x"}}',
      headers: [],
    },
  ],
  [
    'extract',
    [['extract_field', { field: 'in' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"in":{"s":"x"}}}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true},"payload":{"s":"x"}}',
      headers: [],
    },
  ],
  [
    'extract',
    [['extract_field', { field: 'in' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1}}',
    { key: null, value: '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true},"payload":null}', headers: [] },
  ],
  [
    'extract',
    [['extract_field', { field: 'in' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string"},"payload":"x"}',
    { error: 'Only Struct objects supported for [field extraction], found: java.lang.String' },
  ],
  [
    'extract missing',
    [['extract_field', { field: 'nope' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1}}',
    { error: 'Unknown field: nope' },
  ],
];

describe('hoist_field and extract_field with a schema', () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([type]) => type === 'value_to_key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
