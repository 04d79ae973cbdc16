/**
 * MM2's regex lists (`topics`, `topics.exclude`, `groups`, `config.properties.exclude`, …):
 * `MirrorUtils.compilePatternList` joins the list with `|` into one Java regex and tests names
 * with `matches()`, a full match. An empty list compiles to null, which matches nothing.
 *
 * Here each entry is translated from Java syntax on its own (so an error can name the entry),
 * then consecutive entries with the same case flag are joined into one anchored JS regex. A
 * leading `(?i)` in entry k makes entries k, k+1, … case-insensitive, as it does in Java's joined
 * pattern. Unlike Java, an entry must be a valid regex by itself (Java would accept `a(b` + `c)d`).
 */
import { MirrorflowError } from '../core/errors';
import { NO_JAVA_FLAGS, translateJavaRegex, type JavaRegexFlags } from '../core/java-regex';

/** One entry of a regex list is invalid; `index` is zero-based, as in a config path `topics[2]`. */
export class InvalidPatternError extends MirrorflowError {
  override readonly name = 'InvalidPatternError';
  override readonly code = 'PATTERN_INVALID';

  constructor(
    readonly index: number,
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`Invalid regex at index ${index} (${JSON.stringify(pattern)}): ${reason}`);
  }
}

/** A compiled regex list: does a name fully match any entry? */
export interface PatternList {
  readonly patterns: readonly string[];
  matches(name: string): boolean;
}

/**
 * How a list was compiled, for tests that prove the work is linear: entries that are literal
 * names go into a set (or, with `.` wildcards, a trie); the rest into at most one regex per case
 * flag, each compiled once (plus once per entry alone, to name a bad one).
 */
export interface PatternListShape {
  /** Entries looked up in a set: plain names, `\.` escapes allowed. */
  readonly literals: number;
  /** Entries whose only regex syntax is `.`, walked in a trie. */
  readonly wildcards: number;
  /** Entries left to a regex. */
  readonly regexEntries: number;
  /** Joined regexes that `matches` tests (0, 1 or 2). */
  readonly regexes: number;
}

let compilations = 0;
/** How many `RegExp`s this module has compiled so far (tests compare it before and after). */
export function patternCompilations(): number {
  return compilations;
}

const shapes = new WeakMap<PatternList, PatternListShape>();
/** The shape of a list returned by `compilePatternList`. */
export function patternListShape(list: PatternList): PatternListShape | undefined {
  return shapes.get(list);
}

/** Compiles a regex list; throws `InvalidPatternError` for the first invalid entry. */
export function compilePatternList(patterns: readonly string[]): PatternList {
  const compiled = analyze(patterns);
  if (compiled.problems.length > 0) throw compiled.problems[0]!;
  const { literals, trie, regexes } = compiled;
  const frozen = Object.freeze([...patterns]);
  const list: PatternList = {
    patterns: frozen,
    matches: (name) => literals.has(name) || (trie !== undefined && trie.matches(name)) || regexes.some((r) => r.test(name)),
  };
  shapes.set(list, compiled.shape);
  return list;
}

/** Every invalid entry, without throwing: for config validation that reports all problems at once. */
export function patternListProblems(patterns: readonly string[]): InvalidPatternError[] {
  return analyze(patterns).problems;
}

interface Analyzed {
  readonly literals: Set<string>;
  readonly trie: WildcardTrie | undefined;
  readonly regexes: RegExp[];
  readonly problems: InvalidPatternError[];
  readonly shape: PatternListShape;
}

/**
 * One pass over the entries. A name matches the joined Java pattern when it fully matches any
 * entry, so the order of the entries only matters for the inline flags a leading `(?i)`/`(?s)`
 * hands on to later entries: each entry is read with the flags in effect at it, and then literal
 * names, `.`-wildcard names and regexes (by case flag) are kept apart.
 */
function analyze(patterns: readonly string[]): Analyzed {
  const literals = new Set<string>();
  let trie: WildcardTrie | undefined;
  const sources: Record<'cs' | 'ci', { source: string; index: number }[]> = { cs: [], ci: [] };
  const problems: InvalidPatternError[] = [];
  let wildcards = 0;
  let literalEntries = 0;
  let flags: JavaRegexFlags = NO_JAVA_FLAGS;
  patterns.forEach((pattern, index) => {
    const plain = !flags.caseInsensitive ? literalPattern(pattern) : undefined;
    if (plain !== undefined && (!plain.wildcard || !flags.dotAll)) {
      if (plain.wildcard) {
        (trie ??= new WildcardTrie()).add(plain.parts);
        wildcards += 1;
      } else {
        literals.add(plain.parts.join(''));
        literalEntries += 1;
      }
      return;
    }
    try {
      const translated = translateJavaRegex(pattern, flags);
      flags = translated.flags;
      // Alone first, so that an error names this entry.
      compile([translated.source], flags.caseInsensitive);
      sources[flags.caseInsensitive ? 'ci' : 'cs'].push({ source: translated.source, index });
    } catch (error) {
      problems.push(new InvalidPatternError(index, pattern, reasonOf(error)));
    }
  });
  const regexes: RegExp[] = [];
  for (const key of ['cs', 'ci'] as const) {
    const joined = joinOnce(sources[key], key === 'ci', patterns, problems);
    if (joined) regexes.push(joined);
  }
  problems.sort((a, b) => a.index - b.index);
  const regexEntries = sources.cs.length + sources.ci.length;
  return { literals, trie, regexes, problems, shape: { literals: literalEntries, wildcards, regexEntries, regexes: regexes.length } };
}

