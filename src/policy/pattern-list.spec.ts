import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidPatternError, compilePatternList, patternCompilations, patternListProblems, patternListShape } from './pattern-list';

/** Asserts `patterns` (as MM2 joins and full-matches them) accept and reject names as Java does. */
function expectMatches(patterns: readonly string[], expected: Readonly<Record<string, boolean>>): void {
  const list = compilePatternList(patterns);
  for (const [name, want] of Object.entries(expected)) {
    assert.equal(list.matches(name), want, `${JSON.stringify(patterns)} on ${JSON.stringify(name)}`);
  }
}

// Every expectation below was produced by Kafka 4.3.1's MirrorUtils.compilePatternList + matches()
// (Java 17 java.util.regex), unless marked as a deliberate difference.
describe('compilePatternList', () => {
  it('full-matches and joins entries with |', () => {
    expectMatches(['.*'], { '': true, a: true, 'a\nb': false });
    expectMatches(['topic1'], { topic1: true, topic12: false, xtopic1: false });
    expectMatches(['a|b'], { a: true, b: true, ab: false });
    expectMatches(['a', 'b'], { a: true, b: true, ab: false, c: false });
  });

  it('matches nothing for an empty list', () => {
    const list = compilePatternList([]);
    assert.equal(list.matches(''), false);
    assert.equal(list.matches('anything'), false);
  });

  it('applies the MM2 4.x topics.exclude default', () => {
    expectMatches(['mm2.*\\.internal', '.*\\.replica', '__.*'], {
      'mm2-offsets.A.internal': true,
      'foo.internal': false,
      'foo-internal': false,
      'a.replica': true,
      __x: true,
      _x: false,
      'mm2.internal': true,
      'mm2\n.internal': false,
    });
  });

  it('turns a leading (?i) into case-insensitivity for that entry and every later one, as in the joined Java pattern', () => {
    expectMatches(['a', '(?i)b', 'c'], { a: true, A: false, b: true, B: true, c: true, C: true });
    expectMatches(['(?i)a', 'b'], { A: true, B: true });
    expectMatches(['(?i)a', '(?-i)b', 'c'], { A: true, b: true, B: false, C: false });
  });

  it('translates Java-only syntax', () => {
    expectMatches(['\\Qa.b\\E', 'x\\Qy*'], { 'a.b': true, axb: false, 'xy*': true, xyy: false });
    expectMatches(['\\_x', '\\#y', '[\\-\\.]z'], { _x: true, '#y': true, '-z': true, '.z': true });
    expectMatches(['a$'], { a: true, 'a\n': false });
    expectMatches(['.*\\z', '\\Ab'], { q: true, b: true });
    expectMatches(['\\p{Lower}+'], { abc: true, 'p{Lower}': false, ABC: false });
    expectMatches(['\\x41\\u0042\\0103\\t'], { 'ABC\t': true });
    expectMatches(['[]a]'], { ']': true, a: true });
    expectMatches(['[^]a]'], { b: true, ']': false });
    expectMatches(['[\\w-a]'], { '-': true, a: true });
    expectMatches(['\\ca'], { '!': true, '\u0001': false });
    expectMatches(['\\cA'], { '\u0001': true, A: false });
    expectMatches(['a\\sb'], { 'a\u00a0b': false, 'a b': true });
    expectMatches(['a}'], { 'a}': true, a: false });
    expectMatches(['a]'], { 'a]': true, a: false });
    expectMatches(['\\p{Alpha}+'], { abc: true, ab1: false });
    expectMatches(['\\p{L}+'], { äb: true, a1: false });
    expectMatches(['\\p{IsLatin}+'], { ab: true, '1': false });
    expectMatches(['\\p{IsAlphabetic}+'], { ab: true, '1': false });
    expectMatches(['\\w+'], { ab_1: true, é: false });
    expectMatches(['\\0101'], { A: true, '0': false });
    expectMatches(['\\x{1F600}'], { '\u{1F600}': true, x: false });
    expectMatches(['\\Z'], { '': true, '\n': false });
    expectMatches(['#a'], { '#a': true, a: false });
    expectMatches(['\\v'], { '\u000b': true, '\n': true });
    expectMatches(['\\h'], { ' ': true, '\t': true });
    expectMatches(['\\-a'], { '-a': true, a: false });
    expectMatches(['[\\Q]\\E]'], { ']': true, Q: false });
    expectMatches(['\\Qa'], { a: true, Q: false });
    expectMatches(['a|'], { '': true, a: true });
    expectMatches(['(?<n>a)\\k<n>'], { aa: true, a: false });
  });

  it('stops . at every Java line terminator and treats a surrogate pair as one character', () => {
    expectMatches(['a.c'], { 'a\nc': false, 'a\rc': false, 'a\u0085c': false, 'a\u2028c': false, abc: true, 'a\u{1F600}c': true });
    expectMatches(['(?s)a.c'], { 'a\nc': true });
  });

  it('names the invalid entry by index and text', () => {
    assert.throws(
      () => compilePatternList(['ok', 'also-ok', 'bad(']),
      (e: unknown) =>
        e instanceof InvalidPatternError &&
        e.index === 2 &&
        e.pattern === 'bad(' &&
        e.message.startsWith('Invalid regex at index 2 ("bad("): ') &&
        !e.retriable,
    );
  });

  it('rejects what Java rejects', () => {
    for (const bad of ['(', '*a', 'a{', '[', '\\', 'a)', '\\y', 'a**', 'a{2,1}', 'a\\E', '[\\b]', 'a{,2}']) {
      assert.throws(() => compilePatternList([bad]), InvalidPatternError, bad);
    }
  });

  it('rejects Java constructs it cannot translate, with a reason (deliberate differences from Java)', () => {
    const reason = (p: string) => {
      try {
        compilePatternList([p]);
      } catch (e) {
        if (e instanceof InvalidPatternError) return e.reason;
      }
      return 'accepted';
    };
    assert.match(reason('x{2}+'), /possessive/);
    assert.match(reason('a*+'), /possessive/);
    assert.match(reason('(?>a)'), /atomic/);
    assert.match(reason('a(?i)b'), /inline flags/);
    assert.match(reason('(?i:a)b'), /inline flags/);
    assert.match(reason('(?x)a'), /inline flag \(\?x\)/);
    assert.match(reason('[a-c&&b]'), /intersection/);
    assert.match(reason('[a[b]]'), /nested/);
    assert.match(reason('\\p{InGreek}'), /blocks/);
    assert.match(reason('\\p{javaLowerCase}'), /not supported/);
    assert.match(reason('\\G'), /not supported/);
  });

  it('requires each entry to be valid alone (Java would accept "a(b","c)d" joined)', () => {
    assert.throws(
      () => compilePatternList(['a(b', 'c)d']),
      (e: unknown) => e instanceof InvalidPatternError && e.index === 0,
    );
  });

  it('reports clashes between entries, such as a repeated group name, against the later entry', () => {
    assert.throws(
      () => compilePatternList(['(?<n>a)', '(?<n>b)']),
      (e: unknown) => e instanceof InvalidPatternError && e.index === 1,
    );
  });

  it('lists every invalid entry for config validation', () => {
    const problems = patternListProblems(['(', 'fine', '*x', '[']);
    assert.deepEqual(
      problems.map((p) => [p.index, p.pattern]),
      [
        [0, '('],
        [2, '*x'],
        [3, '['],
      ],
    );
    assert.deepEqual(patternListProblems(['.*', 'a|b']), []);
  });
});

