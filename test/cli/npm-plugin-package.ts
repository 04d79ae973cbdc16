/**
 * An npm package of a transform plugin, written into `dir/node_modules` as `npm install` lays a
 * package out: `@acme/mirrorflow-mask` (transform `mask_digits`: every ASCII digit of the value
 * becomes `#`), a plain CommonJS package with zod as its dependency — linked to this repo's zod,
 * as npm would dedupe it — and no import of mirrorflow. Also a broken package, whose main file
 * exports no definition.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const MASK_PACKAGE = '@acme/mirrorflow-mask';
export const BROKEN_PACKAGE = '@acme/mirrorflow-broken';

/** This repository's node_modules, from dist/test/cli. */
const REPO_MODULES = resolve(__dirname, '..', '..', '..', 'node_modules');

export function installPluginPackages(dir: string): void {
  const modules = join(dir, 'node_modules');
  const mask = join(modules, '@acme', 'mirrorflow-mask');
  mkdirSync(mask, { recursive: true });
  writeFileSync(
    join(mask, 'package.json'),
    JSON.stringify({ name: MASK_PACKAGE, version: '1.0.0', main: 'lib/main.js', dependencies: { zod: '^4' } }, null, 2),
  );
  mkdirSync(join(mask, 'lib'));
  writeFileSync(
    join(mask, 'lib', 'main.js'),
    `'use strict';
const { z } = require('zod');
module.exports = {
  name: 'mask_digits',
  summary: 'Replaces every ASCII digit of the value with a mask character.',
  configSchema: z.strictObject({ mask: z.string().length(1).default('#').describe('The character written for each digit.') }),
  create(config) {
    const mask = config.mask.charCodeAt(0);
    return {
      apply(record) {
        if (record.value === null) return record;
        const value = Buffer.from(record.value);
        for (let i = 0; i < value.length; i++) if (value[i] >= 0x30 && value[i] <= 0x39) value[i] = mask;
        return { ...record, value };
      },
    };
  },
};
`,
  );
  const broken = join(modules, '@acme', 'mirrorflow-broken');
  mkdirSync(broken, { recursive: true });
  writeFileSync(join(broken, 'package.json'), JSON.stringify({ name: BROKEN_PACKAGE, version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(broken, 'index.js'), `module.exports = { name: 'broken_one' };\n`);
  symlinkSync(join(REPO_MODULES, 'zod'), join(modules, 'zod'), 'dir');
}
