import type { FlowConfig as FlowConfigOf, PipelineConfig as PipelineConfigOf } from '../../config';
import { token } from '../../core/ports/token';

/*
 * DI tokens of the configuration. Its types come from src/config's schema; they are named here
 * again so that a token and its type share a name.
 */

/** The pipeline's configuration, bound in the pipeline's container. */
export type PipelineConfig = PipelineConfigOf;
export const PipelineConfig = token<PipelineConfig>('PipelineConfig');

/** One flow's config, bound in that flow's child container only. */
export type FlowConfig = FlowConfigOf;
export const FlowConfig = token<FlowConfig>('FlowConfig');
