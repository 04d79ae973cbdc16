import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * MaskField$Key and $Value on data with a schema (json_envelope): the empty value of each type (a decimal of scale 0, the epoch), replacements, struct and bytes fields refused, nulls kept, a struct required.
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
    [['mask_field', { fields: ['s', 'n', 'z'], replacement: '7' }]],
    'json',
    null,
    '{"s":"secret","n":5,"z":1.5}',
    { key: null, value: '{"z":7.0,"s":"7","n":7}', headers: [] },
  ],
  [
    'empty values of each type',
    [['mask_field', { fields: ['i', 'l', 'd', 'f', 's', 'b', 'i8', 'i16', 'm0', 'day', 'tod', 'at', 'xs', 'mp', 'nope'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"float","optional":true,"field":"f"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":true,"field":"mp"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":0,"l":0,"d":0.0,"f":0.0,"s":"","b":false,"i8":0,"i16":0,"m0":"AA==","m":"MDk=","raw":"AAEC","day":0,"tod":0,"at":0,"in":{"x":"y"},"xs":[],"mp":{}}}',
      headers: [],
    },
  ],
  [
    'a decimal with a scale gets 0 of scale 0',
    [['mask_field', { fields: ['m'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    { error: 'Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, value has scale 0.' },
  ],
  [
    'a struct field',
    [['mask_field', { fields: ['in'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    { error: 'Cannot mask value of type: class org.apache.kafka.connect.data.Struct' },
  ],
  [
    'a bytes field',
    [['mask_field', { fields: ['raw'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    { error: 'Cannot mask value of type: class [B' },
  ],
  [
    'nulls stay null',
    [['mask_field', { fields: ['f', 'in', 'raw', 'm'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":1,"d":0.5,"s":"x","b":false}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"float","optional":true,"field":"f"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":true,"field":"mp"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":1,"l":300,"d":0.5,"f":null,"s":"x","b":false,"i8":null,"i16":null,"m0":null,"m":null,"raw":null,"day":null,"tod":null,"at":null,"in":null,"xs":null,"mp":null}}',
      headers: [],
    },
  ],
  [
    'replacement of strings and numbers',
    [['mask_field', { fields: ['s', 'i', 'l', 'd', 'f', 'i8', 'i16'], replacement: '12' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"float","optional":true,"field":"f"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":true,"field":"mp"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":12,"l":12,"d":12.0,"f":12.0,"s":"12","b":true,"i8":12,"i16":12,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
      headers: [],
    },
  ],
  [
    'replacement of a decimal, its scale',
    [['mask_field', { fields: ['m'], replacement: '1.50' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"float","optional":true,"field":"f"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":true,"field":"mp"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300,"l":300,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"AJY=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
      headers: [],
    },
  ],
  [
    'replacement of a decimal, another scale',
    [['mask_field', { fields: ['m'], replacement: '7' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    { error: 'Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, value has scale 0.' },
  ],
  [
    'on the key',
    [['mask_field', { on: 'key', fields: ['s'], replacement: '***' }]],
    'json_envelope',
    '{"schema":{"type":"struct","name":"com.x.A","version":3,"fields":[{"type":"int32","field":"i"},{"type":"int64","field":"l","optional":true,"default":300},{"type":"double","field":"d"},{"type":"float","field":"f","optional":true},{"type":"string","field":"s"},{"type":"boolean","field":"b"},{"type":"int8","field":"i8","optional":true},{"type":"int16","field":"i16","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0","optional":true},{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m","optional":true},{"type":"bytes","field":"raw","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1,"field":"day","optional":true},{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true},{"type":"struct","field":"in","optional":true,"fields":[{"type":"string","field":"x"}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"int32"},"field":"mp","optional":true}]},"payload":{"i":300,"l":null,"d":-2.7,"f":1.5,"s":"secret","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
    null,
    {
      key: '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"i"},{"type":"int64","optional":true,"default":300,"field":"l"},{"type":"double","optional":false,"field":"d"},{"type":"float","optional":true,"field":"f"},{"type":"string","optional":false,"field":"s"},{"type":"boolean","optional":false,"field":"b"},{"type":"int8","optional":true,"field":"i8"},{"type":"int16","optional":true,"field":"i16"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},"field":"m0"},{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"m"},{"type":"bytes","optional":true,"field":"raw"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tod"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"x"}],"optional":true,"field":"in"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":true,"field":"mp"}],"optional":false,"name":"com.x.A","version":3},"payload":{"i":300,"l":300,"d":-2.7,"f":1.5,"s":"***","b":true,"i8":3,"i16":4,"m0":"MDk=","m":"MDk=","raw":"AAEC","day":19675,"tod":3723004,"at":1700000000123,"in":{"x":"y"},"xs":[1],"mp":{"k":1}}}',
      value: null,
      headers: [],
    },
  ],
  [
    'null payload',
    [['mask_field', { fields: ['s'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","optional":true,"fields":[{"type":"string","field":"s"}]},"payload":null}',
    { error: 'Only Struct objects supported for [mask fields], found: null' },
  ],
  [
    'not a struct',
    [['mask_field', { fields: ['s'] }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string"},"payload":"x"}',
    { error: 'Only Struct objects supported for [mask fields], found: java.lang.String' },
  ],
];

describe('mask_field with a schema (and schemaless)', () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([, options]) => options['on'] === 'key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });

  it('refuses replacements Connect refuses, naming the field (Connect: "Cannot mask value of type … with custom replacement.", "Unable to convert … to a number")', () => {
    const value =
      '{"schema":{"type":"struct","fields":[{"type":"boolean","field":"b"},{"type":"int32","field":"i"},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}]},"payload":{"b":true,"i":1,"at":5}}';
    const masking = (fields: string[], replacement: string) =>
      runRecordChain([['mask_field', { fields, replacement }]], { key: null, value }, { key: 'json', value: 'json_envelope' });
    assert.deepEqual(masking(['b'], 'x'), { error: 'Cannot mask value of type java.lang.Boolean with custom replacement (field "b")' });
    assert.deepEqual(masking(['at'], '5'), { error: 'Cannot mask value of type java.util.Date with custom replacement (field "at")' });
    assert.deepEqual(masking(['i'], 'xx'), {
      error: 'the replacement is not a whole number, so it cannot replace the number in field "i"',
    });
  });
});
