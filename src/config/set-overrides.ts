/**
 * `--set path=value` overrides, applied to the document before validation, as Benthos' `-s`.
 * `flows.0.batching.max_records=5000`, `clusters.primary.bootstrap_servers=h:1,h:2`.
 * The path must exist in the schema; the value is read as YAML (so `5000` is a number and
 * `[a, b]` a list) except where the schema takes a string, where it stays text exactly as typed.
 * Problems name the path, never the value: `--set` is how people pass passwords in CI.
 */
import { parseDocument } from '#yaml';
import { didYouMean } from '../plugins';
import { formatPath, isPlainObject, parsePath, type PathSegment } from './config-path';
import type { SchemaNavigator } from './json-schema/schema-navigator';

export interface SetOverride {
  /** The path as typed, for messages: `flows.0.batching.max_records`. */
  readonly text: string;
  readonly path: PathSegment[];
  readonly value: unknown;
}

export interface SetProblem {
  readonly path?: PathSegment[];
  readonly message: string;
  readonly hint?: string;
}

const example = 'e.g. --set flows.0.batching.max_records=5000';

export function parseSetOverride(entry: string, navigator: SchemaNavigator): SetOverride | SetProblem {
  const eq = entry.indexOf('=');
  const text = eq < 0 ? '' : entry.slice(0, eq).trim();
  if (text === '') return { message: '--set needs path=value', hint: example };
  const segments = parsePath(text);
  if (segments === undefined) return { message: `--set ${text}: not a path`, hint: example };

  const path: PathSegment[] = [];
  for (const segment of segments) {
    const isList = navigator.isList(path);
    const next = isList && typeof segment === 'string' && /^\d+$/.test(segment) ? Number(segment) : segment;
    if (!navigator.exists([...path, next])) {
      const allowed = navigator.allowedKeys(path) ?? [];
      const suggestion = typeof next === 'string' ? didYouMean(next, allowed) : undefined;
      const hint = isList
        ? `${formatPath(path)} is a list; use an index, e.g. ${formatPath([...path, 0])}`
        : suggestion !== undefined
          ? `did you mean "${suggestion}"?`
          : allowed.length > 0
            ? `expected one of: ${allowed.join(', ')}`
            : undefined;
      return {
        path: [...path, next],
        message: `--set ${text}: there is no "${String(segment)}" here`,
        ...(hint === undefined ? {} : { hint }),
      };
    }
    path.push(next);
  }

  const raw = entry.slice(eq + 1);
  if (navigator.valueKind(path) === 'string') return { text, path, value: raw };
  const parsed = parseDocument(raw, { prettyErrors: false });
  if (parsed.errors.length > 0) {
    return { path, message: `--set ${text}: the value is not valid YAML`, hint: 'quote it in the shell, e.g. --set "key=[a, b]"' };
  }
  return { text, path, value: parsed.toJS() as unknown };
}

export function isSetProblem(value: SetOverride | SetProblem): value is SetProblem {
  return 'message' in value;
}

/** Writes `override` into `data` (mutating it), creating maps and lists on the way. */
export function applySetOverride(data: Record<string, unknown>, override: SetOverride): SetProblem | undefined {
  let container: Record<string, unknown> | unknown[] = data;
  for (let i = 0; i < override.path.length; i++) {
    const segment = override.path[i]!;
    const key = Array.isArray(container) ? Number(segment) : String(segment);
    if (Array.isArray(container) && Number(key) > container.length) {
      return {
        path: override.path.slice(0, i + 1),
        message: `--set ${override.text}: ${formatPath(override.path.slice(0, i))} has ${container.length} entries`,
        hint: `change an existing entry, or add one at index ${container.length}`,
      };
    }
    if (i === override.path.length - 1) {
      (container as Record<string | number, unknown>)[key] = override.value;
      return undefined;
    }
    const nextIsIndex = typeof override.path[i + 1] === 'number';
    const child = descend(container, key, nextIsIndex);
    if (nextIsIndex ? !Array.isArray(child) : !isPlainObject(child)) {
      return {
        path: override.path.slice(0, i + 1),
        message: `--set ${override.text}: ${formatPath(override.path.slice(0, i + 1))} is not a ${nextIsIndex ? 'list' : 'map'} in the file`,
      };
    }
    container = child as Record<string, unknown> | unknown[];
  }
  return undefined;
}

/** The child to walk into, created when absent (or empty: `batching:` with nothing after it). */
function descend(container: Record<string, unknown> | unknown[], key: string | number, listNext: boolean): unknown {
  const record = container as Record<string | number, unknown>;
  const existing = record[key];
  if (existing !== undefined && existing !== null) return existing;
  const created: Record<string, unknown> | unknown[] = listNext ? [] : {};
  record[key] = created;
  return created;
}
