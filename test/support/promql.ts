/**
 * A small PromQL evaluator for the expressions of dashboards and alert rules, run against the
 * Prometheus text of real scrapes (no Prometheus here): instant and range vector selectors with
 * `=`, `!=`, `=~`, `!~` matchers (regexes fully anchored, as Prometheus anchors them), `rate`,
 * `absent`, `sum`, `count`, `avg`, `max`, `min`, `topk` with `by`/`without` before or after the
 * argument, arithmetic and comparison between vectors and scalars. What it does not know it
 * refuses, so a test never passes on an expression it did not evaluate. Grouping by a label that
 * no input series has is refused too (Prometheus would silently make one group): an expression
 * must name labels that exist.
 */

export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One scrape: its time, and its samples with the target labels Prometheus adds. */
export interface Scrape {
  readonly at: number;
  readonly samples: readonly Series[];
}

/** Parses the text exposition; each sample gets `targetLabels` (a scrape's target labels) and `__name__`. */
export function parseExposition(text: string, targetLabels: Readonly<Record<string, string>> = {}): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = { ...targetLabels, __name__: m[1]! };
    const body = m[3] ?? '';
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    for (const l of body.matchAll(re)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ labels, value: m[4] === 'NaN' ? Number.NaN : m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]) });
  }
  return out;
}

type Value = { kind: 'vector'; series: Series[] } | { kind: 'scalar'; value: number } | { kind: 'matrix'; selector: Selector; rangeMs: number };

interface Matcher {
  readonly label: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}
interface Selector {
  readonly matchers: readonly Matcher[];
}

type Node =
  | { type: 'selector'; selector: Selector; rangeMs?: number }
  | { type: 'number'; value: number }
  | { type: 'call'; name: string; args: Node[] }
  | { type: 'aggregate'; op: string; by?: string[]; without?: string[]; param?: Node; arg: Node }
  | { type: 'binary'; op: string; left: Node; right: Node };

const AGGREGATIONS = new Set(['sum', 'count', 'avg', 'max', 'min', 'topk']);
const FUNCTIONS = new Set(['rate', 'absent']);

