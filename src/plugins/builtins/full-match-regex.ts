/**
 * Topic regexes for built-ins, with Kafka Connect's meaning: the pattern must match the whole
 * topic name (Java `Matcher.matches()`), not a substring.
 *
 * Patterns are JavaScript regexes compiled with the `u` flag. For what topic patterns use
 * (literals, `.`, classes, groups, alternation, quantifiers, `\d`, `\w`) that is the same
 * language as Java's. The `u` flag matters because it makes Java-only syntax a config error
 * instead of a silent change of meaning: without it `\Q.\E` or `\A` would quietly become
 * literal letters.
 */
import { z } from '../api';

const JAVA_ONLY_HINT =
  'patterns are JavaScript regexes; Java-only syntax such as (?i), possessive quantifiers (a*+), \\Q…\\E, \\A and \\Z is not supported';

/** Compiles `pattern` to a RegExp that only matches a whole string. Throws a SyntaxError when invalid. */
export function fullMatchRegex(pattern: string): RegExp {
  // Compile alone first: wrapping an unbalanced pattern like `a)|(b` would otherwise yield a
  // valid regex with different anchoring.
  new RegExp(pattern, 'u');
  return new RegExp(`^(?:${pattern})$`, 'u');
}

/** Why `pattern` cannot be used, or undefined when it can. */
export function regexProblem(pattern: string): string | undefined {
  try {
    fullMatchRegex(pattern);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `${reason} (${JAVA_ONLY_HINT})`;
  }
}

/** A config field holding a regex; invalid patterns are reported at config time, with the reason. */
export function regexField(description: string) {
  return z
    .string()
    .min(1)
    .superRefine((pattern, ctx) => {
      const problem = regexProblem(pattern);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `Invalid regex: ${problem}` });
    })
    .describe(description);
}
