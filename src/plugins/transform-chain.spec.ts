import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PluginError, RecordFailedError } from '../core/errors';
import type { Logger } from '../core/ports/logger';
import type { MirrorRecord, RecordFailure } from '../core/record';
import { defineTransform, z, type TransformMetrics } from './api';
import { builtInTransforms } from './builtins';
import { PluginRegistry } from './registry';
import { header, mirrorRecord } from './test-support';
import { buildTransformChain, validateTransformSteps, type TransformChainContext, type TransformStep } from './transform-chain';

const registry = new PluginRegistry(builtInTransforms);

const context: TransformChainContext = {
  flow: { source: 'primary', target: 'backup' },
  logger: { error() {}, warn() {}, info() {}, debug() {}, child: () => context.logger },
};

const step = (index: number, type: string, options: Record<string, unknown> = {}): TransformStep => ({
  type,
  options,
  path: `flows[0].transforms[${index}]`,
});

/** A transform that throws on records whose value is "boom". */
const explode = (error: unknown) =>
  defineTransform({
    name: 'explode',
    summary: 'Throws on a value of "boom".',
    configSchema: z.strictObject({}),
    create: () => ({
      apply(record) {
        if (record.value?.toString() === 'boom') throw error;
        return record;
      },
    }),
  });

describe('buildTransformChain', () => {
  it('with no steps returns the input array itself', () => {
    const chain = buildTransformChain([], registry, context);
    const records = [mirrorRecord()];
    assert.equal(chain(records), records);
  });

  it('runs every record through every step in order', () => {
    const chain = buildTransformChain(
      [
        step(0, 'insert_header', { header: 'a', value: '1' }),
        step(1, 'drop', { when: { has_header: 'secret' } }), // sees the header added by step 0
        step(2, 'insert_header', { header: 'b', value: '2' }),
        step(3, 'rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr.$1' }),
      ],
      registry,
      context,
    );
    const kept = mirrorRecord({ key: null, value: Buffer.alloc(0), headers: [header('x', null), header('x', '')] });
    const dropped = mirrorRecord({ headers: [header('secret', '1')], source: { topic: 'orders', partition: 3, offset: 43 } });
    const out = chain([kept, dropped]);
    assert.equal(out.length, 1);
    assert.deepEqual(out[0], {
      ...kept,
      topic: 'dr.orders',
      headers: [header('x', null), header('x', ''), header('a', '1'), header('b', '2')],
    });
    assert.deepEqual(kept.headers, [header('x', null), header('x', '')], 'the input record is unchanged');
  });

  it('stops at the step that drops a record', () => {
    const seen: number[] = [];
    const spy = defineTransform({
      name: 'spy',
      summary: 'Records the offsets it sees.',
      configSchema: z.strictObject({}),
      create: () => ({
        apply(record) {
          seen.push(record.source.offset);
          return record;
        },
      }),
    });
    const chain = buildTransformChain([step(0, 'drop', { when: { is_tombstone: true } }), step(1, 'spy')], registry.with(spy), context);
    const records = [0, 1, 2].map((offset) =>
      mirrorRecord({ value: offset === 1 ? null : Buffer.from('v'), source: { topic: 'orders', partition: 0, offset } }),
    );
    assert.deepEqual(
      chain(records).map((r) => r.source.offset),
      [0, 2],
    );
    assert.deepEqual(seen, [0, 2]);
    assert.deepEqual(chain([]), []);
  });

  it('reports a throwing transform with plugin, step and source position, never the record bytes', () => {
    const secretError = new SyntaxError('Unexpected token in JSON at "card=4111-1111"');
    const chain = buildTransformChain([step(0, 'drop_headers', { headers: ['x'] }), step(1, 'explode')], registry.with(explode(secretError)), context);
    const bad = mirrorRecord({ value: Buffer.from('boom'), source: { topic: 'payments', partition: 7, offset: 1234 } });
    assert.throws(
      () => chain([mirrorRecord(), bad]),
      (e: unknown) => {
        assert.ok(e instanceof RecordFailedError);
        assert.deepEqual(e.stage, { kind: 'transform', plugin: 'explode', step: 'flows[0].transforms[1]' });
        assert.deepEqual(e.source, { topic: 'payments', partition: 7, offset: 1234 });
        assert.match(e.message, /transform "explode" \(flows\[0\]\.transforms\[1\]\)/);
        assert.match(e.message, /topic "payments" partition 7 offset 1234/);
        assert.match(e.message, /SyntaxError/);
        assert.doesNotMatch(e.message, /4111|boom/);
        assert.equal(e.cause, secretError);
        return true;
      },
    );
  });

  it("shows a plugin's own PluginError message", () => {
    const chain = buildTransformChain([step(0, 'explode')], registry.with(explode(new PluginError('explode', 'field "id" is missing.'))), context);
    assert.throws(
      () => chain([mirrorRecord({ value: Buffer.from('boom') })]),
      (e: unknown) =>
        e instanceof RecordFailedError &&
        e.message === 'The record at topic "orders" partition 3 offset 42 failed in transform "explode" (flows[0].transforms[0]): field "id" is missing.',
    );
  });

  it('hands every failing record to the caller with its failure, and goes on with the next ones', () => {
    const chain = buildTransformChain(
      [step(0, 'insert_header', { header: 'seen', value: '1' }), step(1, 'explode')],
      registry.with(explode(new TypeError('x is not a function'))),
      context,
    );
    const values = ['a', 'boom', 'b', 'boom', 'c'];
    const records = values.map((v, offset) =>
      mirrorRecord({ value: Buffer.from(v), headers: [header('h', v)], source: { topic: 'orders', partition: 2, offset } }),
    );
    const failures: RecordFailure[] = [];
    const out = chain(records, failures);
    assert.deepEqual(
      out.map((r) => [r.source.offset, r.value?.toString()]),
      [
        [0, 'a'],
        [2, 'b'],
        [4, 'c'],
      ],
    );
    assert.deepEqual(
      failures.map((f) => [f.record.source.offset, f.error.stage, f.error.cause instanceof TypeError]),
      [
        [1, { kind: 'transform', plugin: 'explode', step: 'flows[0].transforms[1]' }, true],
        [3, { kind: 'transform', plugin: 'explode', step: 'flows[0].transforms[1]' }, true],
      ],
    );
    // The dead-letter topic gets the record as fetched, not as an earlier step left it.
    assert.equal(failures[0]!.record, records[1]);
    assert.deepEqual(failures[0]!.record.headers, [header('h', 'boom')]);
  });

  it('rejects a transform that returns something other than a record or undefined', () => {
    const returnsNull = defineTransform({
      name: 'returns_null',
      summary: 'Returns null.',
      configSchema: z.strictObject({}),
      create: () => ({ apply: () => null as unknown as MirrorRecord }),
    });
    const chain = buildTransformChain([step(0, 'returns_null')], registry.with(returnsNull), context);
    assert.throws(() => chain([mirrorRecord()]), /apply\(\) returned null; return a record, or undefined to drop it/);
  });

  it('rejects an unknown type, listing the known ones with a suggestion', () => {
    assert.throws(
      () => buildTransformChain([step(0, 'rename_topc', { regex: 'a', replacement: 'b' })], registry, context),
      (e: unknown) =>
        e instanceof PluginError &&
        e.plugin === 'rename_topc' &&
        /did you mean "rename_topic"\?/.test(e.message) &&
        /cast, drop, drop_headers, extract_field, flatten, header_from, hoist_field, insert_field, insert_header, mask_field, rename_topic, replace_field/.test(
          e.message,
        ),
    );
  });

  it('rejects invalid options with their paths', () => {
    assert.throws(
      () => buildTransformChain([step(2, 'drop', { when: { topic_matches: '(' } })], registry, context),
      (e: unknown) => e instanceof PluginError && e.plugin === 'drop' && /flows\[0\]\.transforms\[2\]\.when\.topic_matches/.test(e.message),
    );
  });

  it('gives each step the validated config, a labelled logger and its own metrics', () => {
    const labels: Record<string, unknown>[] = [];
    const metricSteps: { plugin: string; path: string }[] = [];
    let received: unknown;
    const logger: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: (meta) => (labels.push(meta), logger) };
    const metrics: TransformMetrics = { counter: () => ({ inc() {} }) };
    const probe = defineTransform({
      name: 'probe',
      summary: 'Captures its config.',
      configSchema: z.strictObject({ size: z.number().default(3) }),
      create(config, ctx) {
        received = config;
        ctx.metrics.counter('probed', 'Records probed.').inc();
        assert.deepEqual(ctx.flow, { source: 'primary', target: 'backup' });
        return { apply: (record) => record };
      },
    });
    buildTransformChain([step(5, 'probe')], registry.with(probe), {
      ...context,
      logger,
      metrics: (s) => (metricSteps.push({ ...s }), metrics),
    });
    assert.deepEqual(received, { size: 3 });
    assert.deepEqual(labels, [{ transform: 'probe', step: 'flows[0].transforms[5]' }]);
    assert.deepEqual(metricSteps, [{ plugin: 'probe', path: 'flows[0].transforms[5]' }]);
  });

  it('reports a create() that throws, naming the step', () => {
    const failing = defineTransform({
      name: 'failing',
      summary: 'Cannot be created.',
      configSchema: z.strictObject({}),
      create: () => {
        throw new Error('no key file');
      },
    });
    assert.throws(
      () => buildTransformChain([step(0, 'failing')], registry.with(failing), context),
      (e: unknown) => e instanceof PluginError && e.message === 'Plugin "failing": could not be created at flows[0].transforms[0]: no key file',
    );
  });
});