class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  parse(): Node {
    const node = this.expr(0);
    this.space();
    if (this.at < this.text.length) throw new Error(`unexpected "${this.text.slice(this.at)}" in ${this.text}`);
    return node;
  }

  private static readonly PRECEDENCE: Readonly<Record<string, number>> = { '==': 1, '!=': 1, '>': 1, '<': 1, '>=': 1, '<=': 1, '+': 2, '-': 2, '*': 3, '/': 3 };

  private expr(min: number): Node {
    let left = this.unary();
    for (;;) {
      this.space();
      const op = /^(==|!=|>=|<=|>|<|\+|-|\*|\/)/.exec(this.text.slice(this.at))?.[1];
      if (op === undefined || Parser.PRECEDENCE[op]! < min) return left;
      this.at += op.length;
      const right = this.expr(Parser.PRECEDENCE[op]! + 1);
      left = { type: 'binary', op, left, right };
    }
  }

  private unary(): Node {
    this.space();
    const rest = this.text.slice(this.at);
    if (rest.startsWith('(')) {
      this.at++;
      const inner = this.expr(0);
      this.expect(')');
      return inner;
    }
    const number = /^[0-9]+(\.[0-9]+)?/.exec(rest);
    if (number) {
      this.at += number[0].length;
      return { type: 'number', value: Number(number[0]) };
    }
    const ident = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest);
    if (ident === null) throw new Error(`unexpected "${rest}"`);
    this.at += ident[0].length;
    const name = ident[0];
    if (AGGREGATIONS.has(name)) return this.aggregate(name);
    this.space();
    if (this.peek('(')) {
      if (!FUNCTIONS.has(name)) throw new Error(`function ${name} is not known here`);
      this.at++;
      const args = [this.expr(0)];
      this.expect(')');
      return { type: 'call', name, args };
    }
    return this.selector(name);
  }

  private aggregate(op: string): Node {
    let grouping = this.grouping();
    this.expect('(');
    const param = op === 'topk' ? this.expr(0) : undefined;
    if (param !== undefined) this.expect(',');
    const arg = this.expr(0);
    this.expect(')');
    grouping ??= this.grouping();
    return { type: 'aggregate', op, ...(grouping ?? {}), ...(param === undefined ? {} : { param }), arg };
  }

  private grouping(): { by?: string[]; without?: string[] } | undefined {
    this.space();
    const m = /^(by|without)\s*\(([^)]*)\)/.exec(this.text.slice(this.at));
    if (m === null) return undefined;
    this.at += m[0].length;
    const labels = m[2]!
      .split(',')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    return m[1] === 'by' ? { by: labels } : { without: labels };
  }

  private selector(name: string): Node {
    const matchers: Matcher[] = [{ label: '__name__', op: '=', value: name }];
    this.space();
    if (this.peek('{')) {
      this.at++;
      for (;;) {
        this.space();
        if (this.peek('}')) break;
        const m = /^([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*/.exec(this.text.slice(this.at));
        if (m === null) throw new Error(`bad matcher at "${this.text.slice(this.at)}"`);
        this.at += m[0].length;
        matchers.push({ label: m[1]!, op: m[2] as Matcher['op'], value: this.string() });
        this.space();
        if (this.peek(',')) this.at++;
      }
      this.expect('}');
    }
    const range = /^\[(\d+)([smh])\]/.exec(this.text.slice(this.at));
    if (range) {
      this.at += range[0].length;
      return { type: 'selector', selector: { matchers }, rangeMs: Number(range[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[range[2] as 's' | 'm' | 'h'] };
    }
    return { type: 'selector', selector: { matchers } };
  }

  /** A double-quoted PromQL string, with Go's escapes. */
  private string(): string {
    this.expect('"');
    let out = '';
    while (this.at < this.text.length && this.text[this.at] !== '"') {
      const c = this.text[this.at++]!;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.text[this.at++]!;
      out += e === 'n' ? '\n' : e === 't' ? '\t' : e === '\\' || e === '"' ? e : `\\${e}`;
    }
    this.expect('"');
    return out;
  }

  private space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  private peek(c: string): boolean {
    return this.text[this.at] === c;
  }

  private expect(c: string): void {
    this.space();
    if (this.text[this.at] !== c) throw new Error(`expected "${c}" at "${this.text.slice(this.at)}" in ${this.text}`);
    this.at++;
  }
}

function matches(series: Series, selector: Selector): boolean {
  return selector.matchers.every((m) => {
    const v = series.labels[m.label] ?? '';
    switch (m.op) {
      case '=':
        return v === m.value;
      case '!=':
        return v !== m.value;
      case '=~':
        return new RegExp(`^(?:${m.value})$`).test(v);
      case '!~':
        return !new RegExp(`^(?:${m.value})$`).test(v);
    }
  });
}

const withoutName = (labels: Readonly<Record<string, string>>): Record<string, string> => {
  const { __name__: _, ...rest } = labels;
  return rest;
};

/** Evaluates `expr` at the last of `scrapes` (earlier ones serve range vectors); returns the instant vector (a scalar as one series without labels). */
export function evaluate(expr: string, scrapes: readonly Scrape[]): Series[] {
  const result = evalNode(new Parser(expr).parse(), scrapes);
  if (result.kind === 'scalar') return [{ labels: {}, value: result.value }];
  if (result.kind === 'matrix') throw new Error('a range vector is not a result');
  return result.series;
}

function evalNode(node: Node, scrapes: readonly Scrape[]): Value {
  const now = scrapes.at(-1)!;
  switch (node.type) {
    case 'number':
      return { kind: 'scalar', value: node.value };
    case 'selector':
      if (node.rangeMs !== undefined) return { kind: 'matrix', selector: node.selector, rangeMs: node.rangeMs };
      return { kind: 'vector', series: now.samples.filter((s) => matches(s, node.selector)) };
    case 'call': {
      const arg = evalNode(node.args[0]!, scrapes);
      if (node.name === 'absent') {
        if (arg.kind !== 'vector') throw new Error('absent takes an instant vector');
        return { kind: 'vector', series: arg.series.length === 0 ? [{ labels: {}, value: 1 }] : [] };
      }
      if (arg.kind !== 'matrix') throw new Error('rate takes a range vector');
      // Prometheus' rate over the samples in the range: the increase between the first and the last, per second.
      const inRange = scrapes.filter((s) => now.at - s.at <= arg.rangeMs);
      if (inRange.length < 2) throw new Error('rate needs two scrapes in its range');
      const first = inRange[0]!;
      const key = (s: Series): string => JSON.stringify(Object.entries(s.labels).sort());
      const before = new Map(first.samples.filter((s) => matches(s, arg.selector)).map((s) => [key(s), s.value]));
      const series: Series[] = [];
      for (const s of now.samples.filter((x) => matches(x, arg.selector))) {
        const start = before.get(key(s));
        if (start === undefined) continue;
        series.push({ labels: withoutName(s.labels), value: (s.value >= start ? s.value - start : s.value) / ((now.at - first.at) / 1000) });
      }
      return { kind: 'vector', series };
    }
    case 'aggregate': {
      const arg = evalNode(node.arg, scrapes);
      if (arg.kind !== 'vector') throw new Error(`${node.op} takes an instant vector`);
      for (const label of node.by ?? [])
        if (arg.series.length > 0 && !arg.series.some((s) => s.labels[label] !== undefined))
          throw new Error(`${node.op} by (${label}): no series has the label ${label}`);
      const groups = new Map<string, { labels: Record<string, string>; values: Series[] }>();
      for (const s of arg.series) {
        const labels: Record<string, string> = {};
        if (node.by !== undefined) for (const l of node.by) if (s.labels[l] !== undefined) labels[l] = s.labels[l]!;
        if (node.without !== undefined) {
          Object.assign(labels, withoutName(s.labels));
          for (const l of node.without) delete labels[l];
        }
        const k = JSON.stringify(Object.entries(labels).sort());
        const g = groups.get(k) ?? { labels, values: [] };
        g.values.push(s);
        groups.set(k, g);
      }
      if (node.op === 'topk') {
        const k = evalNode(node.param!, scrapes);
        if (k.kind !== 'scalar') throw new Error('topk takes a number');
        return { kind: 'vector', series: [...arg.series].sort((a, b) => b.value - a.value).slice(0, k.value) };
      }
      const series = [...groups.values()].map(({ labels, values }) => {
        const v = values.map((s) => s.value);
        const value =
          node.op === 'sum'
            ? v.reduce((a, b) => a + b, 0)
            : node.op === 'count'
              ? v.length
              : node.op === 'avg'
                ? v.reduce((a, b) => a + b, 0) / v.length
                : node.op === 'max'
                  ? Math.max(...v)
                  : Math.min(...v);
        return { labels, value };
      });
      return { kind: 'vector', series };
    }
    case 'binary': {
      const left = evalNode(node.left, scrapes);
      const right = evalNode(node.right, scrapes);
      const apply = (a: number, b: number): number | undefined => {
        switch (node.op) {
          case '+':
            return a + b;
          case '-':
            return a - b;
          case '*':
            return a * b;
          case '/':
            return a / b;
          default: {
            const holds =
              node.op === '>' ? a > b : node.op === '<' ? a < b : node.op === '>=' ? a >= b : node.op === '<=' ? a <= b : node.op === '==' ? a === b : a !== b;
            return holds ? a : undefined;
          }
        }
      };
      if (left.kind === 'scalar' && right.kind === 'scalar') return { kind: 'scalar', value: apply(left.value, right.value) ?? Number.NaN };
      if (left.kind === 'vector' && right.kind === 'scalar')
        return {
          kind: 'vector',
          series: left.series.flatMap((s) => (apply(s.value, right.value) === undefined ? [] : [{ labels: s.labels, value: apply(s.value, right.value)! }])),
        };
      if (left.kind === 'vector' && right.kind === 'vector') {
        // One-to-one matching on all labels (the aggregations of the dashboards leave the same ones on both sides).
        const key = (s: Series): string => JSON.stringify(Object.entries(withoutName(s.labels)).sort());
        const rights = new Map(right.series.map((s) => [key(s), s.value]));
        return {
          kind: 'vector',
          series: left.series.flatMap((s) => {
            const r = rights.get(key(s));
            const v = r === undefined ? undefined : apply(s.value, r);
            return v === undefined ? [] : [{ labels: withoutName(s.labels), value: v }];
          }),
        };
      }
      throw new Error(`${node.op} between a ${left.kind} and a ${right.kind} is not known here`);
    }
  }
}