// Issue 42 item 3: MM2 files list topics one by one, and this runs at every start and topic refresh.
describe('compilePatternList on long lists', () => {
  const names = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i));

  it('looks literal names up in a set and compiles no regex for them', () => {
    const before = patternCompilations();
    const list = compilePatternList(names(25_000, (i) => `orders-topic-${i}`));
    assert.equal(patternCompilations() - before, 0);
    assert.deepEqual(patternListShape(list), { literals: 25_000, wildcards: 0, regexEntries: 0, regexes: 0 });
    assert.equal(list.matches('orders-topic-24999'), true);
    assert.equal(list.matches('orders-topic-25000'), false);
  });

  it('keeps names with `.` (any character) in a trie, not a regex', () => {
    const before = patternCompilations();
    const list = compilePatternList(names(25_000, (i) => `orders.topic-${i}`));
    assert.equal(patternCompilations() - before, 0);
    assert.deepEqual(patternListShape(list), { literals: 0, wildcards: 25_000, regexEntries: 0, regexes: 0 });
    assert.equal(list.matches('orders.topic-7'), true);
    assert.equal(list.matches('orders_topic-7'), true);
    assert.equal(list.matches('orders\ntopic-7'), false);
    assert.equal(list.matches('orders.topic-'), false);
  });

  it('compiles each regex entry once alone and once joined: linear in the number of entries', () => {
    for (const n of [100, 1_000, 4_000]) {
      const before = patternCompilations();
      const list = compilePatternList(names(n, (i) => (i % 2 === 0 ? `logs-${i}-.*` : `metrics-${i}`)));
      assert.equal(patternCompilations() - before, n / 2 + 1, `${n} entries`);
      assert.deepEqual(patternListShape(list), { literals: n / 2, wildcards: 0, regexEntries: n / 2, regexes: 1 });
      assert.equal(list.matches(`logs-0-x`), true);
      assert.equal(list.matches(`metrics-${n - 1}`), true);
    }
  });

  it('keeps case-insensitive entries in their own regex, and literals after a (?i) with it', () => {
    const list = compilePatternList(['a.b', 'plain', '(?i)x', 'later', '(?-i)after', 'y\\.z']);
    assert.deepEqual(patternListShape(list), { literals: 2, wildcards: 1, regexEntries: 3, regexes: 2 });
    const expected: Record<string, boolean> = {
      axb: true,
      plain: true,
      PLAIN: false,
      X: true,
      LATER: true,
      after: true,
      AFTER: false,
      'y.z': true,
      yxz: false,
    };
    for (const [name, want] of Object.entries(expected)) assert.equal(list.matches(name), want, name);
  });

  it('matches as the regex of the same entries does', () => {
    const entries = ['a.c', 'a\\.c', 'a\\-c', 'ab', '', 'x..y', '\u{1F600}', 'é.', 'a\\#', '.', 'a.c'];
    const names = ['abc', 'a.c', 'a-c', 'ab', '', 'xaby', 'x\u{1F600}\u{1F600}y', 'éa', 'é\n', 'a#', 'q', '\u2028', 'a\u{1F600}c'];
    for (const entry of entries) {
      const fast = compilePatternList([entry]);
      // A group around the entry keeps it off the fast path without changing what it matches.
      const slow = compilePatternList([`(?:${entry})`]);
      assert.equal(patternListShape(slow)?.regexEntries, 1);
      for (const name of names) assert.equal(fast.matches(name), slow.matches(name), `${JSON.stringify(entry)} on ${JSON.stringify(name)}`);
    }
  });

  it('reports a clash between joined entries only when the joined regex fails', () => {
    const problems = patternListProblems(['(?<n>a)', 'lit', '(?<n>b)', '(?<n>c)']);
    assert.deepEqual(
      problems.map((p) => p.index),
      [2, 3],
    );
  });
});
