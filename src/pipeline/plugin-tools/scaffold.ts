/**
 * `mirrorflow plugins new NAME`: a working transform plugin to start from — `DIR/NAME/` with
 * `index.js` (its options schema and transform; CommonJS, loaded as it is, no build step),
 * `README.md`, `index.test.js` (the plugin contract and its behaviour, for `node --test`) and
 * `NAME.test.yaml` (a pipeline test for `mirrorflow test`). The files reach mirrorflow's plugin
 * API and contract by the package's name (`mirrorflow/plugin-api`, `mirrorflow/plugin-contract`),
 * which mirrorflow resolves to itself when it loads the plugin, so the folder can be moved, copied
 * or mounted into the container image as it is.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtInTransforms, isSnakeCase } from '../../plugins';
import { ToolUsageError } from '../tools/tool-errors';

export interface ScaffoldOptions {
  readonly name: string;
  /** The plugin folder the new plugin goes into (one sub-folder per plugin). */
  readonly dir: string;
}

export interface Scaffold {
  readonly folder: string;
  readonly files: readonly string[];
}

export function scaffoldPlugin({ name, dir }: ScaffoldOptions): Scaffold {
  if (!isSnakeCase(name)) {
    throw new ToolUsageError(
      `"${name}" is not a valid plugin name: use snake_case (lower-case letters, digits and single underscores, starting with a letter), like "mask_card_number"; pipelines name it as \`type: ${name}\`.`,
    );
  }
  if (builtInTransforms.some((d) => d.name === name)) {
    throw new ToolUsageError(`"${name}" is the name of a built-in transform; a plugin may not take it. Choose another name.`);
  }
  const folder = resolve(dir, name);
  if (existsSync(folder)) throw new ToolUsageError(`${folder} already exists; choose another name or remove the folder (nothing was written).`);

  const files: Record<string, string> = {
    'index.js': indexJs(name),
    'index.test.js': testJs(name),
    [`${name}.test.yaml`]: pipelineTest(name),
    'README.md': readme(name),
  };
  mkdirSync(folder, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text, { flag: 'wx' });
  return { folder, files: Object.keys(files).map((file) => join(folder, file)) };
}

function indexJs(name: string): string {
  return `// @ts-check
'use strict';
/**
 * ${name}: adds a header with a fixed value to every record. Made by \`mirrorflow plugins new\`:
 * change the options schema and apply() to what the plugin should do, and keep README.md and the
 * tests beside it true.
 */
const { defineTransform, z } = require('mirrorflow/plugin-api');

const configSchema = z.strictObject({
  header: z.string().min(1).default(${JSON.stringify(name)}).describe('Key of the header added to every record.'),
  value: z.string().min(1).describe('Value of the header, written as UTF-8.'),
});

exports.default = defineTransform({
  name: ${JSON.stringify(name)},
  summary: 'Adds a header with a fixed value to every record.',
  configSchema,
  create(config, context) {
    // Once per step: everything apply() can share is made here.
    const header = Object.freeze({ key: config.header, value: Buffer.from(config.value, 'utf8') });
    const tagged = context.metrics.counter('records_tagged', 'Records the header was added to.');
    return {
      apply(record) {
        tagged.inc();
        // A new record: the input is never changed. Key, value and tombstones pass as they are.
        return { ...record, headers: [...record.headers, header] };
      },
    };
  },
});

/** What \`mirrorflow plugins check\` and index.test.js run the plugin contract on. */
exports.contract = {
  options: { value: 'example' },
  invalid: [
    { options: {}, option: 'value' },
    { options: { value: 'example', header: '' }, option: 'header' },
  ],
};
`;
}

function testJs(name: string): string {
  return `'use strict';
// Run with: NODE_PATH="$(npm root -g)" node --test ${name}/ (Node's own test runner; NODE_PATH finds the
// mirrorflow that npm link or npm install -g put there).
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { checkPluginContract } = require('mirrorflow/plugin-contract');
const plugin = require('./index.js');

describe(${JSON.stringify(name)}, () => {
  it('keeps the plugin contract', () => {
    const failed = checkPluginContract(plugin.default, plugin.contract).filter((c) => c.result === 'fail');
    assert.deepEqual(failed, []);
  });

  it('adds the header after the ones the record has', () => {
    const transform = plugin.default.create(plugin.default.configSchema.parse({ value: 'eu' }), {
      flow: { source: 'primary', target: 'backup' },
      logger: { error() {}, warn() {}, info() {}, debug() {}, child() { return this; } },
      metrics: { counter: () => ({ inc() {} }) },
    });
    const record = {
      source: { topic: 'orders', partition: 0, offset: 0 },
      topic: 'primary.orders',
      partition: 0,
      timestamp: 1700000000000,
      key: null,
      value: Buffer.from('v'),
      headers: [{ key: 'trace', value: null }],
    };
    const out = transform.apply(record);
    assert.deepEqual(
      out.headers.map((h) => [h.key, h.value === null ? null : h.value.toString()]),
      [['trace', null], [${JSON.stringify(name)}, 'eu']],
    );
  });
});
`;
}

function pipelineTest(name: string): string {
  return `# A pipeline test of ${name}, without Kafka:
#   mirrorflow test --plugin-dir <the folder that holds ${name}/> ${name}/${name}.test.yaml
flow:
  transforms:
    - type: ${name}
      value: eu
tests:
  - name: adds the header, keeps the record
    input:
      - topic: orders
        key: k1
        value: hello
        headers: [{ key: trace, value: t1 }]
        timestamp: 1700000000000
    output:
      - topic: orders
        key: k1
        value: hello
        headers: [{ key: trace, value: t1 }, { key: ${name}, value: eu }]
        timestamp: 1700000000000
  - name: a tombstone stays a tombstone
    input: [{ topic: orders, key: k2, value: null }]
    output: [{ topic: orders, key: k2, value: null }]
`;
}

function readme(name: string): string {
  return `# ${name}

Adds a header with a fixed value to every record.

## Options

| option | type | default | description |
|---|---|---|---|
| \`header\` | string | \`"${name}"\` | Key of the header added to every record. |
| \`value\` | string | required | Value of the header, written as UTF-8. |

## Use it

    flows:
      - source: primary
        target: backup
        transforms:
          - type: ${name}
            value: eu

and run the pipeline with the folder that holds \`${name}/\` (here \`PLUGINS\`):
\`mirrorflow run --plugin-dir PLUGINS pipeline.yaml\` (\`validate\` and \`test\` take \`--plugin-dir\` too).
\`mirrorflow plugins list --plugin-dir PLUGINS\`
shows it with its options.

## Test it

From the folder that holds \`${name}/\`:

    mirrorflow plugins check ${name}                        # the plugin contract, printed check by check
    mirrorflow test --plugin-dir . ${name}/${name}.test.yaml       # records in, records out
    NODE_PATH="$(npm root -g)" node --test ${name}/        # the plugin contract and its behaviour

\`index.js\` reaches mirrorflow's plugin API as \`require('mirrorflow/plugin-api')\`: mirrorflow
resolves that name to itself when it loads the plugin, so this folder works wherever it is
copied or mounted (the container image too). Run outside mirrorflow, by \`node --test\`, the name
is found as any package is: \`NODE_PATH="$(npm root -g)"\` reaches the mirrorflow that \`npm link\`
(or \`npm install -g\`) installed.
`;
}
