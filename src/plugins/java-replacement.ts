/**
 * A replacement string with Java's `Matcher.appendReplacement` meaning, so a RegexRouter
 * `replacement` from an mm2.properties file means the same thing here:
 *
 * - `$n` is group n; after the first digit, more digits are taken only while the number still
 *   names an existing group (`$10` with one group is group 1 then a literal `0`);
 * - `${name}` is a named group;
 * - `\x` is the literal character x (so `\$` is a dollar sign, `\\` a backslash);
 * - a group that did not take part in the match adds nothing.
 *
 * JavaScript's `String.replace` differs (`$$`, `$<name>`, `$&`, unknown groups kept literally),
 * hence this small parser. Errors are raised when parsing, i.e. at config time.
 */

type Part = { readonly literal: string } | { readonly group: number | string };

export class JavaReplacement {
  private constructor(private readonly parts: readonly Part[]) {}

  /**
   * Parses `replacement` for a regex with `groupCount` numbered groups and these named groups.
   * Throws an Error with Java's reason when the replacement is invalid for that regex.
   */
  static parse(replacement: string, groupCount: number, groupNames: ReadonlySet<string>): JavaReplacement {
    const parts: Part[] = [];
    let literal = '';
    let i = 0;
    const flush = () => {
      if (literal !== '') parts.push({ literal });
      literal = '';
    };
    while (i < replacement.length) {
      const c = replacement[i]!;
      if (c === '\\') {
        i++;
        if (i === replacement.length) throw new Error('character to be escaped is missing after the final "\\"');
        literal += replacement[i];
        i++;
      } else if (c === '$') {
        i++;
        if (i === replacement.length) throw new Error('group index is missing after the final "$"');
        if (replacement[i] === '{') {
          const end = replacement.indexOf('}', i + 1);
          if (end < 0) throw new Error(`named group reference at position ${i - 1} is missing its closing "}"`);
          const name = replacement.slice(i + 1, end);
          if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new Error(`"\${${name}}" is not a valid group name`);
          if (!groupNames.has(name)) throw new Error(`the regex has no group named "${name}"`);
          flush();
          parts.push({ group: name });
          i = end + 1;
        } else {
          const first = digit(replacement, i);
          if (first === undefined) {
            throw new Error(`"$" at position ${i - 1} must be followed by a group number or {name}; write "\\$" for a literal dollar`);
          }
          let group = first;
          i++;
          for (let next = digit(replacement, i); next !== undefined && group * 10 + next <= groupCount; next = digit(replacement, i)) {
            group = group * 10 + next;
            i++;
          }
          if (group > groupCount) throw new Error(`the regex has no group ${group} (it has ${groupCount})`);
          flush();
          parts.push({ group });
        }
      } else {
        literal += c;
        i++;
      }
    }
    flush();
    return new JavaReplacement(parts);
  }

  /** Parses `replacement` for `regex` (its groups counted and named for you); throws as `parse` does. */
  static forRegex(regex: RegExp, replacement: string): JavaReplacement {
    const groups = regexGroups(regex);
    return JavaReplacement.parse(replacement, groups.count, groups.names);
  }

  /** The replacement for one match of the regex it was parsed for. */
  expand(match: RegExpExecArray): string {
    let out = '';
    for (const part of this.parts) {
      if ('literal' in part) out += part.literal;
      else out += (typeof part.group === 'number' ? match[part.group] : match.groups?.[part.group]) ?? '';
    }
    return out;
  }
}

/** The numbered and named groups of a regex, for parsing a replacement against it. */
export function regexGroups(regex: RegExp): { count: number; names: Set<string> } {
  // An empty alternative always matches the empty string, leaving every group undefined.
  const match = new RegExp(`${regex.source}|`, regex.flags).exec('')!;
  return { count: match.length - 1, names: new Set(Object.keys(match.groups ?? {})) };
}

function digit(s: string, i: number): number | undefined {
  const code = s.charCodeAt(i);
  return code >= 48 && code <= 57 ? code - 48 : undefined;
}
