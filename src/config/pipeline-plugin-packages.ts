/**
 * The npm packages a pipeline file names in `plugins:`, read without checking the rest of the
 * file — for `mirrorflow plugins list FILE`, which shows broken plugins rather than stopping at
 * them. mm2.properties files name none.
 */
import { readFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { parse } from '#yaml';
import { ConfigError } from '../core/errors';

export interface PipelinePluginPackages {
  readonly packages: readonly string[];
  /** Where they are resolved from: the file's folder. */
  readonly baseDir: string;
}

export async function readPluginPackages(file: string): Promise<PipelinePluginPackages> {
  const baseDir = dirname(resolve(file));
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ file, message: `cannot read the pipeline file: ${(error as Error).message}` }]);
  }
  if (extname(file) === '.properties' || extname(file) === '.json') return { packages: [], baseDir };
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new ConfigError([{ file, message: `not valid YAML: ${(error as Error).message.split('\n')[0]}` }]);
  }
  const plugins = typeof data === 'object' && data !== null ? (data as { plugins?: unknown }).plugins : undefined;
  if (plugins === undefined) return { packages: [], baseDir };
  if (!Array.isArray(plugins) || !plugins.every((p): p is string => typeof p === 'string')) {
    throw new ConfigError([{ file, path: 'plugins', message: 'must be a list of npm package names' }]);
  }
  return { packages: plugins, baseDir };
}
