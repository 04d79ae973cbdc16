/**
 * Which entries of a regex list (`topics`, `topics_exclude`, `configs_exclude`, and the
 * checkpoints' `groups`, `groups_exclude`) the filters would reject. Asks the policy layer, which
 * compiles MM2's Java regex syntax, so the config check and the running filter can never
 * disagree about what compiles.
 */
import { patternListProblems } from '../../policy';

export interface PatternProblem {
  readonly index: number;
  readonly message: string;
}

/**
 * One problem per bad entry. The message quotes the pattern only when `quote(index)` says so: a
 * pattern that came from `${…}` or `--set` must not be echoed.
 */
export function regexListProblems(patterns: readonly string[], quote: (index: number) => boolean): PatternProblem[] {
  return patternListProblems(patterns).map((problem) => ({
    index: problem.index,
    message: `invalid regular expression${quote(problem.index) ? ` ${JSON.stringify(problem.pattern)}` : ''}: ${lowerFirst(problem.reason)}`,
  }));
}

/** V8's reasons start in upper case, the policy's in lower; messages here read as one sentence. */
function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
