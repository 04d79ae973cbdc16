import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runRecordChain, type ChainOutcome } from '../connect/field-chain-support';

/**
 * TimestampConverter between string, unix (each precision), Date, Time and Timestamp, schemaless and with a schema.
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
    'tsc ts->string',
    [['timestamp_converter', { field: 'ts', target_type: 'string', format: "yyyy-MM-dd'T'HH:mm:ss.SSS" }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"string","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":"2023-11-14T22:13:20.123","when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc ts->string',
    [['timestamp_converter', { field: 'ts', target_type: 'string', format: "yyyy-MM-dd'T'HH:mm:ss.SSS" }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"string","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":"1969-12-31T23:59:58.500","when":"2023-13-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc ts->unix',
    [['timestamp_converter', { field: 'ts', target_type: 'unix' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc ts->unix',
    [['timestamp_converter', { field: 'ts', target_type: 'unix' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1500,"when":"2023-13-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc ts->Timestamp',
    [['timestamp_converter', { field: 'ts', target_type: 'Timestamp' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc ts->Timestamp',
    [['timestamp_converter', { field: 'ts', target_type: 'Timestamp' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1500,"when":"2023-13-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc ts->Date',
    [['timestamp_converter', { field: 'ts', target_type: 'Date' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":19675,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc ts->Date',
    [['timestamp_converter', { field: 'ts', target_type: 'Date' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1,"when":"2023-13-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc ts->Time',
    [['timestamp_converter', { field: 'ts', target_type: 'Time' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":80000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc ts->Time',
    [['timestamp_converter', { field: 'ts', target_type: 'Time' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":86398500,"when":"2023-13-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc when->unix',
    [['timestamp_converter', { field: 'when', target_type: 'unix', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'seconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"int64","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":1700000000,"trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc when->unix',
    [['timestamp_converter', { field: 'when', target_type: 'unix', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'seconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"int64","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1500,"when":1704067200,"trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc when->Timestamp',
    [['timestamp_converter', { field: 'when', target_type: 'Timestamp', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'seconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":1700000000000,"trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc when->Timestamp',
    [['timestamp_converter', { field: 'when', target_type: 'Timestamp', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'seconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1500,"when":1704067200000,"trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc when->string',
    [['timestamp_converter', { field: 'when', target_type: 'string', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'seconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
      headers: [],
    },
  ],
  [
    'tsc when->string',
    [['timestamp_converter', { field: 'when', target_type: 'string', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'seconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":8,"cust":null,"ts":-1500,"when":"2023-13-01 00:00:00"}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":8,"cust":null,"xs":null,"m":null,"ts":-1500,"when":"2024-01-01 00:00:00","trace":null,"at":null}}',
      headers: [],
    },
  ],
  [
    'tsc at micro',
    [['timestamp_converter', { field: 'at', target_type: 'unix', unix_precision: 'microseconds' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    {
      key: null,
      value:
        '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},{"type":"struct","fields":[{"type":"string","optional":true,"default":"?","field":"city"}],"optional":false,"field":"addr"}],"optional":true,"field":"cust"},{"type":"array","items":{"type":"int32","optional":false},"optional":true,"field":"xs"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"m"},{"type":"int64","optional":true,"field":"ts"},{"type":"string","optional":true,"field":"when"},{"type":"bytes","optional":true,"field":"trace"},{"type":"int64","optional":true,"field":"at"}],"optional":false,"name":"com.x.Order","version":2},"payload":{"id":7,"cust":{"name":"Zoë","addr":{"city":"?"}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999000}}',
      headers: [],
    },
  ],
  [
    'tsc bad type',
    [['timestamp_converter', { field: 'id', target_type: 'unix' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"struct","name":"com.x.Order","version":2,"fields":[{"type":"int32","field":"id"},{"type":"struct","field":"cust","optional":true,"fields":[{"type":"string","field":"name"},{"type":"struct","field":"addr","fields":[{"type":"string","field":"city","optional":true,"default":"?"}]}]},{"type":"array","items":{"type":"int32"},"field":"xs","optional":true},{"type":"map","keys":{"type":"string"},"values":{"type":"string"},"field":"m","optional":true},{"type":"int64","field":"ts","optional":true},{"type":"string","field":"when","optional":true},{"type":"bytes","field":"trace","optional":true},{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"at","optional":true}]},"payload":{"id":7,"cust":{"name":"Zo\\u00eb","addr":{"city":null}},"xs":[1,2],"m":{"k":"v"},"ts":1700000000123,"when":"2023-11-14 22:13:20","trace":"AAEC","at":1700000000999}}',
    { error: 'Schema Schema{INT32} does not correspond to a known timestamp type format' },
  ],
  [
    'tsc plain',
    [['timestamp_converter', { field: 'ts', target_type: 'string', format: 'yyyy-MM-dd' }]],
    'json',
    null,
    '{"id":7,"cust":{"name":"Zoë","addr":{"city":"Oslo","zip":null}},"xs":[1,{"a":1}],"ts":1700000000123,"when":"2023-11-14 22:13:20","z":1.5}',
    {
      key: null,
      value: '{"z":1.5,"id":7,"xs":[1,{"a":1}],"cust":{"name":"Zoë","addr":{"zip":null,"city":"Oslo"}},"when":"2023-11-14 22:13:20","ts":"2023-11-14"}',
      headers: [],
    },
  ],
  [
    'tsc plain',
    [['timestamp_converter', { field: 'ts', target_type: 'string', format: 'yyyy-MM-dd' }]],
    'json',
    null,
    null,
    { key: null, value: null, headers: [] },
  ],
  [
    'tsc plain Timestamp',
    [['timestamp_converter', { field: 'ts', target_type: 'Timestamp' }]],
    'json',
    null,
    '{"id":7,"cust":{"name":"Zoë","addr":{"city":"Oslo","zip":null}},"xs":[1,{"a":1}],"ts":1700000000123,"when":"2023-11-14 22:13:20","z":1.5}',
    { error: 'Java class class java.util.Date does not have corresponding schema type.' },
  ],
  [
    'tsc plain nanos',
    [['timestamp_converter', { field: 'when', target_type: 'unix', format: 'yyyy-MM-dd HH:mm:ss', unix_precision: 'nanoseconds' }]],
    'json',
    null,
    '{"id":7,"cust":{"name":"Zoë","addr":{"city":"Oslo","zip":null}},"xs":[1,{"a":1}],"ts":1700000000123,"when":"2023-11-14 22:13:20","z":1.5}',
    {
      key: null,
      value: '{"z":1.5,"id":7,"xs":[1,{"a":1}],"cust":{"name":"Zoë","addr":{"zip":null,"city":"Oslo"}},"when":1700000000000000000,"ts":1700000000123}',
      headers: [],
    },
  ],
  [
    'tsc whole',
    [['timestamp_converter', { target_type: 'unix', format: 'yyyy-MM-dd' }]],
    'json_envelope',
    null,
    '{"schema":{"type":"string","optional":true},"payload":"2024-02-30"}',
    { key: null, value: '{"schema":{"type":"int64","optional":true},"payload":1709251200000}', headers: [] },
  ],
  [
    'tsc whole',
    [['timestamp_converter', { target_type: 'unix', format: 'yyyy-MM-dd' }]],
    'json_envelope',
    null,
    '"2024-02-30"',
    {
      error:
        'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.',
    },
  ],
];

describe("timestamp_converter (Connect's TimestampConverter)", () => {
  VECTORS.forEach(([what, steps, converter, key, value, expected], index) => {
    it(`#${index} ${what}: as Connect`, () => {
      const keyConverter = steps.some(([type]) => type === 'value_to_key') ? converter : 'json';
      assert.deepEqual(runRecordChain(steps, { key, value }, { key: keyConverter, value: converter }), expected);
    });
  });
});
