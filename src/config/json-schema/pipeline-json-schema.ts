import { z } from '#zod';
import { pipelineFileSchema } from '../schema/pipeline-schema';
import type { JsonSchema } from './schema-navigator';

/**
 * The JSON Schema of the pipeline file (the input side: defaults are optional, as in the file).
 * `config/pipeline.schema.json` is this, written by `write-schema.ts`; a test fails on drift.
 */
export function pipelineJsonSchema(): JsonSchema & Record<string, unknown> {
  return z.toJSONSchema(pipelineFileSchema, { io: 'input' }) as JsonSchema & Record<string, unknown>;
}

/** The committed file's exact text: stable key order, two-space indent, final newline. */
export function pipelineJsonSchemaText(): string {
  return `${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`;
}
