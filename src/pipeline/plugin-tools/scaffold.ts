/**
 * `mirrorflow plugins new NAME`: a working transform plugin to start from — `DIR/NAME/` with
 * `index.js` (its options schema and transform; CommonJS, loaded as it is, no build step),
 * `README.md`, `index.test.js` (the plugin contract and its behaviour, for `node --test`) and
 * `NAME.test.yaml` (a pipeline test for `mirrorflow test`). The files reach mirrorflow's plugin
 * API and contract by paths relative to this installation, so they need nothing else installed.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
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

/** Compiled plugin API and contract, seen from dist/src/pipeline/plugin-tools. */
const API = resolve(__dirname, '..', '..', 'plugins', 'api.js');
const CONTRACT = resolve(__dirname, '..', '..', 'plugins', 'contract.js');

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
    'index.js': indexJs(name, requirePath(folder, API)),
    'index.test.js': testJs(name, requirePath(folder, CONTRACT)),
    [`${name}.test.yaml`]: pipelineTest(name),
    'README.md': readme(name, resolve(dir)),
  };
  mkdirSync(folder, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text, { flag: 'wx' });
  return { folder, files: Object.keys(files).map((file) => join(folder, file)) };
}

/** A `require` path from `folder` to `file`, with forward slashes. */
function requirePath(folder: string, file: string): string {
  const path = relative(folder, file).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

function indexJs(name: string, api: string): string {
  return `// @ts-check
'use strict';
/**
 * ${name}: adds a header with a fixed value to every record. Made by \`mirrorflow plugins new\`:
 * change the options schema and apply() to what the plugin should do, and keep README.md and the
 * tests beside it true.
 */
const { defineTransform, z } = require(${JSON.stringify(api)});

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

/** What \`mirrorflow plugins test\` and index.test.js run the plugin contract on. */
exports.contract = {
  options: { value: 'example' },
  invalid: [
    { options: {}, option: 'value' },
    { options: { value: 'example', header: '' }, option: 'header' },
  ],
};
`;
}

function testJs(name: string, contract: string): string {
  return `'use strict';
// Run with: node --test (Node's own test runner; nothing to install).
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { checkPluginContract } = require(${JSON.stringify(contract)});
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

function readme(name: string, dir: string): string {
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

and run the pipeline with this plugin's folder: \`mirrorflow run --plugin-dir ${dir} pipeline.yaml\`
(\`validate\` and \`test\` take \`--plugin-dir\` too). \`mirrorflow plugins list --plugin-dir ${dir}\`
shows it with its options.

## Test it

    node --test ${name}/                                   # the plugin contract and its behaviour
    mirrorflow plugins test ${name}                        # the plugin contract, printed check by check
    mirrorflow test --plugin-dir ${dir} ${name}/${name}.test.yaml   # records in, records out

\`index.js\` reaches mirrorflow's plugin API by a path relative to this mirrorflow installation;
if either moves, change the path in its \`require\`.
`;
}
