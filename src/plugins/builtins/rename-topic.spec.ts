import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PluginError } from '../../core/errors';
import { frozen, header, instantiate, mirrorRecord, optionIssues } from '../test-support';
import { renameTopic } from './rename-topic';

const renamed = (options: unknown, topic: string) => instantiate(renameTopic, options).apply(mirrorRecord({ topic }))!.topic;

describe('rename_topic', () => {
  it('rewrites the target topic with Java group references', () => {
    assert.equal(renamed({ regex: 'primary\\.(.*)', replacement: 'dr-$1' }, 'primary.orders'), 'dr-orders');
    assert.equal(renamed({ regex: '(?<src>[^.]+)\\.(.*)', replacement: '$2.from-${src}' }, 'primary.orders'), 'orders.from-primary');
    assert.equal(renamed({ regex: '.*', replacement: '$0-copy' }, 'orders'), 'orders-copy');
  });

  it('needs the regex to match the whole topic, like RegexRouter', () => {
    // A substring match would turn "primary.orders" into "dr.orders" under JS replace semantics.
    assert.equal(renamed({ regex: 'primary', replacement: 'dr' }, 'primary.orders'), 'primary.orders');
  });

  it("replaces the first match from the start and keeps the rest, as RegexRouter's replaceFirst does", () => {
    // matches() holds for the whole name, then find() prefers the first alternative / the lazy match.
    assert.equal(renamed({ regex: 'a|ab', replacement: 'x' }, 'ab'), 'xb');
    assert.equal(renamed({ regex: '(.*?)', replacement: '$1-x' }, 'orders'), '-xorders');
    assert.equal(renamed({ regex: '(.*?)\\.(.*)', replacement: '$2' }, 'a.b.c'), 'b.c');
    assert.equal(renamed({ regex: '(?i)P|primary\\..*', replacement: 'dr' }, 'primary.orders'), 'drrimary.orders');
  });

  it('leaves non-matching records as the same object, and changes nothing but the topic', () => {
    const t = instantiate(renameTopic, { regex: 'primary\\.(.*)', replacement: '$1' });
    const other = mirrorRecord({ topic: 'other' });
    assert.equal(t.apply(other), other);
    const input = frozen(mirrorRecord({ key: null, value: Buffer.alloc(0), headers: [header('h', '1'), header('h', '2')] }));
    const out = t.apply(input)!;
    assert.deepEqual(out, { ...input, topic: 'orders' });
    assert.equal(input.topic, 'primary.orders');
  });

  it('follows Java replacement rules: multi-digit groups only while they exist, \\ escapes, unmatched groups are empty', () => {
    assert.equal(renamed({ regex: '(a)', replacement: '$10' }, 'a'), 'a0');
    const eleven = '(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)';
    assert.equal(renamed({ regex: eleven, replacement: '$11' }, 'abcdefghijk'), 'k');
    assert.equal(renamed({ regex: '(.*)', replacement: '\\_$1' }, 't'), '_t');
    assert.equal(renamed({ regex: '(x)?(.*)', replacement: 'p$1$2' }, 'orders'), 'porders');
  });

  it('rejects a replacement Java would reject, at config time', () => {
    assert.deepEqual(optionIssues(renameTopic, { regex: 'a(b)', replacement: '$2' }), [
      'replacement: Invalid replacement: the regex has no group 2 (it has 1)',
    ]);
    assert.equal(optionIssues(renameTopic, { regex: 'a', replacement: 'x$' }).length, 1);
    assert.equal(optionIssues(renameTopic, { regex: 'a', replacement: 'x$y' }).length, 1);
    assert.equal(optionIssues(renameTopic, { regex: 'a', replacement: '${nope}' }).length, 1);
    assert.equal(optionIssues(renameTopic, { regex: 'a', replacement: 'x\\' }).length, 1);
  });

  it('rejects invalid regexes and Java syntax JavaScript cannot mean the same way, instead of changing their meaning', () => {
    for (const regex of ['(', 'a)|(b', 'a*+', '(?>a)', 'a(?i)b']) {
      const issues = optionIssues(renameTopic, { regex, replacement: 'x' });
      assert.equal(issues.length, 1, regex);
      assert.match(issues[0]!, /^regex: Invalid regex/);
    }
  });

  it('reads the regex as Java does, as the topic filters do: inline flags, quoting, anchors', () => {
    const rename = (regex: string, topic: string) => instantiate(renameTopic, { regex, replacement: 'x.$1' }).apply(mirrorRecord({ topic }))!.topic;
    assert.equal(rename('(?i)primary\\.(orders)', 'PRIMARY.Orders'), 'x.Orders');
    assert.equal(rename('\\Qa.b\\E(.*)', 'a.b-1'), 'x.-1');
    assert.equal(rename('\\Qa.b\\E(.*)', 'aXb-1'), 'aXb-1', 'the quoted dot is literal');
    assert.equal(rename('\\A(orders)\\z', 'orders'), 'x.orders');
  });

  it('throws a PluginError when the new name is not a legal topic name', () => {
    const t = instantiate(renameTopic, { regex: '(.*)', replacement: '$1/bad' });
    assert.throws(
      () => t.apply(mirrorRecord()),
      (e: unknown) => e instanceof PluginError && /not a legal Kafka topic name/.test(e.message),
    );
    const empty = instantiate(renameTopic, { regex: 'orders', replacement: '' });
    assert.throws(() => empty.apply(mirrorRecord({ topic: 'orders' })), PluginError);
  });

  it('gives the same answer for a topic seen again (cached)', () => {
    const t = instantiate(renameTopic, { regex: 'primary\\.(.*)', replacement: 'dr.$1' });
    for (let i = 0; i < 3; i++) assert.equal(t.apply(mirrorRecord({ topic: 'primary.orders' }))!.topic, 'dr.orders');
    assert.equal(t.apply(mirrorRecord({ topic: 'primary.users' }))!.topic, 'dr.users');
  });
});
