/**
 * Whether one regex of a topic or config-name list works the way the filters will use it: MM2
 * semantics, a full match (`^(?:p)$`). The compile step is kept to one function so that it can
 * switch to `compilePatternList` from `src/policy/topic-filter.ts` once that lands, and the two
 * can never disagree about what compiles.
 */

export interface PatternProblem {
  readonly message: string;
  readonly hint?: string;
}

/**
 * What is wrong with `pattern`. The message quotes the pattern only when `quote` is set: a
 * pattern that came from `${…}` or `--set` must not be echoed.
 */
export function topicPatternProblem(pattern: string, quote: boolean): PatternProblem | undefined {
  const shown = quote ? ` ${JSON.stringify(pattern)}` : '';
  const reason = compileProblem(pattern);
  if (reason !== undefined) {
    const hint = javaOnlySyntaxHint(pattern);
    return { message: `invalid regular expression${shown}: ${reason}`, ...(hint === undefined ? {} : { hint }) };
  }
  const escape = javaOnlyEscape(pattern);
  if (escape !== undefined) {
    // These compile in JavaScript but mean something else (a plain letter), so the filter would
    // silently differ from MM2's.
    return {
      message: `regular expression${shown} uses \\${escape}, which is Java-only; in JavaScript it matches the letter ${escape}`,
      hint: escape === 'Q' || escape === 'E' ? 'escape each special character with \\ instead' : 'the whole topic name is matched anyway; drop it',
    };
  }
  return undefined;
}

function compileProblem(pattern: string): string | undefined {
  try {
    new RegExp(`^(?:${pattern})$`);
    return undefined;
  } catch (error) {
    // V8 says "Invalid regular expression: /^(?:[a)$/: Unterminated character class"; keep the reason.
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.slice(message.lastIndexOf(': ') + 2).trim();
    return reason === '' ? 'it does not compile' : reason.charAt(0).toLowerCase() + reason.slice(1);
  }
}

function javaOnlySyntaxHint(pattern: string): string | undefined {
  if (/\(\?[imsxu-]+\)/.test(pattern)) return 'JavaScript regexes have no inline flags like (?i); spell out both cases, e.g. [Oo]rders';
  if (/[*+?}]\+/.test(pattern)) return 'JavaScript regexes have no possessive quantifiers like *+; drop the second +';
  return undefined;
}

function javaOnlyEscape(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length - 1; i++) {
    if (pattern[i] !== '\\') continue;
    const next = pattern[i + 1]!;
    if ('AZzQE'.includes(next)) return next;
    i += 1;
  }
  return undefined;
}
