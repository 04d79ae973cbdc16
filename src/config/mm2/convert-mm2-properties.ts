/**
 * `mirrorflow convert mm2.properties`: the YAML pipeline that does what the properties file does.
 * References (`${file:…}`, `${env:…}`) stay references, written as a pipeline file writes them, so
 * no secret is ever printed. With `check`, the file is first loaded as `run` would load it
 * (references resolved), and the YAML is read back and compared with it: both must give the same
 * pipeline, flow for flow and value for value.
 */
import { basename, dirname, extname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { MirrorflowError, type ConfigIssue } from '../../core/errors';
import { IssueList } from '../issue-list';
import { mm2ToPipeline } from './mm2-to-pipeline';
import { parseConnectorConfigs, readConnectorConfigs, type ConnectorConfigText } from './parse-connector-configs';
import { parseMm2Properties, type ParsedPipeline } from './parse-mm2-properties';
import { parsePipeline } from '../parse-pipeline';
import { pipelineNamePattern } from '../schema/pipeline-schema';
import { addProblem, isOpaqueValue, readMm2File, restoreReferences, type Mm2File, type Mm2FileOptions } from './read-mm2-file';
import { mm2DocumentToYaml } from './to-yaml';

export interface ConvertOptions extends Omit<Mm2FileOptions, 'set'> {
  /** Load the file as run would and compare; needs every reference to be readable here. */
  readonly check?: boolean;
}

export interface Converted {
  readonly yaml: string;
  readonly warnings: readonly ConfigIssue[];
}

export function convertMm2Properties(text: string, fileName: string, options: ConvertOptions = {}): Converted {
  const check = options.check ?? true;
  // Everything run would report, reported first, with references resolved.
  const loaded = check ? parseMm2Properties(text, fileName, options) : undefined;

  const issues = new IssueList(fileName);
  const file = readMm2File(text, issues, options, 'keep');
  if (file.properties.length === 0) throw issues.error();
  return toYaml(file, fileName, issues, new IssueList(fileName), loaded, options);
}

/** `convert` for MM2 connector configs: one YAML pipeline for all the files given. */
export function convertConnectorConfigs(files: readonly ConnectorConfigText[], options: ConvertOptions = {}): Converted {
  const loaded = (options.check ?? true) ? parseConnectorConfigs(files, options) : undefined;
  const { file, issues, warnings } = readConnectorConfigs(files, options, 'keep');
  return toYaml(file, files[0]!.file, issues, warnings, loaded, options);
}

function toYaml(
  file: Mm2File,
  fileName: string,
  issues: IssueList,
  warnings: IssueList,
  loaded: ParsedPipeline | undefined,
  options: ConvertOptions,
): Converted {
  const mapping = mm2ToPipeline({ ...file, isOpaque: isOpaqueValue });
  for (const problem of mapping.problems) addProblem(issues, problem);
  if (issues.size > 0) throw issues.error();

  const fromFile = basename(fileName, extname(fileName));
  const name = loaded?.config.name ?? (pipelineNamePattern.test(fromFile) ? fromFile : 'mm2');
  const yaml = mm2DocumentToYaml(mapping.document, {
    name,
    sourceFile: basename(fileName),
    restore: (value) => restoreReferences(value, file.placeholders),
  });

  if (loaded !== undefined) {
    // Read back from beside the properties file, where the user would keep it.
    const again = parsePipeline(yaml, join(dirname(fileName), `${name}.yaml`), { env: options.env ?? process.env });
    if (!isDeepStrictEqual(again, loaded.config)) {
      throw new MirrorflowError('The converted pipeline differs from the properties file (a mirrorflow bug); please report it with the file, secrets removed.');
    }
  }
  for (const warning of mapping.warnings) addProblem(warnings, warning);
  return { yaml, warnings: warnings.sorted() };
}
