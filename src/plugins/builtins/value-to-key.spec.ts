import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * ValueToKey schemaless and with a schema: the key made of value fields, a field the schema lacks refused.
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
    'v2k env',
    [['value_to_key', { fields: ['id', 'ts'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"int64","optional":true,"field":"ts"}],"optional":false},"payload":{"id":7,"ts":1700000000123}}',
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'v2k env',
    [['value_to_key', { fields: ['id', 'ts'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"int64","optional":true,"field":"ts"}],"optional":false},"payload":{"id":8,"ts":-1500}}',
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1500,"when":"2023-13-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'v2k missing',
    [['value_to_key', { fields: ['id', 'nope'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    { error: 'Field does not exist: nope' },
  ],
  [
    'v2k plain',
    [['value_to_key', { fields: ['when', 'id'] }]],
    'json',
    null,
    '{"id":7,"cust":{"name":"Zoë","addr":{"city":"Oslo","zip":null}},"xs":[1,{"a":1}],"ts":1700000000123,"when":"2023-11-14 22:13:20","z":1.5}',
    {
      key: '{"when":"2023-11-14 22:13:20","id":7}',
      value: '{"z":1.5,"id":7,"xs":[1,{"a":1}],"cust":{"name":"Zoë","addr":{"zip":null,"city":"Oslo"}},"when":"2023-11-14 22:13:20","ts":1700000000123}',
      headers: [],
    },
  ],
  [
    'v2k plain',
    [['value_to_key', { fields: ['when', 'id'] }]],
    'json',
    null,
    null,
    { error: 'Only Map objects supported in absence of schema for [copying fields from value to key], found: null' },
  ],
];

describe("value_to_key (Connect's ValueToKey)", () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([type]) => type === 'value_to_key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