describe('buildTransformChain with field-level steps', () => {
  const converters = { key: 'json', value: 'json' } as const;

  it('reads and writes only the side a step works on: the key keeps its bytes', () => {
    const chain = buildTransformChain([step(0, 'hoist_field', { field: 'v' }), step(1, 'insert_header', { header: 'h', value: 'x' })], registry, {
      ...context,
      converters,
    });
    const key = Buffer.from('{ "not" : "rewritten" }');
    const [out] = chain([mirrorRecord({ key, value: Buffer.from(' 1 ') })]);
    assert.equal(out!.key, key);
    assert.equal(out!.value!.toString(), '{"v":1}');
    assert.equal(out!.headers.length, 1);
  });

  it('fails a record that is not JSON without quoting it, naming the step', () => {
    const chain = buildTransformChain([step(0, 'hoist_field', { field: 'v' })], registry, { ...context, converters });
    const failures: RecordFailure[] = [];
    assert.deepEqual(chain([mirrorRecord({ value: Buffer.from('secret-ish') })], failures), []);
    assert.match(failures[0]!.error.message, /hoist_field.*flows\[0\]\.transforms\[0\].*not JSON \(unexpected character at character 1\)/);
    assert.doesNotMatch(failures[0]!.error.message, /secret/);
  });
});

