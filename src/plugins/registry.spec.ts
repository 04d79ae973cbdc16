import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PluginError } from '../core/errors';
import { defineTransform, z, type TransformDefinition } from './api';
import { builtInTransforms } from './builtins';
import { PluginRegistry } from './registry';

const passThrough = (name: string) =>
  defineTransform({
    name,
    summary: 'Passes records through.',
    configSchema: z.strictObject({}),
    create: () => ({ apply: (record) => record }),
  });

describe('PluginRegistry', () => {
  it('gets definitions by name and lists them sorted', () => {
    const registry = new PluginRegistry([passThrough('zeta'), passThrough('alpha_beta')]);
    assert.equal(registry.get('zeta')?.name, 'zeta');
    assert.equal(registry.get('missing'), undefined);
    assert.equal(registry.has('alpha_beta'), true);
    assert.deepEqual(registry.names(), ['alpha_beta', 'zeta']);
    assert.deepEqual(
      registry.definitions().map((d) => d.name),
      ['alpha_beta', 'zeta'],
    );
  });

  it('rejects a second definition with a taken name', () => {
    const registry = new PluginRegistry([passThrough('same')]);
    assert.throws(
      () => registry.register(passThrough('same')),
      (e: unknown) => e instanceof PluginError && e.plugin === 'same' && /defined twice/.test(e.message),
    );
    assert.throws(() => new PluginRegistry(builtInTransforms).register(passThrough('drop')), PluginError);
  });

  it('accepts only snake_case names', () => {
    for (const name of ['InsertHeader', 'insert-header', 'insert header', '_drop', 'drop_', '1drop', '']) {
      assert.throws(() => new PluginRegistry().register(passThrough(name)), PluginError, name);
    }
    for (const name of ['drop', 'insert_header', 'mask_json_field', 'v2_router']) {
      assert.doesNotThrow(() => new PluginRegistry().register(passThrough(name)), name);
    }
  });

  it('rejects definitions of the wrong shape with every problem named', () => {
    const broken = { name: 'broken', summary: '', configSchema: {}, create: 'no' } as unknown as TransformDefinition;
    assert.throws(
      () => new PluginRegistry().register(broken),
      (e: unknown) => e instanceof PluginError && /"summary"/.test(e.message) && /"configSchema"/.test(e.message) && /"create"/.test(e.message),
    );
  });

  it('with() and without() return new registries and leave the original alone', () => {
    const base = new PluginRegistry(builtInTransforms);
    const more = base.with(passThrough('extra'));
    const less = base.without('drop', 'rename_topic');
    assert.deepEqual(base.names(), [
      'cast',
      'drop',
      'drop_headers',
      'extract_field',
      'flatten',
      'header_from',
      'hoist_field',
      'insert_field',
      'insert_header',
      'mask_field',
      'rename_topic',
      'replace_field',
      'route_by_timestamp',
      'set_schema_metadata',
      'timestamp_converter',
      'value_to_key',
    ]);
    assert.deepEqual(more.names(), [
      'cast',
      'drop',
      'drop_headers',
      'extra',
      'extract_field',
      'flatten',
      'header_from',
      'hoist_field',
      'insert_field',
      'insert_header',
      'mask_field',
      'rename_topic',
      'replace_field',
      'route_by_timestamp',
      'set_schema_metadata',
      'timestamp_converter',
      'value_to_key',
    ]);
    assert.deepEqual(less.names(), [
      'cast',
      'drop_headers',
      'extract_field',
      'flatten',
      'header_from',
      'hoist_field',
      'insert_field',
      'insert_header',
      'mask_field',
      'replace_field',
      'route_by_timestamp',
      'set_schema_metadata',
      'timestamp_converter',
      'value_to_key',
    ]);
    assert.throws(() => base.with(passThrough('drop')), PluginError);
    assert.throws(() => base.without('dorp'), /not registered/);
  });
});
