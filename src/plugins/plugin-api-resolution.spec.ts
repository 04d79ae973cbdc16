import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as api from './api';
import { PLUGIN_API_MODULES, resolvePluginApiHere } from './plugin-api-resolution';

const root = mkdtempSync(join(tmpdir(), 'mirrorflow-api-resolution-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('resolvePluginApiHere', () => {
  it("tripwire: Node's CommonJS loader still resolves every require through Module._resolveFilename", () => {
    assert.equal(typeof (Module as unknown as { _resolveFilename?: unknown })._resolveFilename, 'function');
  });

  it("lets a module anywhere require the plugin API by the package's name, getting this very instance", () => {
    const folder = join(root, 'far', 'away', 'tag_it');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'index.js'), "module.exports = { api: require('mirrorflow/plugin-api'), contract: require('mirrorflow/plugin-contract') };\n");
    resolvePluginApiHere();
    resolvePluginApiHere();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading a module by path is what is tested
    const loaded = require(join(folder, 'index.js')) as { api: unknown; contract: { checkPluginContract: unknown } };
    assert.equal(loaded.api, api, 'the same module object, not a copy');
    assert.equal(typeof loaded.contract.checkPluginContract, 'function');
    assert.deepEqual(Object.keys(PLUGIN_API_MODULES).sort(), ['mirrorflow/plugin-api', 'mirrorflow/plugin-contract']);
  });

  it('leaves every other request to Node', () => {
    assert.throws(() => require.resolve('no-such-package-of-mirrorflow-tests', { paths: [root] }), /Cannot find module/);
    // From inside this package, Node resolves its own name through package.json's exports, which list no such subpath.
    assert.throws(() => require.resolve('mirrorflow/no-such-module'), /not defined by "exports"/);
    assert.equal(require.resolve('node:path'), 'node:path');
  });
});
