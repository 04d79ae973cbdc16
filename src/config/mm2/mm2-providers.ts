/**
 * Config providers as MM2 resolves them in an mm2.properties file: `config.providers = file, env`
 * declares names, `config.providers.<name>.class` says which provider a name stands for, and
 * `${<name>:<path>:<key>}` / `${<name>:<key>}` in a value (Kafka's ConfigTransformer pattern)
 * reads from it. Three of Kafka's providers are built in:
 *   FileConfigProvider       `${file:/etc/mm2/secrets.properties:b.password}` (a properties file)
 *   DirectoryConfigProvider  `${dir:/run/secrets:password}` (a file's whole text)
 *   EnvVarConfigProvider     `${env:PASSWORD}`
 * with their `allowed.paths` and `allowlist.pattern` parameters. Unlike MM2, which leaves a
 * reference it cannot resolve in the value as it is, every such reference is an error that names
 * the key; messages never hold what a reference resolves to.
 *
 * Relative paths start in the working directory, as they do for MM2's JVM; one trailing newline
 * of a `dir` file is dropped, as pipeline files do (MM2 keeps it, which is never what a password
 * file means).
 */
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { InvalidPatternError, compilePatternList, type PatternList } from '../../policy';
import { describeFsError } from '../describe-fs-error';
import { parseJavaProperties } from './java-properties';
import type { Mm2Entry } from './mm2-document';
import { writtenAs } from './written-as';

export type ProviderKind = 'file' | 'dir' | 'env';

export const PROVIDER_CLASSES: Readonly<Record<string, ProviderKind>> = {
  'org.apache.kafka.common.config.provider.FileConfigProvider': 'file',
  'org.apache.kafka.common.config.provider.DirectoryConfigProvider': 'dir',
  'org.apache.kafka.common.config.provider.EnvVarConfigProvider': 'env',
};

/** The parameters each provider reads (`config.providers.<name>.param.<param>`). */
const PROVIDER_PARAMS: Readonly<Record<ProviderKind, readonly string[]>> = {
  file: ['allowed.paths'],
  dir: ['allowed.paths'],
  env: ['allowlist.pattern'],
};

export interface ProviderDeclaration {
  readonly name: string;
  readonly kind: ProviderKind;
  /** `allowed.paths`: absolute folders a path must lie in; undefined = any path. */
  readonly allowedPaths?: readonly string[];
  /** `allowlist.pattern`: which environment variables may be read. */
  readonly allowlist?: PatternList;
}

/** A `${…}` in a value, as Kafka's ConfigTransformer pattern `\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}` reads it. */
export interface Mm2Reference {
  readonly text: string;
  readonly provider: string;
  readonly path?: string;
  readonly key: string;
  /** Offset of `${` in the value. */
  readonly offset: number;
}

const REFERENCE = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

export function findMm2References(value: string): Mm2Reference[] {
  const found: Mm2Reference[] = [];
  for (const match of value.matchAll(REFERENCE)) {
    found.push({
      text: match[0],
      provider: match[1]!,
      ...(match[2] === undefined ? {} : { path: match[2] }),
      key: match[3]!,
      offset: match.index,
    });
  }
  return found;
}

/** `${NAME}` with no colon: a pipeline-style variable, which MM2 would keep as literal text. */
export function findBareVariables(value: string): { text: string; offset: number }[] {
  return [...value.matchAll(/\$\{([^}:]*)\}/g)].map((match) => ({ text: match[0], offset: match.index }));
}

export interface ProviderProblem {
  /** The property the problem is about. */
  readonly key: string;
  readonly message: string;
  readonly hint?: string;
}

/**
 * Reads the `config.providers*` properties into declarations. `properties` holds the file's
 * values (later entries already won).
 */
