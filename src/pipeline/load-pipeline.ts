import type { ConfigIssue } from '../core/errors';
import { readPipelineFile, type PipelineConfig } from '../config';
import { createPluginRegistry, projectPluginsDir, validateTransformSteps, type PluginRegistry } from '../plugins';

export interface LoadPipelineOptions {
  readonly set?: readonly string[];
  /** Folders of compiled plugins besides the project's own `plugins/`. */
  readonly pluginDirs?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
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
  const registry = createPluginRegistry({ pluginDirs: [projectPluginsDir(), ...(options.pluginDirs ?? [])] });
  const { config, warnings } = await readPipelineFile(file, {
    env: options.env,
    set: options.set,
    validateTransforms: (steps) => validateTransformSteps(steps, registry),
  });
  return { config, registry, warnings };
}
