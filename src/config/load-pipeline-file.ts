import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ConfigError } from '../core/errors';
import { collectSecretValues } from '../core/secrets';
import { describeFsError } from './describe-fs-error';
import type { PipelineConfig } from './pipeline-config';
import { parseMm2Properties, type ParsedPipeline } from './parse-mm2-properties';
import { parsePipeline, type ParsePipelineOptions } from './parse-pipeline';

/** MM2's driver file (`connect-mirror-maker.sh mm2.properties`), told apart by its extension. */
export function isMm2PropertiesFile(file: string): boolean {
  return extname(file).toLowerCase() === '.properties';
}

/**
 * Reads and validates a pipeline file: YAML, or MM2's mm2.properties. Throws `ConfigError`
 * carrying every problem found; an unreadable file is one of them, so
 * `mirrorflow validate a.yaml b.properties` reports both alike. Warnings are notes that do not
 * stop a run (an MM2 key without effect here, a key written twice).
 */
export async function readPipelineFile(file: string, options: ParsePipelineOptions = {}): Promise<ParsedPipeline> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ file, message: `cannot read the pipeline file: ${describeFsError(error)}` }], { cause: error });
  }
  const parsed = isMm2PropertiesFile(file) ? parseMm2Properties(text, file, options) : { config: parsePipeline(text, file, options), warnings: [] };
  // From now on the logger and the error output mask these values wherever they appear, whether
  // they were written in the file or came from the environment or a secrets file.
  collectSecretValues(parsed.config);
  return parsed;
}

/** `readPipelineFile` for callers that only need the pipeline. */
export async function loadPipelineFile(file: string, options: ParsePipelineOptions = {}): Promise<PipelineConfig> {
  return (await readPipelineFile(file, options)).config;
}
