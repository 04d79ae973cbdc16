import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * SetSchemaMetadata: name and version on a struct schema, a schemaless value refused, a tombstone passed.
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
    'ssm',
    [['set_schema_metadata', { name: 'com.y.V', version: 9 }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.y.V","version":9},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'ssm',
    [['set_schema_metadata', { name: 'com.y.V', version: 9 }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string","optional":true},"payload":null}',
    { error: 'Cannot list fields on non-struct type' },
  ],
  [
    'ssm',
    [['set_schema_metadata', { name: 'com.y.V', version: 9 }]],
    'json_envelope',
    null,
    '{"schema":null,"payload":{"a":1}}',
    { error: 'Schema required for [updating schema metadata]' },
  ],
  ['ssm', [['set_schema_metadata', { name: 'com.y.V', version: 9 }]], 'json_envelope', null, null, { key: null, value: null, headers: [] }],
  [
    'ssm v',
    [['set_schema_metadata', { version: 4 }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":4},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
];

describe("set_schema_metadata (Connect's SetSchemaMetadata)", () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([type]) => type === 'value_to_key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
