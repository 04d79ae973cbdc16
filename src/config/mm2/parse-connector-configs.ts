/**
 * MM2 connector configs (properties or Connect's JSON) to a validated `PipelineConfig`, as
 * `mirrorflow run source.json checkpoint.json heartbeat.json` reads them: each file read, the
 * connectors turned into the driver properties they stand for (`connectors-to-mm2.ts`), then the
 * driver file's path (references, key checks, MM2's precedence, the pipeline's own checks).
 * Problems name the file, line and key as written there.
 */
import { ConfigError, type ConfigIssue } from '../../core/errors';
import { readConnectorFile, type ConnectorFile, type ConnectorFormat } from './connector-file';
import { connectorsToMm2 } from './connectors-to-mm2';
import { IssueList } from '../issue-list';
import { mm2FileToPipeline, type ParsedPipeline, type ParseMm2Options } from './parse-mm2-properties';
import { readMm2Properties, type Mm2File, type Mm2FileOptions } from './read-mm2-file';

export interface ConnectorConfigText {
  readonly file: string;
  readonly text: string;
  /** JSON or properties; by default told by the file's extension. */
  readonly format?: ConnectorFormat;
}

export interface ReadConnectors {
  readonly file: Mm2File;
  readonly issues: IssueList;
  readonly warnings: IssueList;
}

/** The connector files as the properties of one driver file; throws when a file cannot be read as a connector at all. */
export function readConnectorConfigs(files: readonly ConnectorConfigText[], options: Mm2FileOptions, mode: 'resolve' | 'keep'): ReadConnectors {
  const first = files[0]!.file;
  const problems: ConfigIssue[] = [];
  const connectors = files.map((f) => readConnectorFile(f.file, f.text, problems, f.format)).filter((c): c is ConnectorFile => c !== undefined);
  if (problems.length > 0) throw new ConfigError(problems);
  const mapping = connectorsToMm2(connectors);
  const issues = new IssueList(first);
  for (const problem of mapping.problems) issues.add(problem);
  const warnings = new IssueList(first);
  for (const warning of mapping.warnings) warnings.add(warning);
  if (issues.size > 0) throw issues.error();
  return { file: readMm2Properties(mapping.properties, issues, options, mode), issues, warnings };
}

export function parseConnectorConfigs(files: readonly ConnectorConfigText[], options: ParseMm2Options = {}): ParsedPipeline {
  const { file, issues, warnings } = readConnectorConfigs(files, options, options.resolve === false ? 'keep' : 'resolve');
  return mm2FileToPipeline(file, files[0]!.file, issues, warnings, options);
}
