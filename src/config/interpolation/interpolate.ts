/**
 * `${…}` references in string values, resolved before validation:
 *   `${VAR}`, `${VAR:default}`, `${VAR:}` (empty default)     variables (Benthos style)
 *   `${env:NAME}`, `${file:PATH:KEY}`, `${dir:PATH:FILE}`       MM2 config providers
 *   `$${`                                                         a literal `${`
 * The provider names win over a variable of the same name, as in MM2 files. A resolved value is
 * never scanned again, so a secret containing `${` stays as it is.
 */

export type Reference =
  | { readonly kind: 'variable'; readonly text: string; readonly name: string; readonly fallback?: string }
  | { readonly kind: 'env'; readonly text: string; readonly name: string }
  | { readonly kind: 'file'; readonly text: string; readonly path: string; readonly key: string }
  | { readonly kind: 'dir'; readonly text: string; readonly path: string; readonly file: string };

/** A problem with one reference. `offset` is where its `${` starts in the string. */
export interface InterpolationProblem {
  readonly offset: number;
  readonly message: string;
  readonly hint?: string;
}

export type ResolveOutcome = { readonly value: string } | { readonly message: string; readonly hint?: string };

export type ReferenceResolver = (reference: Reference) => ResolveOutcome;

export interface InterpolationResult {
  readonly value: string;
  /** True when at least one reference was resolved or escape removed. */
  readonly changed: boolean;
  /** True when at least one reference was resolved: the value then holds text from outside the file. */
  readonly resolved: boolean;
  readonly problems: InterpolationProblem[];
}

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const literalHint = 'write $${ for a literal ${';

export function interpolate(text: string, resolve: ReferenceResolver): InterpolationResult {
  let value = '';
  let changed = false;
  let resolved = false;
  const problems: InterpolationProblem[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      value += '${';
      i += 3;
      changed = true;
      continue;
    }
    if (!text.startsWith('${', i)) {
      value += text[i];
      i += 1;
      continue;
    }
    const close = text.indexOf('}', i + 2);
    if (close < 0) {
      problems.push({ offset: i, message: 'unterminated "${"', hint: `close it with "}", or ${literalHint}` });
      value += text.slice(i);
      break;
    }
    const source = text.slice(i, close + 1);
    const reference = parseReference(source);
    if (reference === undefined) {
      problems.push({
        offset: i,
        message: `invalid reference "${source}"`,
        hint: `use \${NAME}, \${NAME:default}, \${env:NAME}, \${file:PATH:KEY} or \${dir:PATH:FILE}; ${literalHint}`,
      });
    } else {
      const outcome = resolve(reference);
      if ('value' in outcome) {
        value += outcome.value;
        resolved = true;
      } else {
        problems.push({ offset: i, message: outcome.message, ...(outcome.hint === undefined ? {} : { hint: outcome.hint }) });
      }
    }
    changed = true;
    i = close + 1;
  }
  return { value, changed, resolved, problems };
}

/** Parses the text of one reference, `${` and `}` included. */
export function parseReference(text: string): Reference | undefined {
  const inner = text.slice(2, -1);
  const colon = inner.indexOf(':');
  const head = colon < 0 ? inner : inner.slice(0, colon);
  const rest = colon < 0 ? undefined : inner.slice(colon + 1);
  if (head === 'env' && rest !== undefined) {
    return variableName.test(rest) ? { kind: 'env', text, name: rest } : undefined;
  }
  if ((head === 'file' || head === 'dir') && rest !== undefined) {
    // MM2's placeholder pattern is lazy: the path ends at the first colon, the key takes the rest.
    const split = rest.indexOf(':');
    if (split <= 0 || split === rest.length - 1) return undefined;
    const path = rest.slice(0, split);
    const last = rest.slice(split + 1);
    return head === 'file' ? { kind: 'file', text, path, key: last } : { kind: 'dir', text, path, file: last };
  }
  if (!variableName.test(head)) return undefined;
  return rest === undefined ? { kind: 'variable', text, name: head } : { kind: 'variable', text, name: head, fallback: rest };
}
