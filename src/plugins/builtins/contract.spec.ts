import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ContractSamples } from '../api';
import { checkPluginContract } from '../contract';
import { assertPluginContract } from '../test-support';
import { builtInTransforms } from './index';

const notJson = { value: Buffer.from('not json {') };
const json = { value: 'json' } as const;

/**
 * The samples every built-in runs the plugin contract on. A built-in without an entry fails the
 * first test: add its samples here (valid options, bad ones and the option each names, and for
 * a transform that can fail on a record, a record it fails on).
 */
const SAMPLES: Readonly<Record<string, ContractSamples>> = {
  insert_header: {
    options: { header: 'region', value: 'eu' },
    invalid: [
      { options: { value: 'eu' }, option: 'header' },
      { options: { header: 'region' }, option: 'value' },
    ],
  },
  drop_headers: { options: { headers: ['trace'] }, invalid: [{ options: { headers: 'trace' }, option: 'headers' }] },
  rename_topic: {
    options: { regex: 'primary\\.(.*)', replacement: 'dr.$1' },
    invalid: [{ options: { regex: '(', replacement: 'x' }, option: 'regex' }],
  },
  route_by_timestamp: { options: {}, invalid: [{ options: { topic_format: 7 }, option: 'topic_format' }] },
  // drop drops what it is applied to: applied (by the chain's `when`) to the record the contract
  // marks to fail, with its header `contract-throw`, the others pass to be written.
  drop: { options: { when: { has_header: 'contract-throw' } }, invalid: [{ options: { negate: true }, option: 'negate' }] },
  insert_field: {
    options: { static_field: 'origin', static_value: 'dc1' },
    converters: json,
    invalid: [{ options: { on: 'middle', static_field: 'origin', static_value: 'dc1' }, option: 'on' }],
    failing: notJson,
  },
  replace_field: { options: { exclude: ['email'] }, converters: json, invalid: [{ options: { exclude: 'email' }, option: 'exclude' }], failing: notJson },
  cast: { options: { spec: ['id:string'] }, converters: json, invalid: [{ options: { spec: ['id:uuid'] }, option: 'spec' }], failing: notJson },
  mask_field: { options: { fields: ['email'] }, converters: json, invalid: [{ options: { fields: 'email' }, option: 'fields' }], failing: notJson },
  // As Connect's HoistField, a null value is wrapped too: {"wrapped": null}.
  hoist_field: {
    options: { field: 'wrapped' },
    converters: json,
    invalid: [{ options: { field: 3 }, option: 'field' }],
    failing: notJson,
    keepsTombstones: false,
  },
  extract_field: { options: { field: 'id' }, converters: json, invalid: [{ options: { field: 3 }, option: 'field' }], failing: notJson },
  flatten: { options: { delimiter: '_' }, converters: json, invalid: [{ options: { delimiter: 1 }, option: 'delimiter' }], failing: notJson },
  // MM2's header converter is ByteArrayConverter: only a bytes field (or null) can become a header.
  header_from: {
    options: { fields: ['tag'], headers: ['tag'], operation: 'move' },
    converters: { value: 'json_envelope' },
    records: [
      {
        value: Buffer.from(
          JSON.stringify({
            schema: {
              type: 'struct',
              fields: [
                { field: 'tag', type: 'bytes' },
                { field: 'id', type: 'int64' },
              ],
            },
            payload: { tag: 'AQI=', id: 7 },
          }),
        ),
      },
    ],
    invalid: [{ options: { fields: ['tag'], headers: ['tag'], operation: 'clone' }, option: 'operation' }],
    failing: notJson,
  },
  timestamp_converter: {
    options: { field: 'at', target_type: 'unix' },
    converters: json,
    invalid: [{ options: { target_type: 'Instant' }, option: 'target_type' }],
    failing: notJson,
  },
  value_to_key: {
    options: { fields: ['id'] },
    converters: { key: 'json', value: 'json' },
    invalid: [{ options: { fields: [] }, option: 'fields' }],
    failing: notJson,
  },
  set_schema_metadata: {
    options: { name: 'com.example.Order' },
    converters: { value: 'json_envelope' },
    invalid: [{ options: { version: 'one' }, option: 'version' }],
    failing: notJson,
  },
};

describe('the plugin contract on the built-ins', () => {
  it('has samples for every built-in', () => {
    assert.deepEqual(
      builtInTransforms.map((d) => d.name).filter((name) => SAMPLES[name] === undefined),
      [],
    );
  });

  for (const definition of builtInTransforms) {
    it(`${definition.name} keeps it`, () => {
      const samples = SAMPLES[definition.name] ?? {};
      assertPluginContract(definition, samples);
      // Every check ran: with samples, none is skipped.
      assert.deepEqual(
        checkPluginContract(definition, samples)
          .filter((c) => c.result === 'skip')
          .map((c) => c.check),
        [],
      );
    });
  }
});
