import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, PluginError, type ConfigIssue } from '../core/errors';
import { createPluginRegistry, loadPluginFolders, loadPluginsFrom, projectPluginsDir, withPluginPackages } from './loader';
import { EXPECTED_BUILT_INS, mirrorRecord, transformContext } from './test-support';

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

const configErrorFor = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ConfigError');
};

const pick = (issue: ConfigIssue): Pick<ConfigIssue, 'file' | 'line' | 'path'> => ({ file: issue.file, line: issue.line, path: issue.path });

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
    assert.ok(error.message.includes(`no index.js found (${join(dir, 'empty_folder')})`), error.message);
    assert.match(error.message, /source_only.*it has an index.ts: build with `npx tsc -p .`/s, 'every broken folder is reported at once');
  });

  it('names the folder and the error when index.js throws while loading', () => {
    const dir = pluginDir({ throws: `throw new Error('cannot find the key file');` });
    const error = errorFor(() => loadPluginsFrom(dir));
    assert.equal(error.plugin, 'throws');
    assert.ok(error.message.includes(`threw while loading: cannot find the key file (${join(dir, 'throws', 'index.js')}:1:7)`), error.message);
    assert.ok(error.cause instanceof Error);
  });

  it("points at the plugin's own line, without Node's require stack, and says how a plugin reaches the API", () => {
    const dir = pluginDir({
      moved: `'use strict';\nconst { defineTransform } = require('../../../../nowhere/dist/src/plugins/api.js');\n`,
      needs_lib: `'use strict';\nrequire('left-pad-for-mirrorflow-tests');\n`,
      broken_syntax: `module.exports = {\n`,
    });
    const error = configErrorFor(() => createPluginRegistry({ pluginDirs: [dir] }));
    const [brokenSyntax, moved, needsLib] = error.issues;
    assert.deepEqual(pick(moved!), { file: join(dir, 'moved', 'index.js'), line: 2, path: 'moved' });
    assert.match(moved!.message, /^cannot be loaded: Cannot find module '\.\.\/\.\.\/\.\.\/\.\.\/nowhere\/dist\/src\/plugins\/api\.js'$/);
    assert.match(moved!.hint ?? '', /require\('mirrorflow\/plugin-api'\)/);
    assert.doesNotMatch(error.message, /Require stack/);
    assert.equal(needsLib!.hint, 'install it beside the plugin (npm install left-pad-for-mirrorflow-tests in its folder)');
    assert.deepEqual(pick(brokenSyntax!), { file: join(dir, 'broken_syntax', 'index.js'), line: 2, path: 'broken_syntax' });
    assert.match(brokenSyntax!.message, /^threw while loading: SyntaxError: /);
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
    assert.deepEqual(registry.names(), [...EXPECTED_BUILT_INS, 'add_suffix'].sort());
    assert.deepEqual(createPluginRegistry().names(), EXPECTED_BUILT_INS);
  });

  it('does not let a plugin shadow a built-in', () => {
    const dir = pluginDir({ drop: goodPlugin('drop') });
    const [issue] = configErrorFor(() => createPluginRegistry({ pluginDirs: [dir] })).issues;
    assert.deepEqual(issue, {
      file: join(dir, 'drop', 'index.js'),
      path: 'drop',
      message: 'has the same name as a built-in transform',
      hint: 'rename the plugin and its folder',
    });
  });

  it('rejects the same plugin name in two folders, naming both', () => {
    const first = pluginDir({ add_suffix: goodPlugin('add_suffix') });
    const second = pluginDir({ add_suffix: goodPlugin('add_suffix') });
    const [issue] = configErrorFor(() => createPluginRegistry({ pluginDirs: [first, second] })).issues;
    assert.equal(issue?.file, join(second, 'add_suffix', 'index.js'));
    assert.equal(issue?.message, `has the same name as the plugin in ${join(first, 'add_suffix')}`);
  });

  it("loads the repo's own compiled plugins", () => {
    const registry = createPluginRegistry({ pluginDirs: [projectPluginsDir()] });
    assert.ok(registry.has('mask_json_field'));
  });
});

describe('withPluginPackages', () => {
  /** A folder with node_modules/<name>/ holding `main`, as npm lays a package out. */
  function withPackage(name: string, main: string): string {
    const base = mkdtempSync(join(tmpdir(), 'mirrorflow-packages-'));
    tempRoots.push(base);
    const dir = join(base, 'node_modules', ...name.split('/'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, main: 'main.js' }));
    writeFileSync(join(dir, 'main.js'), main);
    return base;
  }

  it('adds the transform a package exports, found from the pipeline folder or a folder below its node_modules', () => {
    const base = withPackage('@acme/suffix', goodPlugin('add_suffix'));
    const nested = join(base, 'pipelines', 'prod');
    mkdirSync(nested, { recursive: true });
    const { registry, failures, loaded } = withPluginPackages(createPluginRegistry(), ['@acme/suffix'], nested);
    assert.deepEqual(failures, []);
    assert.ok(registry.has('add_suffix'));
    assert.equal(loaded[0]!.folder, join(base, 'node_modules', '@acme', 'suffix'));
  });

  it('reports each package that is missing, broken or takes a taken name, by its place in the list', () => {
    const base = withPackage('@acme/drop', goodPlugin('drop'));
    const broken = join(base, 'node_modules', 'broken-plugin');
    mkdirSync(broken);
    writeFileSync(join(broken, 'index.js'), 'module.exports = 42;');
    const { registry, failures } = withPluginPackages(createPluginRegistry(), ['@acme/drop', 'missing-plugin', 'broken-plugin'], base);
    assert.deepEqual(registry.names(), EXPECTED_BUILT_INS);
    assert.deepEqual(
      failures.map((f) => f.index),
      [0, 1, 2],
    );
    assert.match(failures[0]!.error.message, /defines the transform "drop", a name already taken/);
    assert.match(
      failures[1]!.error.message,
      /Plugin "missing-plugin": \(npm package\) is not installed: no node_modules\/missing-plugin in .*; run `npm install missing-plugin` there/,
    );
    assert.match(failures[2]!.error.message, /its main file does not export a transform definition/);
  });
});
