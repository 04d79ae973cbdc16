import { readFile } from 'node:fs/promises';
import { ConfigError } from '../core/errors';
import { describeFsError } from './describe-fs-error';
import type { PipelineConfig } from './pipeline-config';
import { parsePipeline, type ParsePipelineOptions } from './parse-pipeline';

/**
 * Reads and validates a pipeline file. Throws `ConfigError` carrying every problem found; an
 * unreadable file is one of them, so `mirrorflow validate a.yaml b.yaml` reports both alike.
 */
export async function loadPipelineFile(file: string, options: ParsePipelineOptions = {}): Promise<PipelineConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ file, message: `cannot read the pipeline file: ${describeFsError(error)}` }], { cause: error });
  }
  return parsePipeline(text, file, options);
}
