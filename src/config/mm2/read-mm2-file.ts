/**
 * The first steps of reading an mm2.properties file, shared by `run`/`validate` (references
 * resolved) and `convert` (references kept, as opaque placeholders that the YAML writes back as
 * pipeline references): its entries with their lines, `--set` entries that name MM2 keys, the
 * declared config providers, and every `${…}` reference checked against them.
 */
import type { ConfigIssue } from '../../core/errors';
import type { IssueList } from '../issue-list';
import { readPropertyEntries, type PropertyEntry } from './java-properties';
import type { Mm2Problem, Mm2Property } from './mm2-document';
import { fileKind } from './written-as';
import {
  checkReference,
  createMm2Resolver,
  declareProviderHint,
  declareProviders,
  findBareVariables,
  findMm2References,
  toPipelineReference,
  type ReferenceContext,
} from './mm2-providers';

/** Top-level keys of a pipeline: a `--set` path starting with one of these is a pipeline path. */
const PIPELINE_KEYS = ['name', 'clusters', 'flow_defaults', 'flows', 'logging', 'http'];

export interface Mm2FileOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--set` entries: MM2 keys (`primary->backup.topics=orders`) or pipeline paths. */
  readonly set?: readonly string[];
  /** Where relative paths start, as for MM2's JVM; default the working directory. */
  readonly cwd?: string;
  /** convert: the folder the YAML goes to, which relative paths of kept references are written relative to. */
  readonly pipelineDir?: string;
}

export interface Mm2File {
  readonly properties: Mm2Property[];
  readonly resolvedKeys: Set<string>;
  readonly failedKeys: Set<string>;
  /** `--set` entries that are pipeline paths, for the shared validation. */
  readonly pipelineSets: string[];
  /** Placeholder → pipeline reference text (convert only). */
  readonly placeholders: Map<string, string>;
  readonly cwd: string;
}

const PLACEHOLDER_START = '\uE000';
const PLACEHOLDER_END = '\uE001';

export function isOpaqueValue(value: string): boolean {
  return value.includes(PLACEHOLDER_START);
}

/** Replaces every placeholder in `text` with the pipeline reference it stands for. */
export function restoreReferences(text: string, placeholders: ReadonlyMap<string, string>): string {
  return text.replace(/\uE000\d+\uE001/g, (placeholder) => placeholders.get(placeholder) ?? placeholder);
}

export function readMm2File(text: string, issues: IssueList, options: Mm2FileOptions, mode: 'resolve' | 'keep'): Mm2File {
  const entries = readPropertyEntries(text);
  if (entries.length === 0)
    issues.add({ line: 1, column: 1, message: 'the file is empty', hint: 'an mm2.properties file has clusters = … and <source>-><target>.enabled = true' });
  return readMm2Properties(
    entries.map((entry) => ({ key: entry.key, value: entry.value, entry })),
    issues,
    options,
    mode,
  );
}

/** `readMm2File` from the properties already read (a driver file's, or those connector configs stand for). */
export function readMm2Properties(fileProperties: readonly Mm2Property[], issues: IssueList, options: Mm2FileOptions, mode: 'resolve' | 'keep'): Mm2File {
  const cwd = options.cwd ?? process.cwd();
  const properties: Mm2Property[] = [...fileProperties];
  const resolvedKeys = new Set<string>();
  const pipelineSets: string[] = [];
  for (const set of options.set ?? []) {
    const eq = set.indexOf('=');
    const key = eq < 0 ? set : set.slice(0, eq).trim();
    const first = /^[^.[]*/.exec(key)![0];
    if (eq > 0 && (key === 'clusters' || key.includes('->') || !PIPELINE_KEYS.includes(first))) {
      // Like a line added at the end of the file; its value may be a secret.
      properties.push({ key, value: set.slice(eq + 1), viaSet: true });
      resolvedKeys.add(key);
    } else {
      pipelineSets.push(set);
    }
  }

  const latest = new Map<string, string>();
  for (const prop of properties) latest.set(prop.key, prop.value);
  const { providers, problems } = declareProviders(latest, cwd);
  for (const problem of problems) addProblem(issues, { ...problem, ...entryOf(properties, problem.key) });

  const context: ReferenceContext = { providers, env: options.env ?? process.env, cwd };
  const resolve = createMm2Resolver(context);
  const failedKeys = new Set<string>();
  const placeholders = new Map<string, string>();
  const resolved = properties.map((prop): Mm2Property => {
    if (prop.key.startsWith('config.providers')) return prop;
    const at = (offset: number): { line?: number; column?: number; file?: string } =>
      prop.entry === undefined
        ? {}
        : { line: prop.entry.valueLine, column: prop.entry.valueColumn + offset, ...(prop.entry.file === undefined ? {} : { file: prop.entry.file }) };
    const shown = shownKey(prop);
    for (const bare of findBareVariables(prop.value)) {
      failedKeys.add(prop.key);
      issues.add({
        ...at(bare.offset),
        path: shown,
        message: `${bare.text} is not a config provider reference`,
        hint: `${fileKind(prop.entry)} reads environment variables through a provider: ${declareProviderHint('env', [], prop.entry).replace(/^declare it: /, '')}, then \${env:NAME}`,
      });
    }
    const references = findMm2References(prop.value);
    if (references.length === 0) return prop;
    resolvedKeys.add(prop.key);
    let value = '';
    let last = 0;
    for (const reference of references) {
      value += prop.value.slice(last, reference.offset);
      last = reference.offset + reference.text.length;
      const outcome = mode === 'resolve' ? resolve(reference, prop.entry) : (checkReference(reference, context, prop.entry) ?? { value: '' });
      if ('message' in outcome) {
        failedKeys.add(prop.key);
        issues.add({ ...at(reference.offset), path: shown, message: outcome.message, ...(outcome.hint === undefined ? {} : { hint: outcome.hint }) });
        continue;
      }
      if (mode === 'resolve') {
        value += outcome.value;
      } else {
        const placeholder = `${PLACEHOLDER_START}${placeholders.size}${PLACEHOLDER_END}`;
        placeholders.set(placeholder, toPipelineReference(reference, context, options.pipelineDir));
        value += placeholder;
      }
    }
    value += prop.value.slice(last);
    return { ...prop, value };
  });
  return { properties: resolved, resolvedKeys, failedKeys, pipelineSets, placeholders, cwd };
}

function entryOf(properties: readonly Mm2Property[], key: string): { entry?: PropertyEntry } {
  const entry = properties.findLast((p) => p.key === key)?.entry;
  return entry === undefined ? {} : { entry };
}

/** The key as the user wrote it: a connector config's own key rather than the driver key it stands for. */
export function shownKey(prop: { readonly key: string; readonly entry?: Mm2Property['entry'] }): string {
  return prop.entry?.file === undefined ? prop.key : prop.entry.key;
}

/** Adds a problem about one property at its line (the value's, when it is about the value). */
export function addProblem(issues: { add(issue: Omit<ConfigIssue, 'file'> & { readonly file?: string }): void }, problem: Mm2Problem): void {
  const { entry } = problem;
  const position =
    entry === undefined ? {} : problem.atValue === true ? { line: entry.valueLine, column: entry.valueColumn } : { line: entry.line, column: entry.column };
  const hints = [problem.hint, problem.viaSet === true ? `set by --set ${problem.key}` : undefined].filter((h): h is string => h !== undefined);
  issues.add({
    ...(entry?.file === undefined ? {} : { file: entry.file }),
    ...position,
    path: shownKey(problem),
    message: problem.message,
    ...(hints.length === 0 ? {} : { hint: hints.join('; ') }),
  });
}
