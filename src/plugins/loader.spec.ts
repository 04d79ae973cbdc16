import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginError } from '../core/errors';
import { createPluginRegistry, loadPluginFolders, loadPluginsFrom, projectPluginsDir } from './loader';
import { mirrorRecord, transformContext } from './test-support';

/** How a compiled plugin reaches the API: the same module the host uses. */
const API = JSON.stringify(join(__dirname, 'api.js'));

const tempRoots: string[] = [];
after(() => {
  for (const root of tempRoots) rmSync(root, { recursive: true, force: true });
});

/** A plugin folder root with one sub-folder per entry; a string entry is that folder's index.js. */
function pluginDir(folders: Record<string, string | Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), 'mirrorflow-plugins-'));
  tempRoots.push(root);
  for (const [name, content] of Object.entries(folders)) {
    mkdirSync(join(root, name));
    const files = typeof content === 'string' ? { 'index.js': content } : content;
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, name, file), text);
  }
  return root;
}

/** index.js of a working plugin, as tsc compiles `export default defineTransform(...)`. */
const goodPlugin = (name: string) => `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const api_1 = require(${API});
exports.default = (0, api_1.defineTransform)({
  name: ${JSON.stringify(name)},
  summary: 'Appends "!" to the target topic.',
  configSchema: api_1.z.strictObject({ suffix: api_1.z.string().default('!') }),
  create: (config) => ({ apply: (record) => ({ ...record, topic: record.topic + config.suffix }) }),
});
`;

const errorFor = (fn: () => unknown): PluginError => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof PluginError, `expected a PluginError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a PluginError');
};

describe('loadPluginsFrom', () => {
  it('loads each sub-folder whose index.js exports a definition, default or module.exports', () => {
    const dir = pluginDir({
      add_suffix: goodPlugin('add_suffix'),
      plain_export: `const { defineTransform, z } = require(${API});
module.exports = defineTransform({ name: 'plain_export', summary: 'Drops everything.', configSchema: z.object({}), create: () => ({ apply: () => undefined }) });`,
    });
    writeFileSync(join(dir, 'README.md'), 'files beside the plugins are ignored');
    mkdirSync(join(dir, '.cache'));
    const definitions = loadPluginsFrom(dir);
    assert.deepEqual(
      definitions.map((d) => d.name),
      ['add_suffix', 'plain_export'],
    );
    const transform = definitions[0]!.create(definitions[0]!.configSchema.parse({}), transformContext());
    assert.equal(transform.apply(mirrorRecord())?.topic, 'primary.orders!');
  });

  it('names the folder when index.js is missing, and points a source folder at its compiled form', () => {
    const dir = pluginDir({ empty_folder: {}, source_only: { 'index.ts': 'export default {}' } });
    const error = errorFor(() => loadPluginsFrom(dir));
    assert.equal(error.plugin, 'empty_folder');
    assert.ok(error.message.includes(`${join(dir, 'empty_folder')}: no index.js found`), error.message);
    assert.match(error.message, /source_only.*It has an index.ts: build with `npx tsc -p .`/s, 'every broken folder is reported at once');
  });

  it('names the folder and the error when index.js throws while loading', () => {
    const dir = pluginDir({ throws: `throw new Error('cannot find the key file');` });
    const error = errorFor(() => loadPluginsFrom(dir));
    assert.equal(error.plugin, 'throws');
    assert.match(error.message, /index.js threw while loading: cannot find the key file/);
    assert.ok(error.cause instanceof Error);
  });

  it('says what is wrong with an export of the wrong shape', () => {
    const dir = pluginDir({
      no_schema: `module.exports = { name: 'no_schema', summary: 'x', configSchema: { parse() {} }, create() {} };`,
      nothing: `exports.other = 1;`,
      bad_name: `const { z } = require(${API}); exports.default = { name: 'BadName', summary: 's', configSchema: z.object({}), create() {} };`,
    });
    const message = errorFor(() => loadPluginsFrom(dir)).message;
    assert.match(message, /no_schema.*"configSchema" must be a zod 4 schema/);
    assert.match(message, /nothing.*"name" must be a string.*"summary" must be a non-empty string.*"create" must be a function/);
    assert.match(message, /bad_name.*"name" must be snake_case \(like "mask_json_field"\), got "BadName"/);
    assert.match(message, /export default defineTransform/);
  });

  it("requires a plugin's folder to be named after it", () => {
    const dir = pluginDir({ some_folder: goodPlugin('other_name') });
    assert.match(errorFor(() => loadPluginsFrom(dir)).message, /declares the name "other_name"/);
  });

  it('reports a folder that does not exist', () => {
    const missing = join(tmpdir(), 'mirrorflow-no-such-plugins-dir');
    assert.match(errorFor(() => loadPluginsFrom(missing)).message, /does not exist/);
  });

  it('ignores dangling links', () => {
    const dir = pluginDir({ add_suffix: goodPlugin('add_suffix') });
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    assert.deepEqual(
      loadPluginFolders(dir).map((p) => p.folder),
      [join(dir, 'add_suffix')],
    );
  });
});

describe('createPluginRegistry', () => {
  it('holds the built-ins and the loaded plugins', () => {
    const registry = createPluginRegistry({ pluginDirs: [pluginDir({ add_suffix: goodPlugin('add_suffix') })] });
    assert.deepEqual(registry.names(), [
      'add_suffix',
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
    assert.deepEqual(createPluginRegistry().names(), [
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
  });

  it('does not let a plugin shadow a built-in', () => {
    const dir = pluginDir({ drop: goodPlugin('drop') });
    const error = errorFor(() => createPluginRegistry({ pluginDirs: [dir] }));
    assert.equal(error.plugin, 'drop');
    assert.match(error.message, /has the same name as a built-in transform/);
  });

  it('rejects the same plugin name in two folders, naming both', () => {
    const first = pluginDir({ add_suffix: goodPlugin('add_suffix') });
    const second = pluginDir({ add_suffix: goodPlugin('add_suffix') });
    const error = errorFor(() => createPluginRegistry({ pluginDirs: [first, second] }));
    assert.ok(error.message.includes(`from ${join(second, 'add_suffix')} has the same name as the plugin in ${join(first, 'add_suffix')}`), error.message);
  });

  it("loads the repo's own compiled plugins", () => {
    const registry = createPluginRegistry({ pluginDirs: [projectPluginsDir()] });
    assert.ok(registry.has('mask_json_field'));
  });
});
