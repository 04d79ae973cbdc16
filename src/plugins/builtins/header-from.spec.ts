import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * HeaderFrom copy and move, schemaless and with a schema; header bytes by MM2's header converter, ByteArrayConverter.
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
    'hf move',
    [['header_from', { fields: ['trace', 'xs'], headers: ['t', 'x'], operation: 'move' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    { error: 'Invalid schema type for ByteArrayConverter: ARRAY' },
  ],
  [
    'hf move',
    [['header_from', { fields: ['trace', 'xs'], headers: ['t', 'x'], operation: 'move' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    { error: 'Invalid schema type for ByteArrayConverter: ARRAY' },
  ],
  [
    'hf copy',
    [['header_from', { fields: ['trace', 'm'], headers: ['t', 'm'], operation: 'copy' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    { error: 'Invalid schema type for ByteArrayConverter: MAP' },
  ],
  [
    'hf null',
    [['header_from', { fields: ['trace'], headers: ['t'], operation: 'move' }]],
    'json_envelope',
    null,
    null,
    { error: 'Only Map objects supported in absence of schema for [header move], found: null' },
  ],
  [
    'hf plain',
    [['header_from', { fields: ['nope', 'id'], headers: ['n', 'i'], operation: 'move' }]],
    'json',
    null,
    '{"a":1,"b":2}',
    {
      key: null,
      value: '{"a":1,"b":2}',
      headers: [
        ['n', null],
        ['i', null],
      ],
    },
  ],
  [
    'hf plain',
    [['header_from', { fields: ['nope', 'id'], headers: ['n', 'i'], operation: 'move' }]],
    'json',
    null,
    '{"id":null,"q":1}',
    {
      key: null,
      value: '{"q":1}',
      headers: [
        ['n', null],
        ['i', null],
      ],
    },
  ],
  [
    'hf bytes',
    [['header_from', { fields: ['trace', 'id'], headers: ['t', 't'], operation: 'move' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","fields":[{"type":"bytes","field":"trace","optional":true},{"type":"int32","field":"id","optional":true}]},"payload":{"trace":"AAEC","id":null}}',
    { error: 'Invalid schema type for ByteArrayConverter: INT32' },
  ],
  [
    'hf bytes',
    [['header_from', { fields: ['trace', 'id'], headers: ['t', 't'], operation: 'move' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","fields":[{"type":"bytes","field":"trace","optional":true},{"type":"int32","field":"id","optional":true}]},"payload":{"trace":null,"id":3}}',
    { error: 'Invalid schema type for ByteArrayConverter: INT32' },
  ],
  [
    'hf bytes copy',
    [['header_from', { fields: ['trace'], headers: ['t'], operation: 'copy' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"n","fields":[{"type":"bytes","field":"trace","optional":true},{"type":"int32","field":"id","optional":true}]},"payload":{"trace":"AAEC","id":1}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"bytes","optional":true,"field":"trace"},{"type":"int32","optional":true,"field":"id"}],"optional":false,"name":"n"},"payload":{"trace":"AAEC","id":1}}',
      headers: [['t', 'AAEC']],
    },
  ],
];

describe("header_from (Connect's HeaderFrom)", () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([type]) => type === 'value_to_key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
