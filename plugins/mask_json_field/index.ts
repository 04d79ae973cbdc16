/**
 * mask_json_field: masks or removes fields inside JSON record values.
 *
 * MM2 cannot do this: it forces ByteArrayConverter, so Connect's MaskField/ReplaceField see
 * opaque bytes. Here the plugin decodes the value itself.
 *
 * The value is edited in place, not re-serialised: JSON.parse validates it, then a small scanner
 * finds the byte ranges of the fields and only those are rewritten. Re-serialising with
 * JSON.stringify would change spacing and silently corrupt integers above 2^53 (common for IDs).
 */
import { defineTransform, z, type MirrorRecord, type ContractSamples } from '../../src/plugins/api';

const fieldPath = z
  .string()
  .regex(/^[^.]+(\.[^.]+)*$/, 'Expected a dotted field path such as `card.number`')
  .describe('Dotted path of a field, e.g. `customer.email`. Arrays on the way are entered: `items.card` means `card` in every element of `items`.');

const configSchema = z.strictObject({
  fields: z.array(fieldPath).min(1).describe('Fields to mask or remove. Every occurrence is handled, including repeated keys.'),
  action: z.enum(['mask', 'remove']).default('mask').describe("`mask` replaces the field's value with `replacement`; `remove` deletes the field."),
  replacement: z.union([z.string(), z.number(), z.boolean(), z.null()]).default('****').describe('JSON value written in place of a masked field.'),
});

type Config = z.output<typeof configSchema>;

/** Samples of the plugin contract (`mirrorflow plugins check`). */
export const contract: ContractSamples = {
  options: { fields: ['email'] },
  invalid: [
    { options: { fields: [] }, option: 'fields' },
    { options: { fields: ['email'], action: 'hash' }, option: 'action' },
  ],
  converters: { value: 'json' },
};

export default defineTransform({
  name: 'mask_json_field',
  summary:
    'Masks or removes fields of JSON record values, leaving the rest of the bytes as they were; values that are not JSON pass unchanged and are counted.',
  configSchema,
  create(config, context) {
    const targets = trieOf(config.fields);
    const edit: Edit = config.action === 'remove' ? { remove: true } : { remove: false, with: JSON.stringify(config.replacement) };
    // fatal: invalid UTF-8 is "not JSON" rather than silently replaced by U+FFFD (which would
    // then be written back). ignoreBOM keeps a BOM in the text, so JSON.parse rejects it.
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const notJson = context.metrics.counter('values_not_json', 'Record values that were not UTF-8 JSON and passed through unchanged.');
    const changed = context.metrics.counter('values_changed', 'Record values in which at least one field was masked or removed.');
    let warned = false;

    const passNotJson = (record: MirrorRecord): MirrorRecord => {
      notJson.inc();
      if (!warned) {
        warned = true;
        // Once per step: the counter carries the rest. Position only, never the value.
        context.logger.warn('Record value is not JSON; passed through unchanged.', {
          topic: record.source.topic,
          partition: record.source.partition,
          offset: record.source.offset,
        });
      }
      return record;
    };

    return {
      apply(record) {
        if (record.value === null) return record; // a tombstone stays a tombstone
        let text: string;
        try {
          text = decoder.decode(record.value);
          JSON.parse(text);
        } catch {
          return passNotJson(record);
        }
        const rewritten = rewriteDocument(text, targets, edit);
        if (rewritten === undefined) return record;
        changed.inc();
        return { ...record, value: Buffer.from(rewritten, 'utf8') };
      },
    };
  },
});

// ---- field paths ----------------------------------------------------------------------------

/** Field paths as a tree: `a.b` and `a.c` share `a`. A node that ends a path is `terminal`. */
interface PathNode {
  terminal: boolean;
  readonly children: Map<string, PathNode>;
}

function trieOf(paths: Config['fields']): Map<string, PathNode> {
  const root = new Map<string, PathNode>();
  for (const path of paths) {
    let level = root;
    const segments = path.split('.');
    segments.forEach((segment, i) => {
      let node = level.get(segment);
      if (node === undefined) {
        node = { terminal: false, children: new Map() };
        level.set(segment, node);
      }
      if (i === segments.length - 1) node.terminal = true;
      level = node.children;
    });
  }
  return root;
}

