/**
 * DI tokens of the configuration, which lives in src/config; its types come from a schema, so
 * the tokens cannot share their names and are named for what they hold.
 */
export const PipelineConfigToken = Symbol.for('mirrorflow.PipelineConfig');
/** One flow's config, bound in that flow's child container only. */
export const FlowConfigToken = Symbol.for('mirrorflow.FlowConfig');