export function declareProviders(
  properties: ReadonlyMap<string, string>,
  cwd: string,
): { providers: Map<string, ProviderDeclaration>; problems: ProviderProblem[] } {
  const providers = new Map<string, ProviderDeclaration>();
  const problems: ProviderProblem[] = [];
  const listed = splitList(properties.get('config.providers') ?? '');
  const seen = new Set<string>();
  for (const name of listed) {
    if (name === '' || seen.has(name)) {
      problems.push({ key: 'config.providers', message: name === '' ? 'an empty provider name' : `provider "${name}" is listed twice` });
      continue;
    }
    seen.add(name);
    const classKey = `config.providers.${name}.class`;
    const className = properties.get(classKey)?.trim();
    if (className === undefined) {
      problems.push({
        key: 'config.providers',
        message: `provider "${name}" has no ${classKey}`,
        hint: `e.g. ${classKey} = org.apache.kafka.common.config.provider.FileConfigProvider`,
      });
      continue;
    }
    const kind = PROVIDER_CLASSES[className];
    if (kind === undefined) {
      problems.push({
        key: classKey,
        message: `config provider class ${className} is not supported`,
        hint: 'mirrorflow has FileConfigProvider, DirectoryConfigProvider and EnvVarConfigProvider; custom Java providers cannot run',
      });
      continue;
    }
    const paramPrefix = `config.providers.${name}.param.`;
    let declaration: ProviderDeclaration = { name, kind };
    for (const [key, value] of properties) {
      if (!key.startsWith(paramPrefix)) continue;
      const param = key.slice(paramPrefix.length);
      if (!PROVIDER_PARAMS[kind].includes(param)) {
        problems.push({ key, message: `unknown parameter "${param}" of a ${kind} provider`, hint: `it takes: ${PROVIDER_PARAMS[kind].join(', ')}` });
      } else if (param === 'allowed.paths') {
        declaration = { ...declaration, allowedPaths: splitList(value).map((path) => resolvePath(cwd, path)) };
      } else {
        try {
          declaration = { ...declaration, allowlist: compilePatternList([value]) };
        } catch (error) {
          problems.push({ key, message: `invalid regular expression: ${error instanceof InvalidPatternError ? error.reason : 'it does not compile'}` });
        }
      }
    }
    providers.set(name, declaration);
  }
  // Keys of providers that are not listed do nothing in MM2; say so rather than ignore them.
  for (const key of properties.keys()) {
    const match = /^config\.providers\.([^.]+)\./.exec(key);
    if (match !== null && !seen.has(match[1]!)) {
      problems.push({
        key,
        message: `provider "${match[1]}" is not listed in config.providers`,
        hint: `add it: config.providers = ${[...listed.filter((n) => n !== ''), match[1]].join(', ')}`,
      });
    }
  }
  return { providers, problems };
}

export type ReferenceOutcome = { readonly value: string } | { readonly message: string; readonly hint?: string };

