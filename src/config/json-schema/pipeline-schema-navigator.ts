import { pipelineJsonSchema } from './pipeline-json-schema';
import { SchemaNavigator } from './schema-navigator';

let navigator: SchemaNavigator | undefined;

/**
 * The navigator over the pipeline's JSON Schema, built once: every loader and `--set` share it.
 * The schema itself is generated at the navigator's first question (a `${…}` value, `--set`, a
 * problem to describe), not at every start of `run`.
 */
export function pipelineSchemaNavigator(): SchemaNavigator {
  navigator ??= new SchemaNavigator(pipelineJsonSchema);
  return navigator;
}
