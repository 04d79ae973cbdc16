import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MirrorRecord, TransformContext } from '../../src/plugins/api';
import headerFromTopic, { contract } from './index';
import { assertPluginContract } from '../../src/plugins/test-support';

function context(counts = new Map<string, number>()): TransformContext {
  const logger: TransformContext['logger'] = { error() {}, warn() {}, info() {}, debug() {}, child: () => logger };
  return {
    flow: { source: 'primary', target: 'backup' },
    logger,
    metrics: { counter: (name) => ({ inc: (by = 1) => void counts.set(name, (counts.get(name) ?? 0) + by) }) },
  };
}

function transform(options: unknown, counts?: Map<string, number>) {
  return headerFromTopic.create(headerFromTopic.configSchema.parse(options), context(counts));
}

function issues(options: unknown): string[] {
  const result = headerFromTopic.configSchema.safeParse(options);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

function record(sourceTopic: string): MirrorRecord {
  return Object.freeze({
    source: Object.freeze({ topic: sourceTopic, partition: 0, offset: 3 }),
    topic: `primary.${sourceTopic}`,
    partition: 0,
    timestamp: 1,
    key: null,
    value: Buffer.from('v'),
    headers: Object.freeze([Object.freeze({ key: 'trace', value: null })]) as MirrorRecord['headers'],
  });
}

const added = (r: MirrorRecord | undefined) => r?.headers.map((h) => [h.key, h.value?.toString() ?? null]);

describe('header_from_topic', () => {
  it('adds the header from a named group of the match, after the headers already there', () => {
    const t = transform({ regex: '(?<region>[a-z]+)\\.orders', header: 'region', value: '${region}' });
    assert.deepEqual(added(t.apply(record('eu.orders'))), [
      ['trace', null],
      ['region', 'eu'],
    ]);
  });

  it('reads the regex as Java does: an inline (?i) flag and a \\Q…\\E quote, which JavaScript alone would refuse or misread', () => {
    const t = transform({ regex: '(?i)(\\w+)\\Q.orders\\E', header: 'region', value: 'from-$1' });
    assert.deepEqual(added(t.apply(record('US.ORDERS')))?.at(-1), ['region', 'from-US']);
    // \Q.orders\E quotes the dot: "usXorders" does not match.
    assert.deepEqual(added(t.apply(record('usXorders'))), [['trace', null]]);
  });

  it('matches the whole topic name, as Connect does: a topic that merely contains a match passes unchanged and is counted', () => {
    const counts = new Map<string, number>();
    const t = transform({ regex: '([a-z]+)\\.orders', header: 'region', value: '$1' }, counts);
    const r = record('eu.orders.v2');
    assert.equal(t.apply(r), r);
    assert.equal(counts.get('records_unmatched'), 1);
  });

  it('reports a bad regex or a replacement naming a missing group when the pipeline is validated', () => {
    assert.deepEqual(issues({ regex: '(a', header: 'h', value: 'x' }).length, 1);
    assert.match(issues({ regex: '(a', header: 'h', value: 'x' })[0]!, /^regex: Invalid regex: .*Java regexes/);
    assert.match(issues({ regex: 'a++', header: 'h', value: 'x' })[0]!, /^regex: Invalid regex: .*possessive/);
    assert.deepEqual(issues({ regex: '([a-z]+)\\.orders', header: 'h', value: '$2' }), ['value: Invalid value: the regex has no group 2 (it has 1)']);
  });
});

describe('header_from_topic and the plugin contract', () => {
  it('keeps it', () => assertPluginContract(headerFromTopic, contract));
});
