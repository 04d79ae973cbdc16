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

/** Compiles a regex list; throws `InvalidPatternError` for the first invalid entry. */
export function compilePatternList(patterns: readonly string[]): PatternList {
  const { regexes, problems } = analyze(patterns);
  if (problems.length > 0) throw problems[0]!;
  const frozen = Object.freeze([...patterns]);
  return {
    patterns: frozen,
    matches: (name) => regexes.some((r) => r.test(name)),
  };
}

/** Every invalid entry, without throwing: for config validation that reports all problems at once. */
export function patternListProblems(patterns: readonly string[]): InvalidPatternError[] {
  return analyze(patterns).problems;
}

function analyze(patterns: readonly string[]): { regexes: RegExp[]; problems: InvalidPatternError[] } {
  const regexes: RegExp[] = [];
  const problems: InvalidPatternError[] = [];
  let sources: string[] = [];
  let segmentFlag = false;
  let flags: JavaRegexFlags = NO_JAVA_FLAGS;
  const join = (list: readonly string[], caseInsensitive: boolean) =>
    new RegExp(`^(?:${list.map((src) => `(?:${src})`).join('|')})$`, caseInsensitive ? 'iu' : 'u');
  patterns.forEach((pattern, index) => {
    try {
      const translated = translateJavaRegex(pattern, flags);
      flags = translated.flags;
      if (sources.length > 0 && flags.caseInsensitive !== segmentFlag) {
        regexes.push(join(sources, segmentFlag));
        sources = [];
      }
      // Compiling the joined segment so far also catches clashes between entries (duplicate group names).
      join([...sources, translated.source], flags.caseInsensitive);
      sources.push(translated.source);
      segmentFlag = flags.caseInsensitive;
    } catch (error) {
      problems.push(new InvalidPatternError(index, pattern, reasonOf(error)));
    }
  });
  if (sources.length > 0) regexes.push(join(sources, segmentFlag));
  return { regexes, problems };
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // V8 repeats the whole regex in its message ("Invalid regular expression: /…/u: Nothing to repeat").
  const m = /^Invalid regular expression: \/.*\/[a-z]*: (.*)$/s.exec(message);
  return m ? m[1]! : message;
}
