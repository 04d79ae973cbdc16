import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * Cast$Key and $Value on data with a schema (json_envelope): every type to every type, Decimal and the logical dates, defaults cast, the schema's name, version, doc and parameters kept, structs and arrays refused, the whole value.
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
    'schemaless still',
    [['cast', { spec: ['a:int8', 'b:string', 'c:boolean'] }]],
    'json',
    null,
    '{"a":300,"b":1.5,"c":"TRUE","d":1}',
    { key: null, value: '{"a":44,"b":"1.5","c":true,"d":1}', headers: [] },
  ],
  ['schemaless whole value', [['cast', { spec: ['string'] }]], 'json', null, '1.0E10', { key: null, value: '"1.0E10"', headers: [] }],
  [
    'numbers, with the default of l',
    [['cast', { spec: ['i:int8', 'l:int16', 'd:int32', 's:int64', 'b:float32'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int8","optional":false,"field":"i"},{"type":"int16","optional":true,"default":300,"field":"l"},{"type":"int32","optional":false,"field":"d"},{"type":"int64","optional":false,"field":"s"},{"type":"float","optional":false,"field":"b"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":44,"l":300,"d":-2,"s":42,"b":1.0,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'to string',
    [['cast', { spec: ['i:string', 'l:string', 'd:string', 'b:string', 'm:string', 'raw:string', 'day:string', 'tod:string', 'at:string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"i"},{"type":"string","optional":true,"default":"300","field":"l"},{"type":"string","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"string","optional":false,"field":"b"},{"type":"string","optional":false,"field":"m"},{"type":"string","optional":true,"field":"raw"},{"type":"string","optional":true,"field":"day"},{"type":"string","optional":true,"field":"tod"},{"type":"string","optional":true,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":"300","l":"300","d":"-2.7","s":"42","b":"true","m":"123.45","raw":"AAEC","day":"2023-11-14","tod":"01:02:03.004Z","at":"2023-11-14T22:13:20.123Z","in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'decimal to numbers',
    [['cast', { spec: ['m:int8', 'i:float64'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"double","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"int8","optional":false,"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300.0,"l":300,"d":-2.7,"s":"42","b":true,"m":123,"raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'decimal to float and boolean',
    [['cast', { spec: ['m:float32', 'd:boolean'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":1,"d":0.5,"s":"x","b":false,"m":"AA=="}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"boolean","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"float","optional":false,"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":1,"l":300,"d":false,"s":"x","b":false,"m":0.0,"raw":null,"day":null,"tod":null,"at":null,"in":null,"xs":null}}',
      headers: [],
    },
  ],
  [
    'decimal to float64 and int64',
    [['cast', { spec: ['m:float64', 's:boolean'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"boolean","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"double","optional":false,"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300,"l":300,"d":-2.7,"s":false,"b":true,"m":123.45,"raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'logical dates to numbers',
    [['cast', { spec: ['day:int64', 'tod:int32', 'at:int64'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int64","optional":true,"field":"day"},{"type":"int32","optional":true,"field":"tod"},{"type":"int64","optional":true,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300,"l":300,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'logical timestamp to float64 and boolean',
    [['cast', { spec: ['at:float64', 'day:boolean'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"boolean","optional":true,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"double","optional":true,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300,"l":300,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":true,"tod":3723004,"at":1.700000000123E12,"in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'nulls stay null, the schema changes',
    [['cast', { spec: ['raw:string', 'day:int32', 'at:string', 'in:string', 'xs:string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":1,"d":0.5,"s":"x","b":false,"m":"AA=="}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"string","optional":true,"field":"raw"},{"type":"int32","optional":true,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"string","optional":true,"field":"at"},{"type":"string","optional":true,"field":"in"},{"type":"string","optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":1,"l":300,"d":0.5,"s":"x","b":false,"m":"AA==","raw":null,"day":null,"tod":null,"at":null,"in":null,"xs":null}}',
      headers: [],
    },
  ],
  [
    'a struct field',
    [['cast', { spec: ['in:string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      error:
        'Cast transformation does not support casting from STRUCT; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]',
    },
  ],
  [
    'an array field',
    [['cast', { spec: ['xs:int32'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      error:
        'Cast transformation does not support casting from ARRAY; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]',
    },
  ],
  [
    'bytes to a number',
    [['cast', { spec: ['raw:int32'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    { error: 'Unexpected type in Cast transformation: class [B' },
  ],
  [
    'a field the schema lacks',
    [['cast', { spec: ['nope:int32'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300,"l":300,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
      headers: [],
    },
  ],
  [
    'whole value',
    [['cast', { spec: ['int8'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"int64","optional":true,"default":5,"name":"com.x.N","doc":"n"},"payload":1000}',
    { key: null, value: '{"schema":{"type":"int8","optional":true,"name":"com.x.N","doc":"n","default":5},"payload":-24}', headers: [] },
  ],
  [
    'whole value, null payload',
    [['cast', { spec: ['int8'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"int64","optional":true},"payload":null}',
    { key: null, value: '{"schema":{"type":"int64","optional":true},"payload":null}', headers: [] },
  ],
  [
    'whole value of a struct',
    [['cast', { spec: ['string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"s":"42","b":true,"m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1]}}',
    {
      error:
        'Cast transformation does not support casting from STRUCT; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]',
    },
  ],
  [
    'whole value of a timestamp to string',
    [['cast', { spec: ['string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":1700000000123}',
    { error: 'Invalid type for Timestamp, expected Date but was class java.lang.String' },
  ],
  [
    'whole value of a timestamp to int64',
    [['cast', { spec: ['int64'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":1700000000123}',
    { error: 'Invalid type for Timestamp, expected Date but was class java.lang.Long' },
  ],
  [
    'whole value of a decimal to float64',
    [['cast', { spec: ['float64'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"MDk="}',
    { error: 'Invalid type for Decimal, expected BigDecimal but was class java.lang.Double' },
  ],
  [
    'whole value on the key',
    [['cast', { on: 'key', spec: ['string'] }]],
    'json_envelope',
    '{"schema":{"type":"float"},"payload":1.5}',
    null,
    { key: '{"schema":{"type":"string","optional":false},"payload":"1.5"}', value: null, headers: [] },
  ],
  [
    'a default cast too',
    [['cast', { spec: ['l:string', 'i:boolean'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","fields":[{"type":"int64","field":"l","optional":true,"default":7},{"type":"int32","field":"i","default":0}]},"payload":{"l":1,"i":2}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"7","field":"l"},{"type":"boolean","optional":false,"default":false,"field":"i"}],"optional":false},"payload":{"l":"1","i":true}}',
      headers: [],
    },
  ],
  [
    'optional record schema kept',
    [['cast', { spec: ['a:string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","optional":true,"name":"n","fields":[{"type":"int64","field":"a"}]},"payload":{"a":1}}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"a"}],"optional":true,"name":"n"},"payload":{"a":"1"}}',
      headers: [],
    },
  ],
  [
    'decimal to string: small and negative',
    [['cast', { spec: ['m:string'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","fields":[{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"9"},"field":"m"}]},"payload":{"m":"/w=="}}',
    {
      key: null,
      value: '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"m"}],"optional":false},"payload":{"m":"-1E-9"}}',
      headers: [],
    },
  ],
  [
    'big decimal to int8 and int64',
    [['cast', { spec: ['m:int8', 'n:int64'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","fields":[{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"1"},"field":"m"},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"n"}]},"payload":{"m":"AP////////////8=","n":"f/////////////8="}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int8","optional":false,"field":"m"},{"type":"int64","optional":false,"field":"n"}],"optional":false},"payload":{"m":-103,"n":-1}}',
      headers: [],
    },
  ],
];

describe('cast with a schema (and schemaless)', () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([, options]) => options['on'] === 'key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });

  it('fails a string that is not a number without quoting it (Connect says "Value (…) was out of range for requested data type")', () => {
    const value = '{"schema":{"type":"struct","fields":[{"type":"string","field":"s"}]},"payload":{"s":"secret-ish"}}';
    const outcome = runRecordChain([['cast', { spec: ['s:int32'] }]], { key: null, value }, { key: 'json', value: 'json_envelope' });
    assert.ok('error' in outcome);
    assert.match(outcome.error, /the string in field "s" is not a whole number within int32, so it cannot be cast to int32/);
    assert.doesNotMatch(outcome.error, /secret-ish/);
  });
});
