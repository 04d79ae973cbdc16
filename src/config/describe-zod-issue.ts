/**
 * Turns zod's issues into sentences for people editing YAML: "expected a whole number, got a
 * string", "unknown key" (at `flows[0].batchng`) with a did-you-mean. Messages describe what is wrong and never
 * quote the value, which may have come from a secret.
 */
import type { z } from '#zod';
import { didYouMean } from '../plugins';
import { valueAtPath, type ConfigPath, type PathSegment } from './config-path';

export interface PathIssue {
  readonly path: PathSegment[];
  readonly message: string;
  readonly hint?: string;
  /** Point at the key rather than its value (unknown keys, bad aliases). */
  readonly atKey?: boolean;
}

export interface IssueContext {
  /** The data that was validated. */
  readonly data: unknown;
  /** Keys allowed in the map at a path (given that map); undefined when any key is. */
  allowedKeys(path: ConfigPath, value: unknown): string[] | undefined;
  /** Whether the value at a path came from `${…}` or `--set`. */
  isSensitive(path: ConfigPath): boolean;
  /** Whether leaving the key out gives a default. */
  hasDefault(path: ConfigPath): boolean;
}

export function describeZodIssue(issue: z.core.$ZodIssue, context: IssueContext): PathIssue[] {
  const path = issue.path.map((segment): PathSegment => (typeof segment === 'symbol' ? String(segment) : segment));
  const value = valueAtPath(context.data, path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: [...path, key],
        message: 'unknown key',
        ...optionalHint(unknownKeyHint(key, path, context.allowedKeys(path, value))),
        atKey: true,
      }));
    case 'invalid_type':
      if (value === undefined) {
        return [{ path, message: 'missing required key' }];
      }
      return [describeWrongType(path, issue.expected, value, context)];
    case 'too_small':
      return [{ path, message: describeBound(issue.origin, 'small', Number(issue.minimum), issue.inclusive !== false) }];
    case 'too_big':
      return [{ path, message: describeBound(issue.origin, 'big', Number(issue.maximum), issue.inclusive !== false) }];
    case 'invalid_value':
      return [{ path, message: oneOf(issue.values.map(String)) }];
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue && issue.options !== undefined) {
        const options = issue.options.map(String);
        if (value === undefined) {
          return [{ path, message: 'missing required key', hint: `one of: ${options.join(', ')}` }];
        }
        return [{ path, message: oneOf(options) }];
      }
      if (value === undefined) return [{ path, message: 'missing required key' }];
      return [{ path, message: issue.message }];
    case 'invalid_key':
      return [{ path, message: issue.issues[0]?.message ?? 'invalid key', atKey: true }];
    default:
      // Our schemas give their own wording to formats and refinements.
      return [{ path, message: issue.message }];
  }
}

function describeWrongType(path: PathSegment[], expected: string, value: unknown, context: IssueContext): PathIssue {
  if (expected === 'int' && typeof value === 'number') {
    return { path, message: 'must be a whole number' };
  }
  const message = `expected ${expectedName(expected)}, got ${describeValue(value)}`;
  if (value === null) {
    return {
      path,
      message,
      ...(context.hasDefault(path) ? { hint: 'an empty value is null; leave the key out to get the default' } : {}),
    };
  }
  if (expected === 'array' && typeof value === 'string') {
    return { path, message, hint: 'write a YAML list: [a, b], or one "- item" per line' };
  }
  // Only for text that would have been a number or boolean without quotes; a value from `${…}` or
  // --set was not quoted by anyone.
  if (typeof value === 'string' && /^(-?\d+(\.\d+)?|true|false)$/.test(value) && !context.isSensitive(path)) {
    return { path, message, hint: 'quotes make a string; write the value without them' };
  }
  return { path, message };
}

function expectedName(expected: string): string {
  switch (expected) {
    case 'int':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
    case 'tuple':
      return 'a list';
    case 'object':
    case 'record':
    case 'map':
      return 'a map';
    default:
      return expected;
  }
}

/** The kind of a value, never the value itself. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(value) ? 'a whole number' : 'a number';
    case 'boolean':
      return 'true/false';
    case 'object':
      return 'a map';
    default:
      return typeof value;
  }
}

function describeBound(origin: string, side: 'small' | 'big', bound: number, inclusive: boolean): string {
  if (origin === 'array' || origin === 'set') {
    if (side === 'small') return bound <= 1 ? 'must not be empty' : `needs at least ${bound} entries`;
    return `may have at most ${bound} entries`;
  }
  if (origin === 'string') {
    if (side === 'small') return bound <= 1 ? 'must not be empty' : `must be at least ${bound} characters long`;
    return `must be at most ${bound} characters long`;
  }
  if (side === 'big' && bound >= Number.MAX_SAFE_INTEGER) return 'is too large';
  if (side === 'small' && bound <= Number.MIN_SAFE_INTEGER) return 'is too small';
  if (side === 'small') return inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}

/** Enum choices; upper-case aliases (SASL_SSL) are not listed twice. */
function oneOf(values: string[]): string {
  const shown = values.filter((v) => v === v.toLowerCase() || !values.includes(v.toLowerCase()));
  return shown.length === 1 ? `must be "${shown[0]}"` : `must be one of: ${shown.join(', ')}`;
}

function unknownKeyHint(key: string, path: PathSegment[], allowed: string[] | undefined): string | undefined {
  if (path.length === 1 && path[0] === 'flow_defaults' && (key === 'source' || key === 'target')) {
    return 'source and target belong in each flow, not in flow_defaults';
  }
  if (allowed === undefined || allowed.length === 0) return undefined;
  const suggestion = didYouMean(key, allowed);
  if (suggestion !== undefined) return `did you mean "${suggestion}"?`;
  return `expected one of: ${allowed.join(', ')}`;
}

function optionalHint(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}
