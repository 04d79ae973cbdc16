import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * Flatten schemaless and with a schema: nested maps and structs, defaults and optional parents, maps refused with a schema.
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
    'flatten env',
    [['flatten', {}]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    { error: 'Flatten transformation does not support MAP for record with schemas (for field m).' },
  ],
  [
    'flatten env',
    [['flatten', {}]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    { error: 'Flatten transformation does not support MAP for record with schemas (for field m).' },
  ],
  [
    'flatten env',
    [['flatten', {}]],
    'json_envelope',
    null,
    '{"schema":null,"payload":{"a":{"b":1}}}',
    { key: null, value: '{"schema":null,"payload":{"a.b":1}}', headers: [] },
  ],
  ['flatten env', [['flatten', {}]], 'json_envelope', null, null, { key: null, value: null, headers: [] }],
  [
    'flatten _',
    [['flatten', { delimiter: '_' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    { error: 'Flatten transformation does not support MAP for record with schemas (for field m).' },
  ],
  [
    'flatten plain',
    [['flatten', {}]],
    'json',
    null,
    '{"id":7,"cust":{"name":"Zoë","addr":{"city":"Oslo","zip":null}},"xs":[1,{"a":1}],"ts":1700000000123,"when":"2023-11-14 22:13:20","z":1.5}',
    {
      key: null,
      value: '{"z":1.5,"id":7,"xs":[1,{"a":1}],"cust.name":"Zoë","cust.addr.zip":null,"cust.addr.city":"Oslo","when":"2023-11-14 22:13:20","ts":1700000000123}',
      headers: [],
    },
  ],
  ['flatten plain', [['flatten', {}]], 'json', null, '{"a":{}}', { key: null, value: '{}', headers: [] }],
  ['flatten plain', [['flatten', {}]], 'json', null, '5', { error: 'Only Map objects supported in absence of schema for [flattening], found: java.lang.Long' }],
  ['flatten plain', [['flatten', {}]], 'json', null, null, { key: null, value: null, headers: [] }],
];

describe("flatten (Connect's Flatten)", () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([type]) => type === 'value_to_key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
