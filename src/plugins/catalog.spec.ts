import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginCatalog } from './catalog';
import { EXPECTED_BUILT_INS } from './test-support';

const API = JSON.stringify(join(__dirname, 'api.js'));
const root = mkdtempSync(join(tmpdir(), 'mirrorflow-catalog-'));
after(() => rmSync(root, { recursive: true, force: true }));

function plugin(dir: string, folder: string, index: string): void {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, 'index.js'), index);
}

const good = (name: string) => `const { defineTransform, z } = require(${API});
module.exports = defineTransform({ name: ${JSON.stringify(name)}, summary: 'Good.', configSchema: z.strictObject({ n: z.number().default(1).describe('A number.') }), create: () => ({ apply: (r) => r }) });`;

describe('pluginCatalog', () => {
  it('lists built-ins, then plugins with their folder and options; broken ones with the reason instead of throwing', () => {
    const dir = join(root, 'plugins');
    plugin(dir, 'fine_one', good('fine_one'));
    plugin(dir, 'drop', good('drop'));
    plugin(dir, 'throws_on_load', `throw new Error('missing key file');`);
    const entries = pluginCatalog({ pluginDirs: [dir], packages: ['@acme/nowhere'], packageBase: root });
    assert.deepEqual(
      entries.filter((e) => e.source === 'built-in').map((e) => e.name),
      EXPECTED_BUILT_INS,
    );
    const rest = entries
      .filter((e) => e.source !== 'built-in')
      .map((e) => ({ name: e.name, source: e.source, options: e.options?.length, problem: e.problem }));
    assert.deepEqual(
      rest.map((e) => [e.name, e.source, e.options]),
      [
        ['drop', 'plugin folder', 1],
        ['fine_one', 'plugin folder', 1],
        ['throws_on_load', 'plugin folder', undefined],
        ['@acme/nowhere', 'npm package', undefined],
      ],
    );
    assert.match(rest[0]!.problem ?? '', /has the same name as a built-in transform/);
    assert.equal(rest[1]!.problem, undefined);
    assert.match(rest[2]!.problem ?? '', /threw while loading: missing key file \(\S*throws_on_load\/index\.js:1:7\)/);
    assert.match(rest[3]!.problem ?? '', /\(npm package\) is not installed: no node_modules\/@acme\/nowhere in /);
  });
});