export interface ReferenceContext {
  readonly providers: ReadonlyMap<string, ProviderDeclaration>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The provider a name usually stands for, in MM2's documentation and examples. */
const USUAL_PROVIDERS: Readonly<Record<string, string>> = {
  file: 'org.apache.kafka.common.config.provider.FileConfigProvider',
  dir: 'org.apache.kafka.common.config.provider.DirectoryConfigProvider',
  env: 'org.apache.kafka.common.config.provider.EnvVarConfigProvider',
};

/**
 * How to declare provider `name`, written as the file `entry` came from writes settings: for
 * `${env:…}` the EnvVarConfigProvider, for `${file:…}` the FileConfigProvider, and so on.
 */
export function declareProviderHint(name: string, listed: readonly string[], entry?: Mm2Entry): string {
  const providers = writtenAs(entry, 'config.providers', [...listed, name].join(', '));
  const classKey = `config.providers.${name}.class`;
  const usual = USUAL_PROVIDERS[name];
  return usual === undefined
    ? `declare it: ${providers} and ${writtenAs(entry, classKey, '…')} (FileConfigProvider, DirectoryConfigProvider or EnvVarConfigProvider of org.apache.kafka.common.config.provider)`
    : `declare it: ${providers} and ${writtenAs(entry, classKey, usual)}`;
}

/** Checks a reference against its provider's declaration; undefined when it may be read. `entry` is where it was written, for hints. */
export function checkReference(reference: Mm2Reference, context: ReferenceContext, entry?: Mm2Entry): { message: string; hint?: string } | undefined {
  const provider = context.providers.get(reference.provider);
  if (provider === undefined) {
    return {
      message: `${reference.text} uses config provider "${reference.provider}", which is not declared`,
      hint: declareProviderHint(reference.provider, [...context.providers.keys()], entry),
    };
  }
  switch (provider.kind) {
    case 'env':
      if (reference.path !== undefined && reference.path !== '')
        return { message: `${reference.text}: an environment variable reference has no path`, hint: `write \${${reference.provider}:NAME}` };
      if (provider.allowlist !== undefined && !provider.allowlist.matches(reference.key)) {
        return { message: `${reference.text}: ${reference.key} is not allowed by config.providers.${provider.name}.param.allowlist.pattern` };
      }
      return undefined;
    case 'file':
    case 'dir': {
      if (reference.path === undefined || reference.path === '') {
        return { message: `${reference.text} has no path`, hint: `write \${${reference.provider}:PATH:${provider.kind === 'file' ? 'KEY' : 'FILE'}}` };
      }
      const path = resolvePath(context.cwd, reference.path);
      if (provider.allowedPaths !== undefined && !provider.allowedPaths.some((allowed) => isInside(path, allowed))) {
        return { message: `${reference.text}: ${path} is outside config.providers.${provider.name}.param.allowed.paths` };
      }
      if (provider.kind === 'dir' && basename(reference.key) !== reference.key) {
        return { message: `${reference.text}: "${reference.key}" must be a file name inside the folder, not a path` };
      }
      return undefined;
    }
  }
}

/** A resolver with one read per properties file. */
export function createMm2Resolver(context: ReferenceContext): (reference: Mm2Reference, entry?: Mm2Entry) => ReferenceOutcome {
  const files = new Map<string, Map<string, string> | { error: string }>();
  const readProperties = (path: string): Map<string, string> | { error: string } => {
    let cached = files.get(path);
    if (cached === undefined) {
      try {
        cached = parseJavaProperties(readFileSync(path, 'utf8'));
      } catch (error) {
        cached = { error: describeFsError(error) };
      }
      files.set(path, cached);
    }
    return cached;
  };
  return (reference, entry) => {
    const problem = checkReference(reference, context, entry);
    if (problem !== undefined) return problem;
    const provider = context.providers.get(reference.provider)!;
    if (provider.kind === 'env') {
      const value = context.env[reference.key];
      return value === undefined ? { message: `${reference.text}: environment variable ${reference.key} is not set` } : { value };
    }
    const path = resolvePath(context.cwd, reference.path!);
    if (provider.kind === 'file') {
      const properties = readProperties(path);
      if (!(properties instanceof Map)) return { message: `${reference.text}: cannot read properties file ${path}: ${properties.error}` };
      const value = properties.get(reference.key);
      return value === undefined ? { message: `${reference.text}: key "${reference.key}" is not in properties file ${path}` } : { value };
    }
    const file = resolvePath(path, reference.key);
    try {
      return { value: readFileSync(file, 'utf8').replace(/\r?\n$/, '') };
    } catch (error) {
      return { message: `${reference.text}: cannot read ${file}: ${describeFsError(error)}` };
    }
  };
}

/**
 * The same reference as a pipeline file writes it (`${file:path:key}`, `${env:NAME}`), where
 * provider names are fixed and relative paths start at the pipeline file: a path the properties
 * file wrote relative (to the working directory, for MM2) is written relative to `pipelineDir`,
 * the folder the pipeline file goes to, so both name the same file; an absolute one stays.
 */
export function toPipelineReference(reference: Mm2Reference, context: ReferenceContext, pipelineDir?: string): string {
  const provider = context.providers.get(reference.provider)!;
  if (provider.kind === 'env') return `\${env:${reference.key}}`;
  const absolute = resolvePath(context.cwd, reference.path!);
  const path = pipelineDir === undefined || isAbsolute(reference.path!) ? absolute : relative(pipelineDir, absolute);
  return `\${${provider.kind}:${path}:${reference.key}}`;
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Kafka's LIST parsing (ConfigDef): trim, then split on commas with optional spaces around them. */
export function splitList(value: string): string[] {
  const trimmed = value.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}
