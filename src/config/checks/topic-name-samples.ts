/**
 * A few topic names that a Java regex from a topic filter matches, e.g. `orders` for `orders`,
 * `x` and `` for `.*`, `a-1` for `[a-z]+-\d`. Used to show that two flows would pass a topic back
 * and forth: every sample is checked against the real filters afterwards, so a sample that does
 * not match costs nothing but a missed example. Constructs it does not know give no samples.
 */

/** Samples for one pattern: the shortest reading and one with every repetition taken once. */
export function topicNameSamples(pattern: string): string[] {
  const samples = new Set<string>();
  // Repetitions taken once first: `orders-x` reads better as an example than `orders-`.
  for (const repeat of [true, false]) {
    for (const alternative of splitTopLevel(stripInlineFlags(pattern))) {
      const sample = sampleOf(alternative, repeat);
      if (sample !== undefined) samples.add(sample);
    }
  }
  return [...samples];
}

function stripInlineFlags(pattern: string): string {
  return pattern.replace(/^\(\?[a-zA-Z-]+\)/, '');
}

/** Splits on `|` outside groups and classes. */
function splitTopLevel(pattern: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === '|' && depth === 0) {
      parts.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(pattern.slice(start));
  return parts;
}

const ESCAPES: Readonly<Record<string, string>> = { d: '0', w: 'a', s: '_', D: 'x', W: '-', S: 'x' };

/** One string the alternative matches, or undefined for a construct this does not follow. */
function sampleOf(alternative: string, repeat: boolean): string | undefined {
  let out = '';
  let i = 0;
  while (i < alternative.length) {
    const c = alternative[i]!;
    let atom: string | undefined;
    if (c === '\\') {
      const next = alternative[i + 1];
      if (next === undefined || /[0-9bBAzZGQEpPkxuc]/.test(next)) return undefined;
      atom = ESCAPES[next] ?? next;
      i += 2;
    } else if (c === '[') {
      const close = alternative.indexOf(']', i + 2);
      if (close < 0) return undefined;
      const body = alternative.slice(i + 1, close);
      if (body.startsWith('^') || body.includes('&&') || body.includes('[')) return undefined;
      atom = body[0] === '\\' ? (ESCAPES[body[1] ?? ''] ?? body[1]) : body[0];
      i = close + 1;
    } else if (c === '(') {
      const close = matchingParen(alternative, i);
      if (close < 0) return undefined;
      let inner = alternative.slice(i + 1, close);
      if (inner.startsWith('?:')) inner = inner.slice(2);
      else if (inner.startsWith('?')) return undefined;
      const first = splitTopLevel(inner)[0] ?? '';
      atom = sampleOf(first, repeat);
      i = close + 1;
    } else if (c === '.') {
      atom = 'x';
      i += 1;
    } else if (c === '^' || c === '$') {
      atom = '';
      i += 1;
    } else if ('*+?{'.includes(c)) {
      return undefined;
    } else {
      atom = c;
      i += 1;
    }
    if (atom === undefined) return undefined;
    // A quantifier applies to the atom just read.
    const quantifier = /^(\*|\+|\?|\{(\d+)(,\d*)?\})[?+]?/.exec(alternative.slice(i));
    let times = 1;
    if (quantifier !== null) {
      const q = quantifier[1]!;
      const min = q === '*' || q === '?' ? 0 : q === '+' ? 1 : Number(quantifier[2]);
      times = repeat && min === 0 ? 1 : min;
      i += quantifier[0].length;
    }
    out += atom.repeat(times);
  }
  return out;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') depth += 1;
    else if (c === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}
