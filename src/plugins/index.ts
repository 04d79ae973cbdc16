/**
 * Transform plugins: the API plugins are written against, the registry of available transforms,
 * the loader for custom plugin folders, the built-ins, and the chain a flow runs records through.
 */
export {
  defineTransform,
  noopTransformMetrics,
  z,
  type ContractSamples,
  type Transform,
  type TransformContext,
  type TransformCounter,
  type TransformDefinition,
  type TransformMetrics,
} from './api';
export { PluginRegistry } from './registry';
export {
  createPluginRegistry,
  loadPluginFolder,
  loadPluginFolders,
  scanPluginDir,
  loadPluginsFrom,
  projectPluginsDir,
  withPluginPackages,
  type LoadedPlugin,
  type PackageFailure,
  type PluginRegistryOptions,
} from './loader';
export { pluginCatalog, type CatalogEntry, type CatalogOptions, type PluginSource } from './catalog';
export { transformOptions, type OptionDoc } from './option-docs';
export { buildTransformChain, validateTransformSteps, TransformChain, type TransformChainContext, type TransformStep } from './transform-chain';
export { builtInTransforms, connectTransformEquivalents } from './builtins';
export { isFieldTransformDefinition } from './connect/field-transform';
export { topicAfterTransforms } from './topic-renames';
export { stepConditionSchema } from './step-condition';
export { isSnakeCase } from './check-transform-definition';
export { didYouMean } from './did-you-mean';
export {
  CONVERTER_NAMES,
  REGISTRY_CONVERTER_NAMES,
  REGISTRY_FREE_CONVERTER_NAMES,
  isRegistryConverterName,
  type ConverterName,
  type FlowConverters,
  type RegistryConverterName,
} from './connect/converters';
export { SCHEMA_TYPE_LABELS, type RegistryConverter, type RegistryConverters, type SchemaType } from './connect/registry-converter';
export { makeRegistryConverter } from './connect/registry-converter-factory';
export { checkPluginContract, type ContractCheck } from './contract';
export { runWithTolerance, type ChainRun, type ErrorTolerance } from './run-with-tolerance';
