import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ConfigError, type ConfigIssue } from '../core/errors';
import { collectSecretValues } from '../core/secrets';
import { isConnectorConfig } from './mm2/connector-file';
import { describeFsError } from './describe-fs-error';
import type { ConnectorConfigText } from './mm2/parse-connector-configs';
import type { PipelineConfig } from './pipeline-config';
import type { ParsedPipeline } from './mm2/parse-mm2-properties';
import { parsePipeline, type ParsePipelineOptions } from './parse-pipeline';

/**
 * MM2's files are read by some 20 modules (the key mapping, the converters' and transforms'
 * translations) that `run` of a YAML pipeline never needs: loaded at the first MM2 file, not at
 * every start (issue 42 item 9).
 */
function mm2Readers(): typeof import('./mm2/parse-mm2-properties') & typeof import('./mm2/parse-connector-configs') {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('./mm2/parse-mm2-properties') as typeof import('./mm2/parse-mm2-properties')),
    ...(require('./mm2/parse-connector-configs') as typeof import('./mm2/parse-connector-configs')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

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
export async function readPipelineFile(files: string | readonly string[], options: ParsePipelineOptions = {}): Promise<ParsedPipeline> {
  return parsePipelineTexts(await readTexts(typeof files === 'string' ? [files] : files), options);
}

/** `readPipelineFile` of texts already read (or, for a connector config, given over the REST API). */
export function parsePipelineTexts(texts: readonly ConnectorConfigText[], options: ParsePipelineOptions & { readonly name?: string } = {}): ParsedPipeline {
  const [first] = texts;
  const parsed =
    texts.length > 1 || first!.format !== undefined || isConnectorConfig(first!.file, first!.text)
      ? mm2Readers().parseConnectorConfigs(texts, options)
      : isMm2PropertiesFile(first!.file)
        ? mm2Readers().parseMm2Properties(first!.text, first!.file, options)
        : { config: parsePipeline(first!.text, first!.file, options), warnings: [] };
  // From now on the logger and the error output mask these values wherever they appear, whether
  // they were written in the file or came from the environment or a secrets file.
  collectSecretValues(parsed.config);
  return parsed;
}

/** The files' texts; several files must all be MM2 connector configs, which make one pipeline together. */
export async function readTexts(files: readonly string[]): Promise<ConnectorConfigText[]> {
  const problems: ConfigIssue[] = [];
  const texts: ConnectorConfigText[] = [];
  for (const file of files) {
    try {
      texts.push({ file, text: await readFile(file, 'utf8') });
    } catch (error) {
      problems.push({ file, message: `cannot read the pipeline file: ${describeFsError(error)}` });
    }
  }
  if (problems.length === 0 && texts.length > 1) {
    for (const { file, text } of texts) {
      if (!isConnectorConfig(file, text)) {
        problems.push({
          file,
          message:
            'is not an MM2 connector config: only connector configs (MirrorSourceConnector, MirrorCheckpointConnector, MirrorHeartbeatConnector) make one pipeline together',
          hint: 'give a pipeline YAML or an mm2.properties driver file on its own',
        });
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return texts;
}

/** `readPipelineFile` for callers that only need the pipeline. */
export async function loadPipelineFile(file: string | readonly string[], options: ParsePipelineOptions = {}): Promise<PipelineConfig> {
  return (await readPipelineFile(file, options)).config;
}
