import type { ConfigIssue } from '../core/errors';
import { ValuesNotResolved, parsePipelineTexts, readPipelineFile, type ConnectorConfigText, type PipelineConfig, type TransformStepValidator } from '../config';
import { createPluginRegistry, projectPluginsDir, validateTransformSteps, withPluginPackages, type PluginRegistry } from '../plugins';
import { checkTlsFiles } from './check-tls-files';

export interface LoadPipelineOptions {
  readonly set?: readonly string[];
  /** Folders of compiled plugins besides the project's own `plugins/`. */
  readonly pluginDirs?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * false: `${…}` references are checked (syntax, declared providers) but not read, and neither are
   * the files the pipeline names (`validate --no-resolve`, for a build machine without the secrets).
   */
  readonly resolve?: boolean;
  /** An mm2.properties file's unknown keys: problems (default) or warnings (`--unknown-keys warn`, as MM2 drops them). */
  readonly unknownKeys?: 'error' | 'warn';
}

export interface LoadedPipeline {
  readonly config: PipelineConfig;
  readonly registry: PluginRegistry;
  /** Notes about the file that do not stop it, e.g. an MM2 key that has no effect here. */
  readonly warnings: readonly ConfigIssue[];
}

/**
 * Loads the transform plugins and a pipeline file (YAML, or MM2's mm2.properties, told apart by
 * the extension; or MM2 connector configs, several making one pipeline), checking every transform step against its plugin's schema, so every problem of
 * the file is reported at once and nothing connects.
 */
export async function loadPipeline(file: string | readonly string[], options: LoadPipelineOptions = {}): Promise<LoadedPipeline> {
  const plugins = pluginLoader(options);
  const { config, warnings } = await readPipelineFile(file, {
    env: options.env,
    set: options.set,
    ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }),
    validateTransforms: plugins.validate,
    ...(options.resolve === false ? { resolve: false } : { checkConfig: checkTlsFiles }),
  });
  return { config, registry: plugins.registry(), warnings };
}

/** What `validate` learns of a file that has no problems. */
export interface CheckedPipeline {
  readonly warnings: readonly ConfigIssue[];
  /** false when the schema needed values that were not read (`resolve: false`): what needs a whole pipeline (loops) was not checked. */
  readonly complete: boolean;
}

/** `loadPipeline` for `validate`: throws the ConfigError of a file's problems, or says how far the file could be checked. */
export async function checkPipeline(file: string | readonly string[], options: LoadPipelineOptions = {}): Promise<CheckedPipeline> {
  try {
    const { warnings } = await loadPipeline(file, options);
    return { warnings, complete: true };
  } catch (error) {
    if (error instanceof ValuesNotResolved) return { warnings: error.warnings, complete: false };
    throw error;
  }
}

/**
 * The plugin folders' registry, and a transform validator that first adds the npm packages the
 * document names in `plugins:` (each one that fails is an issue at `plugins[i]`); `registry()`
 * is the result, once the document was read.
 */
function pluginLoader(options: LoadPipelineOptions): { validate: TransformStepValidator; registry: () => PluginRegistry } {
  const folders = createPluginRegistry({ pluginDirs: [projectPluginsDir(), ...(options.pluginDirs ?? [])] });
  let registry = folders;
  const validate: TransformStepValidator = (steps, { packages, baseDir }) => {
    const added = withPluginPackages(folders, packages, baseDir);
    registry = added.registry;
    const issues: ConfigIssue[] = added.failures.map(({ index, error }) => ({ path: `plugins[${index}]`, message: error.message }));
    return [...issues, ...validateTransformSteps(steps, registry)];
  };
  return { validate, registry: () => registry };
}

/** `loadPipeline` of connector configs given as texts (a connector changed over the REST API among those read from files). */
export function loadPipelineTexts(texts: readonly ConnectorConfigText[], options: LoadPipelineOptions & { readonly name?: string } = {}): LoadedPipeline {
  const plugins = pluginLoader(options);
  const { config, warnings } = parsePipelineTexts(texts, {
    env: options.env,
    set: options.set,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }),
    validateTransforms: plugins.validate,
    checkConfig: checkTlsFiles,
  });
  return { config, registry: plugins.registry(), warnings };
}
