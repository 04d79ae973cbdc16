import { createPluginRegistry, projectPluginsDir, validateTransformSteps } from '../plugins';
import type { TransformStepValidator } from './parse-pipeline';

/**
 * A transform validator over the plugins `run` loads: the built-ins, the project's `plugins/`
 * and `pluginDirs`. Lives here because the CLI may not import plugins itself (layer rule); the
 * loader still takes the validator as a parameter, so config tests need no registry.
 * Throws PluginError when a plugin folder cannot be loaded.
 */
export function createTransformValidator(options: { readonly pluginDirs?: readonly string[] } = {}): TransformStepValidator {
  const registry = createPluginRegistry({ pluginDirs: [projectPluginsDir(), ...(options.pluginDirs ?? [])] });
  return (steps) => validateTransformSteps(steps, registry);
}
