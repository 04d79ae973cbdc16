/**
 * Regexes for transforms — the built-ins, and plugins through `src/plugins/api.ts` — with Kafka
 * Connect's meaning: Java regexes (`java.util.regex`, as Connect's RegexRouter and
 * TopicNameMatches read them) that must match the whole string (Java `Matcher.matches()`), not
 * a substring.
 *
 * They go through the same translator as the flows' topic and group filters
 * (src/core/java-regex.ts), so `(?i)`, `\Q…\E` or `\A` mean in a transform what they mean in
 * `topics:`; what JavaScript cannot express the same way is a config error with the reason, never
 * a silent change of meaning.
 */
import { z } from '#zod';
import { translateJavaRegex } from '../core/java-regex';

/** Compiles `pattern` to a RegExp that only matches a whole string. Throws when it is invalid. */
export function fullMatchRegex(pattern: string): RegExp {
  const { source, flags } = translateJavaRegex(pattern);
  // Compile alone first: wrapping an unbalanced pattern like `a)|(b` would otherwise yield a
  // valid regex with different anchoring.
  new RegExp(source, 'u');
  return new RegExp(`^(?:${source})$`, flags.caseInsensitive ? 'iu' : 'u');
}

/**
 * Compiles `pattern` to a sticky RegExp that finds the match Java's `Matcher.find()` finds first
 * from the start of a string that `fullMatchRegex` matched: the engine's preferred match at
 * position 0, which may be shorter than the whole string (`a|ab` on `ab` finds `a`). Connect's
 * RegexRouter replaces that match (`replaceFirst`) and keeps the rest. Same groups as
 * `fullMatchRegex`. Throws when the pattern is invalid.
 */
export function firstMatchRegex(pattern: string): RegExp {
  const { source, flags } = translateJavaRegex(pattern);
  new RegExp(source, 'u');
  return new RegExp(`(?:${source})`, flags.caseInsensitive ? 'iuy' : 'uy');
}

/** Why `pattern` cannot be used, or undefined when it can. */
export function regexProblem(pattern: string): string | undefined {
  try {
    fullMatchRegex(pattern);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `${reason} (patterns are Java regexes, as in Kafka Connect)`;
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
