/**
 * The plugin tooling through the built binary, without Kafka: `plugins new` makes a plugin that
 * `plugins list` shows with its options, whose own tests, contract and pipeline test pass;
 * `mirrorflow test` fails with a diff on a wrong expectation; a pipeline's npm packages are
 * listed, a broken one with the reason.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mirrorflow } from '../config/cli';
import { BROKEN_PACKAGE, installPluginPackages, MASK_PACKAGE } from './npm-plugin-package';

const root = mkdtempSync(join(tmpdir(), 'mirrorflow-plugins-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));
const plugins = join(root, 'plugins');

/** A folder holding `mirrorflow` (a link to this checkout), as `npm root -g` does after `npm link`. */
function linkedRoot(): string {
  const folder = join(root, 'global-node-modules');
  mkdirSync(folder, { recursive: true });
  if (!existsSync(join(folder, 'mirrorflow'))) symlinkSync(join(__dirname, '..', '..', '..'), join(folder, 'mirrorflow'), 'dir');
  return folder;
}

describe('mirrorflow plugins new, list and test, and mirrorflow test', () => {
  it('scaffolds a plugin that list shows with its options and whose tests pass', async () => {
    const made = await mirrorflow(['plugins', 'new', 'tag_region', '--dir', plugins], { cwd: root });
    assert.equal(made.code, 0, made.stderr);
    const listed = await mirrorflow(['plugins', 'list', '--plugin-dir', plugins, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const entry = (
      JSON.parse(listed.stdout) as { name: string; source: string; from?: string; options?: { name: string; required: boolean; default?: string }[] }[]
    ).find((e) => e.name === 'tag_region');
    assert.deepEqual(
      { source: entry?.source, from: entry?.from, options: entry?.options?.map((o) => [o.name, o.required, o.default]) },
      {
        source: 'plugin folder',
        from: join(plugins, 'tag_region'),
        options: [
          ['header', false, '"tag_region"'],
          ['value', true, undefined],
        ],
      },
    );

    // Outside this runner's own context, as a user runs it (the variable makes a child report to its parent instead),
    // with NODE_PATH at a folder holding `mirrorflow`, as `npm root -g` is after `npm link`.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const nodeTest = spawnSync(process.execPath, ['--test', join(plugins, 'tag_region') + '/'], { encoding: 'utf8', env: { ...env, NODE_PATH: linkedRoot() } });
    assert.equal(nodeTest.status, 0, nodeTest.stdout + nodeTest.stderr);
    assert.match(nodeTest.stdout, /# pass 2/);

    // `plugins test`, the former name of `plugins check`, still works.
    const contract = await mirrorflow(['plugins', 'test', join(plugins, 'tag_region')]);
    assert.equal(contract.code, 0, contract.stdout + contract.stderr);
    assert.match(contract.stdout, /ok {4}purity/);

    const test = join(plugins, 'tag_region', 'tag_region.test.yaml');
    const passed = await mirrorflow(['test', '--plugin-dir', plugins, test]);
    assert.equal(passed.code, 0, passed.stdout + passed.stderr);
    assert.match(passed.stdout, /2 tests: 2 passed, 0 failed/);
  });

  it('scaffolds a plugin that still loads after its folder moved elsewhere', async () => {
    const made = await mirrorflow(['plugins', 'new', 'tag_moved', '--dir', join(root, 'first')], { cwd: root });
    assert.equal(made.code, 0, made.stderr);
    assert.match(readFileSync(join(root, 'first', 'tag_moved', 'index.js'), 'utf8'), /require\('mirrorflow\/plugin-api'\)/);
    const elsewhere = join(root, 'somewhere', 'much', 'deeper');
    mkdirSync(elsewhere, { recursive: true });
    renameSync(join(root, 'first', 'tag_moved'), join(elsewhere, 'tag_moved'));

    const contract = await mirrorflow(['plugins', 'check', join(elsewhere, 'tag_moved')]);
    assert.equal(contract.code, 0, contract.stdout + contract.stderr);
    const tested = await mirrorflow(['test', '--plugin-dir', '.', join('tag_moved', 'tag_moved.test.yaml')], { cwd: elsewhere });
    assert.equal(tested.code, 0, tested.stdout + tested.stderr);
    assert.match(tested.stdout, /2 tests: 2 passed, 0 failed/);
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const nodeTest = spawnSync(process.execPath, ['--test', join(elsewhere, 'tag_moved') + '/'], {
      encoding: 'utf8',
      env: { ...env, NODE_PATH: linkedRoot() },
    });
    assert.equal(nodeTest.status, 0, nodeTest.stdout + nodeTest.stderr);
  });

  it('refuses a name that is taken or not snake_case, writing nothing', async () => {
    const again = await mirrorflow(['plugins', 'new', 'tag_region', '--dir', plugins]);
    assert.equal(again.code, 64);
    assert.match(again.stderr, /tag_region already exists/);
    const bad = await mirrorflow(['plugins', 'new', 'Tag-Region', '--dir', plugins]);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /"Tag-Region" is not a valid plugin name: use snake_case/);
    const builtIn = await mirrorflow(['plugins', 'new', 'rename_topic', '--dir', plugins]);
    assert.match(builtIn.stderr, /"rename_topic" is the name of a built-in transform/);
  });

  it('fails a pipeline test with a diff of what differs', async () => {
    const file = join(root, 'wrong.test.yaml');
    const text = readFileSync(join(plugins, 'tag_region', 'tag_region.test.yaml'), 'utf8').replace(
      '{ key: tag_region, value: eu }',
      '{ key: tag_region, value: us }',
    );
    writeFileSync(file, text);
    const failed = await mirrorflow(['test', '--plugin-dir', plugins, file]);
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /FAIL {2}adds the header, keeps the record \(line \d+\)/);
    assert.ok(failed.stdout.includes('output[0].headers: expected [trace: "t1", tag_region: "us"], got [trace: "t1", tag_region: "eu"]'), failed.stdout);
    assert.match(failed.stdout, /ok {4}a tombstone stays a tombstone/);
    assert.match(failed.stderr, /1 pipeline test failed/);
  });

  it("gives a plugin the running mirrorflow's own API: its PluginError's message is shown", async () => {
    // The CLI runs as one bundle (scripts/bundle-cli.mjs): a plugin's `mirrorflow/plugin-api` must be
    // the bundle's module, or its PluginError is another class and its message is withheld as unsafe.
    const folder = join(root, 'own-api-plugins', 'refuse_all');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'index.js'),
      `const { defineTransform, z, PluginError } = require('mirrorflow/plugin-api');
module.exports = defineTransform({
  name: 'refuse_all',
  summary: 'Refuses every record.',
  configSchema: z.object({}),
  create: () => ({ apply() { throw new PluginError('refuse_all', 'refused by its own rule'); } }),
});
`,
    );
    const file = join(root, 'own-api.test.yaml');
    writeFileSync(
      file,
      `flow:
  transforms: [{ type: refuse_all }]
tests:
  - name: the plugin's own message
    input: [{ value_text: "x" }]
    error: 'refused by its own rule'
`,
    );
    const run = await mirrorflow(['test', '--plugin-dir', dirname(folder), file]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /ok {4}the plugin's own message/);
  });

  it('tests a flow of a pipeline file: its rename, JSON converter and errors.tolerance', async () => {
    const pipeline = join(root, 'orders.yaml');
    writeFileSync(
      pipeline,
      `clusters:
  primary: { bootstrap_servers: ["127.0.0.1:9"] }
  backup: { bootstrap_servers: ["127.0.0.1:9"] }
flows:
  - source: primary
    target: backup
    converter: { value: json }
    errors: { tolerance: all, deadletterqueue: { topic_name: dlq } }
    transforms:
      - { type: mask_field, fields: [card] }
`,
    );
    const file = join(root, 'orders.test.yaml');
    writeFileSync(
      file,
      `pipeline: orders.yaml
tests:
  - name: masks the card, dead-letters what is not JSON
    input:
      - { topic: orders, key: k1, value: { id: 1, card: "4111" }, timestamp: 5 }
      - { topic: orders, value_text: "not json" }
    output:
      - { topic: primary.orders, key: k1, value: { id: 1, card: "" }, timestamp: 5 }
    dead_letters: 1
  - name: a wrong expectation
    input: [{ topic: orders, value: { id: 2, card: "4111" } }]
    output: [{ topic: orders, value: { id: 2 } }]
`,
    );
    const run = await mirrorflow(['test', file]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /ok {4}masks the card, dead-letters what is not JSON/);
    assert.ok(run.stdout.includes('output[0].topic: expected "orders", got "primary.orders"'), run.stdout);
    assert.ok(run.stdout.includes('output[0].value: expected {"id":2}, got {"card":"","id":2}'), run.stdout);

    const inline = join(root, 'inline.test.yaml');
    writeFileSync(
      inline,
      `flow:
  transforms: [{ type: cast, spec: ["id:int32"] }]
  converter: { value: json }
tests:
  - name: the flow stops at a value that is not JSON
    input: [{ value: { id: "7" } }, { value_text: "{" }]
    error: 'offset 1 failed in transform "cast" (flow.transforms[0])'
  - name: expects an error that does not come
    input: [{ value: { id: "7" } }]
    error: 'failed'
`,
    );
    const stopped = await mirrorflow(['test', inline]);
    assert.equal(stopped.code, 1);
    assert.match(stopped.stdout, /ok {4}the flow stops at a value that is not JSON/);
    assert.match(
      stopped.stdout,
      /FAIL {2}expects an error that does not come \(line 8\)\n {10}expected the flow to stop with an error containing "failed", but it went on \(1 records out\)/,
    );
  });

  it('tests a flow of an mm2.properties file through its Connect SMTs', async () => {
    const properties = join(root, 'mm2.properties');
    writeFileSync(
      properties,
      [
        'clusters = primary, backup',
        'primary.bootstrap.servers = 127.0.0.1:9',
        'backup.bootstrap.servers = 127.0.0.1:9',
        'primary->backup.enabled = true',
        'primary->backup.transforms = route, dropInternal',
        'primary->backup.transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter',
        'primary->backup.transforms.route.regex = primary\\\\.(.*)',
        'primary->backup.transforms.route.replacement = dr.$1',
        'primary->backup.transforms.dropInternal.type = org.apache.kafka.connect.transforms.Filter',
        'primary->backup.transforms.dropInternal.predicate = isInternal',
        'primary->backup.predicates = isInternal',
        'primary->backup.predicates.isInternal.type = org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
        'primary->backup.predicates.isInternal.name = internal',
        '',
      ].join('\n'),
    );
    const file = join(root, 'mm2.test.yaml');
    writeFileSync(
      file,
      `pipeline: mm2.properties
flow: primary->backup
tests:
  - name: renames as RegexRouter, drops as Filter with HasHeaderKey
    input:
      - { topic: orders, key: k1, value: v1 }
      - { topic: orders, key: k2, value: v2, headers: [{ key: internal, value: null }] }
    output:
      - { topic: dr.orders, key: k1, value: v1, headers: [] }
`,
    );
    const run = await mirrorflow(['test', file]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /1 tests: 1 passed, 0 failed/);
  });

  it("lists a pipeline's npm packages, a broken one with the reason", async () => {
    const dir = join(root, 'with-packages');
    installPluginPackages(dir);
    const pipeline = join(dir, 'pipeline.yaml');
    writeFileSync(pipeline, `plugins: ["${MASK_PACKAGE}", "${BROKEN_PACKAGE}", "@acme/not-installed"]\n`);
    const listed = await mirrorflow(['plugins', 'list', pipeline]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /mask_digits {2}\(npm package: @acme\/mirrorflow-mask\)\n {2}Replaces every ASCII digit/);
    assert.match(listed.stdout, /@acme\/mirrorflow-broken {2}\(npm package: @acme\/mirrorflow-broken\)\n {2}BROKEN: .*does not export a transform definition/);
    assert.match(listed.stdout, /@acme\/not-installed .*\n {2}BROKEN: \(npm package\) is not installed: no node_modules\/@acme\/not-installed in /);

    const validated = await mirrorflow(['validate', pipeline]);
    assert.equal(validated.code, 78);
    assert.match(validated.stderr, /plugins\[1\]/);
  });
});
