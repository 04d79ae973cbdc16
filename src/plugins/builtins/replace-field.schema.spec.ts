import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * ReplaceField$Key and $Value on data with a schema (json_envelope): exclude, include, renames, the schema's name, version, doc and parameters kept, the values looked up as Connect does, nulls passed, a struct required.
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
    'exclude',
    [['replace_field', { exclude: ['email', 'nope'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"name":"anon","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'include, in the schema order',
    [['replace_field', { include: ['in', 'id'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'exclude wins over include',
    [['replace_field', { include: ['id', 'email'], exclude: ['email'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1}}',
      headers: [],
    },
  ],
  [
    'renames',
    [['replace_field', { renames: ['id:order_id', 'name:who'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"order_id"},{"type":"string","optional":true,"default":"anon","field":"who"},{"type":"string","optional":true,"field":"email"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"order_id":1,"who":"anon","email":"a@b","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'renames swap',
    [['replace_field', { renames: ['id:email', 'email:id'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"email"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"string","optional":true,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"email":1,"name":"anon","id":"a@b","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'rename onto a kept field',
    [['replace_field', { renames: ['id:name'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    { error: 'Cannot create field because of field name duplication name' },
  ],
  [
    'rename onto an excluded field',
    [['replace_field', { renames: ['id:email'], exclude: ['email'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"email"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"email":1,"name":"anon","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'rename from a field it lacks',
    [['replace_field', { renames: ['nope:id'], exclude: ['id'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"string","optional":true,"field":"email"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"name":"anon","email":"a@b","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'a kept field whose name a rename of a missing field gives',
    [['replace_field', { renames: ['nope:id'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    { error: 'nope is not a valid field name' },
  ],
  [
    'two renames onto one name, one excluded',
    [['replace_field', { renames: ['id:k', 'email:k'], exclude: ['id'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"string","optional":true,"field":"k"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"name":"anon","k":"a@b","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'a rename of an excluded field',
    [['replace_field', { renames: ['email:mail'], exclude: ['email'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"name":"anon","in":{"s":"x"}}}',
      headers: [],
    },
  ],
  [
    'nothing left',
    [['replace_field', { include: ['nope'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{}}',
      headers: [],
    },
  ],
  [
    'on the key',
    [['replace_field', { on: 'key', exclude: ['email'] }]],
    'json_envelope',
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"},"fields":[{"type":"int32","field":"id"},{"type":"string","field":"name","optional":true,"default":"anon"},{"type":"string","field":"email","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"s"}]}]},"payload":{"id":1,"name":null,"email":"a@b","in":{"s":"x"}}}',
    null,
    {
      key: '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":true,"default":"anon","field":"name"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"s"}],"optional":true,"field":"in"}],"optional":false,"name":"com.x.A","version":3,"doc":"an A","parameters":{"p":"q"}},"payload":{"id":1,"name":"anon","in":{"s":"x"}}}',
      value: null,
      headers: [],
    },
  ],
  [
    'optional schema',
    [['replace_field', { exclude: ['b'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","optional":true,"fields":[{"type":"int64","field":"a"},{"type":"int64","field":"b"}]},"payload":{"a":1,"b":2}}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"a"}],"optional":false},"payload":{"a":1}}',
      headers: [],
    },
  ],
  [
    'null payload passes',
    [['replace_field', { exclude: ['b'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","optional":true,"fields":[{"type":"int64","field":"a"}]},"payload":null}',
    { key: null, value: '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"a"}],"optional":true},"payload":null}', headers: [] },
  ],
  [
    'not a struct',
    [['replace_field', { exclude: ['b'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"int64"},"payload":5}',
    { error: 'Only Struct objects supported for [field replacement], found: java.lang.Long' },
  ],
  [
    'schemaless still',
    [['replace_field', { renames: ['id:email', 'email:id'], exclude: ['in'] }]],
    'json',
    null,
    '{"id":1,"email":"e","in":2,"z":3}',
    { key: null, value: '{"z":3,"email":1,"id":"e"}', headers: [] },
  ],
];

describe('replace_field with a schema (and schemaless)', () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([, options]) => options['on'] === 'key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