// ---- in-place editing ----------------------------------------------------------------------
// The scanner only ever sees text that JSON.parse accepted, so it needs no error handling.

type Edit = { readonly remove: true } | { readonly remove: false; readonly with: string };

interface Span {
  readonly start: number;
  /** Where the value starts (for members, after `"key":`). */
  readonly valueStart: number;
  readonly end: number;
  /** Member key; undefined for array elements. */
  readonly key?: string;
}

/** The edited document, or undefined when no field matched (the caller keeps the original bytes). */
function rewriteDocument(text: string, targets: Map<string, PathNode>, edit: Edit): string | undefined {
  const start = skipSpace(text, 0);
  const result = rewriteValue(text, start, targets, edit);
  if (result === undefined) return undefined;
  return text.slice(0, start) + result.text + text.slice(result.end);
}

/** Rewrites the value at `start` if a target lies inside it; `end` is where the original value ended. */
function rewriteValue(text: string, start: number, targets: Map<string, PathNode>, edit: Edit): { text: string; end: number } | undefined {
  const c = text[start];
  if (c !== '{' && c !== '[') return undefined;
  const { items, end } = c === '{' ? members(text, start) : elements(text, start);
  // Per item: undefined = unchanged, null = removed, a string = its new text.
  const edited: (string | null | undefined)[] = new Array<string | null | undefined>(items.length);
  let changed = false;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    // Arrays are entered transparently: the same targets apply to each element.
    let next = targets;
    if (item.key !== undefined) {
      const node = targets.get(item.key);
      if (node === undefined) continue;
      if (node.terminal) {
        changed = true;
        edited[i] = edit.remove ? null : text.slice(item.start, item.valueStart) + edit.with;
        continue;
      }
      next = node.children;
    }
    const inner = rewriteValue(text, item.valueStart, next, edit);
    if (inner !== undefined) {
      changed = true;
      edited[i] = text.slice(item.start, item.valueStart) + inner.text;
    }
  }
  if (!changed) return undefined;
  // Keep the original spacing: text before the first item, each kept item with the separator
  // that preceded it (except the first kept one), and text after the last item.
  let out = text.slice(start, items[0]!.start);
  let first = true;
  for (let i = 0; i < items.length; i++) {
    const piece = edited[i];
    if (piece === null) continue;
    if (!first) out += text.slice(items[i - 1]!.end, items[i]!.start);
    out += piece ?? text.slice(items[i]!.start, items[i]!.end);
    first = false;
  }
  out += text.slice(items[items.length - 1]!.end, end);
  return { text: out, end };
}

function members(text: string, open: number): { items: Span[]; end: number } {
  const items: Span[] = [];
  let i = skipSpace(text, open + 1);
  if (text[i] === '}') return { items, end: i + 1 };
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i, keyEnd);
    const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, valueStart);
    items.push({ start: i, valueStart, end, key });
    i = skipSpace(text, end);
    if (text[i] === '}') return { items, end: i + 1 };
    i = skipSpace(text, i + 1); // past the comma
  }
}

function elements(text: string, open: number): { items: Span[]; end: number } {
  const items: Span[] = [];
  let i = skipSpace(text, open + 1);
  if (text[i] === ']') return { items, end: i + 1 };
  for (;;) {
    const end = valueEnd(text, i);
    items.push({ start: i, valueStart: i, end });
    i = skipSpace(text, end);
    if (text[i] === ']') return { items, end: i + 1 };
    i = skipSpace(text, i + 1);
  }
}

function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (;;) {
      const ch = text[i];
      if (ch === '"') {
        i = stringEnd(text, i);
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
  }
  // A number, true, false or null runs until a delimiter.
  while (i < text.length && !DELIMITERS.has(text[i]!)) i++;
  return i;
}

const DELIMITERS = new Set([',', '}', ']', ' ', '\t', '\n', '\r']);

function stringEnd(text: string, open: number): number {
  let i = open + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1; // closing quote
    i += c === 0x5c ? 2 : 1; // a backslash escapes the next character
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}