describe('validateTransformSteps', () => {
  it('returns nothing for valid steps', () => {
    assert.deepEqual(validateTransformSteps([step(0, 'drop', { when: { is_tombstone: true } })], registry), []);
  });

  it('reports every problem in every step, under the step path', () => {
    const issues = validateTransformSteps(
      [
        step(0, 'RegexRouter', { regex: 'a', replacement: 'b' }),
        step(1, 'insert_header', { header: 'h', valeu: 'x' }),
        step(2, 'drop_headers', { headers: ['ok', 7] }),
        step(3, 'rename_topic', { regex: 'a(b)', replacement: '$2' }),
        step(4, 'drop', { when: { topic_matches: 'ok' } }),
      ],
      registry,
    );
    assert.deepEqual(issues, [
      {
        path: 'flows[0].transforms[0].type',
        message: 'Unknown transform type "RegexRouter"',
        hint: 'did you mean "rename_topic"? known types: cast, drop, drop_headers, extract_field, flatten, header_from, hoist_field, insert_field, insert_header, mask_field, rename_topic, replace_field, route_by_timestamp, set_schema_metadata, timestamp_converter, value_to_key',
      },
      {
        path: 'flows[0].transforms[1].valeu',
        message: 'Unknown option "valeu" for transform "insert_header"',
        hint: 'did you mean "value"?',
      },
      { path: 'flows[0].transforms[1].value', message: 'Give exactly one of value and value_base64' },
      { path: 'flows[0].transforms[2].headers[1]', message: 'Invalid input: expected string, received number' },
      { path: 'flows[0].transforms[3].replacement', message: 'Invalid replacement: the regex has no group 2 (it has 1)' },
    ]);
  });

  it('reports a step whose create() refuses options its schema passed, as building the chain would', () => {
    const picky = defineTransform({
      name: 'picky',
      summary: 'Refuses a prefix of x in create().',
      configSchema: z.strictObject({ prefix: z.string() }),
      create(config) {
        if (config.prefix.startsWith('x')) throw new PluginError('picky', 'a prefix may not start with x');
        return { apply: (record) => record };
      },
    });
    const withPicky = new PluginRegistry([...builtInTransforms, picky]);
    assert.deepEqual(validateTransformSteps([step(0, 'picky', { prefix: 'ok' }), step(1, 'picky', { prefix: 'xy' })], withPicky), [
      { path: 'flows[0].transforms[1]', message: 'transform "picky" refuses these options: a prefix may not start with x' },
    ]);
  });

  it('suggests built-ins for Connect class names from mm2.properties', () => {
    const [issue] = validateTransformSteps([step(0, 'org.apache.kafka.connect.transforms.DropHeaders')], registry);
    assert.match(issue!.hint!, /did you mean "drop_headers"/);
  });

  it('refuses a field-level step on a side the flow copies as bytes, saying which converter it needs', () => {
    const steps = [step(0, 'insert_field', { static_field: 'a', static_value: 'b' }), step(1, 'cast', { on: 'key', spec: ['int32'] })];
    assert.deepEqual(validateTransformSteps(steps, registry), [
      {
        path: 'flows[0].transforms[0].type',
        message: `Transform "insert_field" (Connect's InsertField) reads fields of the record's value, which the flow copies as bytes: it needs a converter`,
        hint: "set flows[0].converter.value to json (plain JSON), json_envelope (JSON in Connect's {schema, payload} envelope) or string; in mm2.properties, value.converter = org.apache.kafka.connect.json.JsonConverter (with value.converter.schemas.enable = false for plain JSON)",
      },
      {
        path: 'flows[0].transforms[1].type',
        message: `Transform "cast" (Connect's Cast) reads fields of the record's key, which the flow copies as bytes: it needs a converter`,
        hint: "set flows[0].converter.key to json (plain JSON), json_envelope (JSON in Connect's {schema, payload} envelope) or string; in mm2.properties, key.converter = org.apache.kafka.connect.json.JsonConverter (with key.converter.schemas.enable = false for plain JSON)",
      },
    ]);
    assert.deepEqual(validateTransformSteps(steps, registry, { key: 'string', value: 'json' }), []);
    assert.throws(() => buildTransformChain(steps, registry, context), /needs a converter/);
  });

  it('lists the options when an unknown one resembles none', () => {
    const [issue] = validateTransformSteps([step(0, 'drop_headers', { headers: ['a'], something_else: true })], registry);
    assert.equal(issue!.hint, 'options are: headers, negate, when');
  });
});
