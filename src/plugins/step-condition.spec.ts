import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtInTransforms } from './builtins';
import { PluginRegistry } from './registry';
import { header, mirrorRecord } from './test-support';
import { buildTransformChain, validateTransformSteps, type TransformChainContext, type TransformStep } from './transform-chain';

const registry = new PluginRegistry(builtInTransforms);
const context: TransformChainContext = {
  flow: { source: 'primary', target: 'backup' },
  logger: { error() {}, warn() {}, info() {}, debug() {}, child: () => context.logger },
};
const json: TransformChainContext = { ...context, converters: { key: 'json', value: 'json' } };
const step = (index: number, type: string, options: Record<string, unknown> = {}): TransformStep => ({ type, options, path: `flows[0].transforms[${index}]` });
const text = (b: Buffer | null) => (b === null ? null : b.toString('utf8'));

describe('when / negate on any step', () => {
  it('rename_topic on topic_matches renames only the matching topics; the others pass as the same record', () => {
    const chain = buildTransformChain(
      [step(0, 'rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr.$1', when: { topic_matches: 'primary\\.orders-.*' } })],
      registry,
      context,
    );
    const other = mirrorRecord({ topic: 'primary.users' });
    const [renamed, kept] = chain([mirrorRecord({ topic: 'primary.orders-eu' }), other]);
    assert.equal(renamed!.topic, 'dr.orders-eu');
    assert.equal(kept, other);
  });

  it('insert_header with a negated has_header adds the header only where it is missing', () => {
    const chain = buildTransformChain(
      [step(0, 'insert_header', { header: 'region', value: 'eu', when: { has_header: 'region' }, negate: true })],
      registry,
      context,
    );
    const tagged = mirrorRecord({ headers: [header('region', 'us')] });
    const [first, second] = chain([tagged, mirrorRecord({ headers: [header('x', null)] })]);
    assert.equal(first, tagged);
    assert.deepEqual(second!.headers, [header('x', null), header('region', 'eu')]);
  });

  it('a field-level step (value_to_key) negated on is_tombstone leaves tombstones alone instead of failing them', () => {
    const chain = buildTransformChain([step(0, 'value_to_key', { fields: ['id'], when: { is_tombstone: true }, negate: true })], registry, json);
    const tombstone = mirrorRecord({ key: Buffer.from('"k"'), value: null });
    const out = chain([mirrorRecord({ key: null, value: Buffer.from('{"id":7,"x":1}') }), tombstone]);
    assert.deepEqual(
      out.map((r) => [text(r.key), text(r.value)]),
      [
        ['{"id":7}', '{"x":1,"id":7}'],
        ['"k"', null],
      ],
    );
    // Without the condition Connect's ValueToKey fails the tombstone, and so does the built-in.
    assert.throws(() => buildTransformChain([step(0, 'value_to_key', { fields: ['id'] })], registry, json)([tombstone]), /Only Map objects supported/);
  });

  it('on a field-level step, is_tombstone reads the value as the converter does: a JSON null is a tombstone (written back as one, as Connect does)', () => {
    const chain = buildTransformChain([step(0, 'insert_field', { static_field: 'f', static_value: 'v', when: { is_tombstone: false } })], registry, json);
    const out = chain([mirrorRecord({ value: Buffer.from('null') }), mirrorRecord({ value: Buffer.from('{}') })]);
    assert.deepEqual(
      out.map((r) => text(r.value)),
      [null, '{"f":"v"}'],
    );
  });

  it('tests the record as the earlier steps left it, also inside a run of field-level steps', () => {
    const chain = buildTransformChain(
      [
        step(0, 'rename_topic', { regex: 'primary\\.(.*)', replacement: 'dr.$1' }),
        step(1, 'extract_field', { field: 'inner' }),
        step(2, 'insert_field', { static_field: 'seen', static_value: 'yes', when: { topic_matches: 'dr\\..*', is_tombstone: false } }),
      ],
      registry,
      json,
    );
    const out = chain([
      mirrorRecord({ topic: 'primary.a', value: Buffer.from('{"inner":{"a":1}}') }),
      mirrorRecord({ topic: 'primary.b', value: Buffer.from('{"inner":null}') }),
    ]);
    assert.deepEqual(
      out.map((r) => [r.topic, text(r.value)]),
      [
        ['dr.a', '{"a":1,"seen":"yes"}'],
        ['dr.b', null],
      ],
    );
  });

  it('drop: with when, the records where every condition holds; negated, the others; without, all', () => {
    const run = (options: Record<string, unknown>, records: ReturnType<typeof mirrorRecord>[]) =>
      buildTransformChain([step(0, 'drop', options)], registry, context)(records);
    const both = mirrorRecord({ topic: 'primary.audit-log', headers: [header('internal', null)] });
    const topicOnly = mirrorRecord({ topic: 'primary.audit-log' });
    assert.deepEqual(run({ when: { topic_matches: 'primary\\.audit-.*', has_header: 'internal' } }, [both, topicOnly]), [topicOnly]);
    assert.deepEqual(run({ when: { has_header: 'internal' }, negate: true }, [both, topicOnly]), [both]);
    const tombstone = mirrorRecord({ value: null });
    const empty = mirrorRecord({ value: Buffer.alloc(0) });
    assert.deepEqual(run({ when: { is_tombstone: true } }, [tombstone, empty]), [empty]);
    assert.deepEqual(run({ when: { is_tombstone: false } }, [tombstone, empty]), [tombstone]);
    assert.deepEqual(run({}, [tombstone, empty]), []);
  });

  it('is checked with the step: negate without when, an empty or unknown condition, each at its path', () => {
    assert.deepEqual(
      validateTransformSteps(
        [
          step(0, 'insert_header', { header: 'h', value: 'v', negate: true }),
          step(1, 'drop', { when: {} }),
          step(2, 'rename_topic', { regex: 'a', replacement: 'b', when: { topic: 'x' } }),
          step(3, 'drop_headers', { headers: ['h'], when: { topic_matches: '(' } }),
          step(4, 'drop_headers', { headers: ['h'], when: { has_header: 'h' }, negate: false }),
        ],
        registry,
      ).map((issue) => `${issue.path}: ${issue.message}`),
      [
        'flows[0].transforms[0].negate: negate needs a condition under `when` to negate',
        'flows[0].transforms[1].when: Give at least one condition: topic_matches, has_header or is_tombstone',
        'flows[0].transforms[2].when: Unrecognized key: "topic"',
        'flows[0].transforms[2].when: Give at least one condition: topic_matches, has_header or is_tombstone',
        'flows[0].transforms[3].when.topic_matches: Invalid regex: Invalid regular expression: /(/u: Unterminated group (patterns are Java regexes, as in Kafka Connect)',
      ],
    );
  });

  it('names when and negate among the options of a step with an unknown one', () => {
    const [issue] = validateTransformSteps([step(0, 'insert_header', { header: 'h', value: 'v', wehn: { has_header: 'x' } })], registry);
    assert.equal(issue?.hint, 'did you mean "when"?');
  });
});
