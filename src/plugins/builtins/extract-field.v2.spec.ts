import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';
import { optionIssues } from '../test-support';
import { extractField } from './extract-field';

/**
 * ExtractField$Key and $Value with field.syntax.version V2 (KIP-821: nested paths, backticks, escapes) and V1, schemaless and with a schema (json_envelope).
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
    'V2 nested',
    [['extract_field', { field: 'a.b', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"string","optional":false},"payload":"x"}', headers: [] },
  ],
  [
    'V2 nested default',
    [['extract_field', { field: 'a.c', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"string","optional":true,"default":"dc"},"payload":"dc"}', headers: [] },
  ],
  [
    'V2 backticks hold a dot',
    [['extract_field', { field: '`a.b`', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"int32","optional":true},"payload":2}', headers: [] },
  ],
  [
    'V2 backticks inside',
    [['extract_field', { field: 'a.`d.e`.f', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"int64","optional":false},"payload":9}', headers: [] },
  ],
  [
    'V2 escaped backtick',
    [['extract_field', { field: '`q\\`.`.r', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { error: 'Unknown field: `q\\`.`.r' },
  ],
  [
    'V2 a doubled backtick closes at the one before the dot',
    [['extract_field', { field: '`q``.r', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"boolean","optional":false},"payload":true}', headers: [] },
  ],
  [
    'V2 a struct',
    [['extract_field', { field: 'a.`d.e`', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"f"}],"optional":true},"payload":{"f":9}}',
      headers: [],
    },
  ],
  [
    'V2 null on the way',
    [['extract_field', { field: 'a.b', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a":null}}',
    { error: 'Conversion error: null value for field that is required and has no default value' },
  ],
  [
    'V2 unknown nested',
    [['extract_field', { field: 'a.zz', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { error: 'Unknown field: a.zz' },
  ],
  [
    'V2 unknown parent',
    [['extract_field', { field: 'zz.b', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { error: 'Unknown field: zz.b' },
  ],
  [
    'V2 through a non-struct',
    [['extract_field', { field: 'id.x', field_syntax_version: 'V2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { error: 'Cannot look up fields on non-struct type' },
  ],
  [
    'V1 keeps dots',
    [['extract_field', { field: 'a.b', field_syntax_version: 'V1' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"int32","optional":true},"payload":2}', headers: [] },
  ],
  [
    'lower case v2',
    [['extract_field', { field: 'a.b', field_syntax_version: 'v2' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    { key: null, value: '{"schema":{"type":"string","optional":false},"payload":"x"}', headers: [] },
  ],
  [
    'V2 on the key',
    [['extract_field', { on: 'key', field: 'a.b', field_syntax_version: 'V2' }]],
    'json_envelope',
    '{"schema":{"type":"struct","name":"com.x.A","fields":[{"type":"int32","field":"id"},{"type":"int32","field":"a.b","optional":true},{"type":"struct","field":"a","optional":true,"fields":[{"type":"string","field":"b"},{"type":"string","field":"c","optional":true,"default":"dc"},{"type":"struct","field":"d.e","optional":true,"fields":[{"type":"int64","field":"f"}]}]},{"type":"struct","field":"q`","optional":true,"fields":[{"type":"boolean","field":"r"}]}]},"payload":{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true}}}',
    null,
    { key: '{"schema":{"type":"string","optional":false},"payload":"x"}', value: null, headers: [] },
  ],
  [
    'V2 schemaless nested',
    [['extract_field', { field: 'a.`d.e`.f', field_syntax_version: 'V2' }]],
    'json',
    null,
    '{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true},"s":"str"}',
    { key: null, value: '9', headers: [] },
  ],
  [
    'V2 schemaless missing',
    [['extract_field', { field: 'zz.f', field_syntax_version: 'V2' }]],
    'json',
    null,
    '{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true},"s":"str"}',
    { key: null, value: null, headers: [] },
  ],
  [
    'V2 schemaless through a string',
    [['extract_field', { field: 's.f', field_syntax_version: 'V2' }]],
    'json',
    null,
    '{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true},"s":"str"}',
    { error: 'Only Map objects supported in absence of schema for [nested field access], found: java.lang.String' },
  ],
  [
    'V2 schemaless escaped',
    [['extract_field', { field: '`q\\`.`.r', field_syntax_version: 'V2' }]],
    'json',
    null,
    '{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true},"s":"str"}',
    { key: null, value: null, headers: [] },
  ],
  [
    'V2 schemaless trailing dot',
    [['extract_field', { field: 'a.', field_syntax_version: 'V2' }]],
    'json',
    null,
    '{"a":{"":5}}',
    { key: null, value: '5', headers: [] },
  ],
  [
    'V2 schemaless backtick not before a dot',
    [['extract_field', { field: '`x`y`', field_syntax_version: 'V2' }]],
    'json',
    null,
    '{"x`y":5}',
    { key: null, value: '5', headers: [] },
  ],
  [
    'V1 schemaless',
    [['extract_field', { field: 'a.b', field_syntax_version: 'V1' }]],
    'json',
    null,
    '{"id":1,"a.b":2,"a":{"b":"x","c":null,"d.e":{"f":9}},"q`":{"r":true},"s":"str"}',
    { key: null, value: '2', headers: [] },
  ],
];

describe('extract_field with field_syntax_version', () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([, options]) => options['on'] === 'key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });

  it("refuses a backtick left open with Connect's message, when the options are read", () => {
    assert.deepEqual(optionIssues(extractField, { field: '`a.b', field_syntax_version: 'V2' }), [
      'field: Incomplete backtick pair in path: [`a.b], consider adding a backslash before backtick at position 0 to escape it',
    ]);
    assert.deepEqual(optionIssues(extractField, { field: '`a.b', field_syntax_version: 'V1' }), []);
    assert.equal(optionIssues(extractField, { field: 'a', field_syntax_version: 'V3' }).length, 1);
  });
});
