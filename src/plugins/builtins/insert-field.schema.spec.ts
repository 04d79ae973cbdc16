import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * InsertField$Key and $Value on data with a schema (json_envelope): optional and required (!) fields, the schema's name, version, doc and parameters kept, nulls passed, a struct required.
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
    'optional fields (the default)',
    [['insert_field', { topic_field: 't', partition_field: 'p', offset_field: 'o', timestamp_field: 'ts', static_field: 'origin', static_value: 'dc1' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"},{"type":"string","optional":true,"field":"t"},{"type":"int32","optional":true,"field":"p"},{"type":"int64","optional":true,"field":"o"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"string","optional":true,"field":"origin"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"name":"anon","in":{"s":"x"},"t":"src.orders","p":1,"o":42,"ts":1700000000123,"origin":"dc1"}}',
      headers: [],
    },
  ],
  [
    'required fields (!), optional (?)',
    [['insert_field', { topic_field: 't?', partition_field: 'p!', offset_field: 'o!', timestamp_field: 'ts!', static_field: 'origin!', static_value: 'dc1' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":"n"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"},{"type":"string","optional":true,"field":"t"},{"type":"int32","optional":false,"field":"p"},{"type":"int64","optional":false,"field":"o"},{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"string","optional":false,"field":"origin"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"name":"n","in":null,"t":"src.orders","p":1,"o":42,"ts":1700000000123,"origin":"dc1"}}',
      headers: [],
    },
  ],
  [
    'on the key',
    [['insert_field', { on: 'key', topic_field: 't', timestamp_field: 'ts!' }]],
    'json_envelope',
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":2}}',
    null,
    {
      key: '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"},{"type":"string","optional":true,"field":"t"},{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":2,"name":"anon","in":null,"t":"src.orders","ts":1700000000123}}',
      value: null,
      headers: [],
    },
  ],
  [
    'optional value schema: the new one is required',
    [['insert_field', { static_field: 'origin', static_value: 'dc1' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","optional":true,"fields":[{"type":"int64","field":"n"}]},"payload":{"n":5}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"n"},{"type":"string","optional":true,"field":"origin"}],"optional":false},"payload":{"n":5,"origin":"dc1"}}',
      headers: [],
    },
  ],
  [
    'null payload passes',
    [['insert_field', { topic_field: 't', partition_field: 'p', offset_field: 'o', timestamp_field: 'ts', static_field: 'origin', static_value: 'dc1' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","optional":true,"fields":[{"type":"int64","field":"n"}]},"payload":null}',
    { key: null, value: '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"n"}],"optional":true},"payload":null}', headers: [] },
  ],
  [
    'tombstone passes',
    [['insert_field', { topic_field: 't', partition_field: 'p', offset_field: 'o', timestamp_field: 'ts', static_field: 'origin', static_value: 'dc1' }]],
    'json_envelope',
    null,
    null,
    { key: null, value: null, headers: [] },
  ],
  [
    'not a struct',
    [['insert_field', { topic_field: 't', partition_field: 'p', offset_field: 'o', timestamp_field: 'ts', static_field: 'origin', static_value: 'dc1' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string"},"payload":"x"}',
    { error: 'Only Struct objects supported for [field insertion], found: java.lang.String' },
  ],
  [
    'a field it has already',
    [['insert_field', { topic_field: 'id' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1}}',
    { error: 'Cannot create field because of field name duplication id' },
  ],
  [
    'twice: a field the first added',
    [
      ['insert_field', { topic_field: 't' }],
      ['insert_field', { partition_field: 'p!' }],
    ],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"},{"type":"string","optional":true,"field":"t"},{"type":"int32","optional":false,"field":"p"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"name":"anon","in":null,"t":"src.orders","p":1}}',
      headers: [],
    },
  ],
  [
    'schemaless still',
    [['insert_field', { topic_field: 't!', partition_field: 'p!', offset_field: 'o!', timestamp_field: 'ts!', static_field: 'origin!', static_value: 'dc1' }]],
    'json',
    null,
    '{"id":1}',
    { key: null, value: '{"p":1,"id":1,"t":"src.orders","o":42,"ts":1700000000123,"origin":"dc1"}', headers: [] },
  ],
];

describe('insert_field with a schema (and schemaless)', () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([, options]) => options['on'] === 'key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
