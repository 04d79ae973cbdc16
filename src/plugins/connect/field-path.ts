/**
 * Connect's field paths (KIP-821, `field.syntax.version`): with V1 a field name is taken as
 * written; with V2 it is a path of nested fields split at dots, where a step in backticks may hold
 * dots (`` `a.b`.c `` is `a.b`, then `c`) and a backslash before a backtick that a dot follows
 * keeps that backtick in the name. A path ending in a dot ends in an empty name. Looked up as
 * Connect's `SingleFieldPath` does: schemaless, a missing step gives null and a step that is not
 * a map fails; with a schema, a field the schema lacks at any step is unknown, and a null struct
 * on the way gives null.
 */
import { z } from '../api';
import { ConnectDataError, JavaHashMap, javaClassName, requireStruct, Struct, type ConnectField, type ConnectSchema, type ConnectValue } from './connect-value';

export type FieldSyntaxVersion = 'V1' | 'V2';

/** `field_syntax_version`, read as Connect reads it (any case). */
export const fieldSyntaxVersion = z
  .preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(['V1', 'V2']))
  .default('V1')
  .describe("How field names are read (Connect's `field.syntax.version`): `V1` as written, `V2` as a path of nested fields (`a.b`, `` `a.b`.c ``).");

/** The steps of a path; throws an Error with Connect's message when a backtick is not closed. */
export function parseFieldPath(path: string, version: FieldSyntaxVersion): readonly string[] {
  if (version === 'V1') return [path];
  const steps: string[] = [];
  let at = 0;
  while (at < path.length) {
    if (path[at] !== '`') {
      const dot = path.indexOf('.', at);
      steps.push(dot < 0 ? path.slice(at) : path.slice(at, dot));
      at = dot < 0 ? path.length : dot + 1;
      continue;
    }
    // A quoted step: it closes at a backtick that ends the path or that a dot follows, unless a
    // backslash comes before it (before a dot, that keeps the backtick; at the end, it is an error).
    const opening = at;
    let name = '';
    let from = at + 1;
    let scan = at + 1;
    for (;;) {
      const tick = path.indexOf('`', scan);
      if (tick < 0) throw incompleteBacktick(path, opening);
      const escaped = path[tick - 1] === '\\';
      if (tick === path.length - 1) {
        if (escaped) throw incompleteBacktick(path, opening);
        steps.push(name + path.slice(from, tick));
        at = path.length;
        break;
      }
      if (path[tick + 1] !== '.') {
        scan = tick + 1;
      } else if (escaped) {
        name += `${path.slice(from, tick - 1)}\``;
        from = scan = tick + 1;
      } else {
        steps.push(name + path.slice(from, tick));
        at = tick + 2;
        break;
      }
    }
  }
  if (path.endsWith('.')) steps.push('');
  return steps;
}

function incompleteBacktick(path: string, position: number): Error {
  return new Error(`Incomplete backtick pair in path: [${path}], consider adding a backslash before backtick at position ${position} to escape it`);
}

/** `SingleFieldPath.valueFrom(Map)`. */
export function valueFromMap(map: JavaHashMap<ConnectValue>, steps: readonly string[]): ConnectValue {
  let current = map;
  for (const step of steps.slice(0, -1)) {
    const next = current.get(step) ?? null;
    if (next === null) return null;
    if (!(next instanceof JavaHashMap)) {
      throw new ConnectDataError(`Only Map objects supported in absence of schema for [nested field access], found: ${javaClassName(next)}`);
    }
    current = next;
  }
  return current.get(steps.at(-1)!) ?? null;
}

/** `SingleFieldPath.fieldFrom(Schema)`: the field, or undefined when a step's struct lacks it. */
export function fieldFrom(schema: ConnectSchema, steps: readonly string[]): ConnectField | undefined {
  let current = schema;
  for (const step of steps.slice(0, -1)) {
    const field = structField(current, step);
    if (field === undefined) return undefined;
    current = field.schema;
  }
  return structField(current, steps.at(-1)!);
}

/** `SingleFieldPath.valueFrom(Struct)`, with defaults. */
export function valueFromStruct(struct: Struct, steps: readonly string[]): ConnectValue {
  let current = struct;
  for (const step of steps.slice(0, -1)) {
    if (current.schema.field(step) === undefined) return null;
    const next = current.get(step);
    if (next === null) return null;
    current = requireStruct(next, 'nested field access');
  }
  const last = steps.at(-1)!;
  return current.schema.field(last) === undefined ? null : current.get(last);
}

/** `Schema.field(name)`, which a schema that is not a struct refuses. */
function structField(schema: ConnectSchema, name: string): ConnectField | undefined {
  if (schema.type !== 'struct') throw new ConnectDataError('Cannot look up fields on non-struct type');
  return schema.field(name);
}
