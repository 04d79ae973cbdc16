/**
 * Resolves `${…}` references against the environment and MM2-style config providers. Messages
 * name the variable, key and file, never a value: what a reference resolves to may be a secret.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve as resolvePath } from 'node:path';
import type { Reference, ReferenceResolver, ResolveOutcome } from './interpolate';
import { describeFsError } from '../describe-fs-error';
import { parseJavaProperties } from '../mm2/java-properties';

export interface ReferenceResolverOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative `file:` and `dir:` paths start here: the pipeline file's folder. */
  readonly baseDir: string;
}

export function createReferenceResolver(options: ReferenceResolverOptions): ReferenceResolver {
  // One read per properties file, however many keys a pipeline takes from it.
  const propertiesFiles = new Map<string, Map<string, string> | { error: string }>();

  const readProperties = (path: string): Map<string, string> | { error: string } => {
    let cached = propertiesFiles.get(path);
    if (cached === undefined) {
      try {
        cached = parseJavaProperties(readFileSync(path, 'utf8'));
      } catch (error) {
        cached = { error: describeFsError(error) };
      }
      propertiesFiles.set(path, cached);
    }
    return cached;
  };

  return (reference: Reference): ResolveOutcome => {
    switch (reference.kind) {
      case 'variable': {
        const value = options.env[reference.name];
        if (value !== undefined) return { value };
        if (reference.fallback !== undefined) return { value: reference.fallback };
        return {
          message: `variable ${reference.name} is not set`,
          hint: `set it, or give a default: \${${reference.name}:default}`,
        };
      }
      case 'env': {
        const value = options.env[reference.name];
        if (value !== undefined) return { value };
        return { message: `environment variable ${reference.name} is not set (${reference.text})` };
      }
      case 'file': {
        const path = resolvePath(options.baseDir, reference.path);
        const properties = readProperties(path);
        if (properties instanceof Map) {
          const value = properties.get(reference.key);
          if (value !== undefined) return { value };
          return { message: `key "${reference.key}" is not in properties file ${path} (${reference.text})` };
        }
        return { message: `cannot read properties file ${path} (${reference.text}): ${properties.error}` };
      }
      case 'dir': {
        // Like MM2's DirectoryConfigProvider: only files directly inside the folder.
        if (basename(reference.file) !== reference.file) {
          return { message: `"${reference.file}" must be a file name inside the folder, not a path (${reference.text})` };
        }
        const path = resolvePath(options.baseDir, reference.path, reference.file);
        try {
          return { value: readFileSync(path, 'utf8').replace(/\r?\n$/, '') };
        } catch (error) {
          return { message: `cannot read ${path} (${reference.text}): ${describeFsError(error)}` };
        }
      }
    }
  };
}
