import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fullMatchRegex } from './full-match-regex';
import { JavaReplacement, regexGroups } from './java-replacement';

function replace(pattern: string, replacement: string, input: string): string {
  const regex = fullMatchRegex(pattern);
  const groups = regexGroups(regex);
  return JavaReplacement.parse(replacement, groups.count, groups.names).expand(regex.exec(input)!);
}

describe('JavaReplacement', () => {
  it('counts numbered and named groups', () => {
    assert.deepEqual(regexGroups(fullMatchRegex('(a)(?<b>b)(?:c)')), { count: 2, names: new Set(['b']) });
    assert.deepEqual(regexGroups(fullMatchRegex('abc')), { count: 0, names: new Set() });
  });

  it('expands groups and escapes as Matcher.replaceFirst does', () => {
    assert.equal(replace('(a)(b)', '$2$1', 'ab'), 'ba');
    assert.equal(replace('(?<x>a)b', '[${x}]', 'ab'), '[a]');
    assert.equal(replace('(a)', '\\$1 \\\\ \\x', 'a'), '$1 \\ x');
    assert.equal(replace('(a)', '$10', 'a'), 'a0');
    assert.equal(replace('(a)|(b)', '<$1|$2>', 'b'), '<|b>');
    assert.equal(replace('a', 'literal', 'a'), 'literal');
    assert.equal(replace('a', '', 'a'), '');
  });

  it('rejects what Java rejects', () => {
    const parse = (r: string) => () => JavaReplacement.parse(r, 1, new Set(['name']));
    assert.throws(parse('$'), /group index is missing/);
    assert.throws(parse('$x'), /must be followed by a group number/);
    assert.throws(parse('$2'), /no group 2/);
    assert.throws(parse('${other}'), /no group named "other"/);
    assert.throws(parse('${name'), /missing its closing/);
    assert.throws(parse('\\'), /to be escaped is missing/);
    assert.doesNotThrow(parse('${name}$1$0'));
  });
});