/**
 * The entries of one case flag as one regex, compiled once. Entries valid alone can still clash
 * joined (a group name used twice): only then are they joined one by one, to report the entry
 * that clashes and leave it out.
 */
function joinOnce(
  entries: { source: string; index: number }[],
  caseInsensitive: boolean,
  patterns: readonly string[],
  problems: InvalidPatternError[],
): RegExp | undefined {
  if (entries.length === 0) return undefined;
  try {
    return compile(
      entries.map((e) => e.source),
      caseInsensitive,
    );
  } catch {
    const kept: string[] = [];
    for (const entry of entries) {
      try {
        compile([...kept, entry.source], caseInsensitive);
        kept.push(entry.source);
      } catch (error) {
        problems.push(new InvalidPatternError(entry.index, patterns[entry.index]!, reasonOf(error)));
      }
    }
    return kept.length > 0 ? compile(kept, caseInsensitive) : undefined;
  }
}

function compile(list: readonly string[], caseInsensitive: boolean): RegExp {
  compilations += 1;
  return new RegExp(`^(?:${list.map((src) => `(?:${src})`).join('|')})$`, caseInsensitive ? 'iu' : 'u');
}

/** Java's regex syntax characters outside a class; `]` and `}` alone are literal in Java but left to the translator. */
const JAVA_SYNTAX = new Set('\\^$.|?*+()[]{}');
/** After a backslash, ASCII punctuation stands for itself in Java; letters and digits are constructs. */
const ESCAPABLE = /^[!-/:-@[-`{-~]$/;
/** What `.` does not match in Java without `(?s)`. */
const LINE_TERMINATORS = new Set(['\n', '\r', '\u0085', '\u2028', '\u2029']);

interface LiteralPattern {
  /** Characters (code points), `undefined` for a `.`. */
  readonly parts: (string | undefined)[];
  readonly wildcard: boolean;
}

/**
 * An entry that is a name: ordinary characters, `\` + punctuation, and `.` (any character but a
 * line terminator). Anything else returns undefined and goes to the regex.
 */
function literalPattern(pattern: string): LiteralPattern | undefined {
  const parts: (string | undefined)[] = [];
  let wildcard = false;
  let escaped = false;
  for (const c of pattern) {
    if (escaped) {
      if (!ESCAPABLE.test(c)) return undefined;
      parts.push(c);
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === '.') {
      parts.push(undefined);
      wildcard = true;
    } else if (JAVA_SYNTAX.has(c)) return undefined;
    else parts.push(c);
  }
  return escaped ? undefined : { parts, wildcard };
}

interface TrieNode {
  readonly next: Map<string, TrieNode>;
  any?: TrieNode;
  end: boolean;
}

/** Names with `.` wildcards; a lookup follows both the character and the wildcard at each step. */
class WildcardTrie {
  private readonly root: TrieNode = { next: new Map(), end: false };

  add(parts: readonly (string | undefined)[]): void {
    let node = this.root;
    for (const part of parts) {
      if (part === undefined) node = node.any ??= { next: new Map(), end: false };
      else {
        let child = node.next.get(part);
        if (!child) node.next.set(part, (child = { next: new Map(), end: false }));
        node = child;
      }
    }
    node.end = true;
  }

  matches(name: string): boolean {
    const chars = [...name];
    const stack: [TrieNode, number][] = [[this.root, 0]];
    while (stack.length > 0) {
      const [node, at] = stack.pop()!;
      if (at === chars.length) {
        if (node.end) return true;
        continue;
      }
      const c = chars[at]!;
      const exact = node.next.get(c);
      if (exact) stack.push([exact, at + 1]);
      if (node.any && !LINE_TERMINATORS.has(c)) stack.push([node.any, at + 1]);
    }
    return false;
  }
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // V8 repeats the whole regex in its message ("Invalid regular expression: /…/u: Nothing to repeat").
  const m = /^Invalid regular expression: \/.*\/[a-z]*: (.*)$/s.exec(message);
  return m ? m[1]! : message;
}
