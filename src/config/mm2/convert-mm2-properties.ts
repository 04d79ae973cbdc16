/**
 * `mirrorflow convert mm2.properties`: the YAML pipeline that does what the properties file does.
 * References (`${file:…}`, `${env:…}`) stay references, written as a pipeline file writes them, and
 * a secret the file holds in the clear (a password in a JAAS config, a store password) becomes an
 * `${env:…}` reference whose variable the caller is told to set, so no secret is ever printed.
 * Paths the file wrote relative (to MM2's working directory) are written relative to the folder
 * the YAML goes to. With `check`, the file is first loaded as `run` would load it (references
 * resolved), and the YAML is read back from that folder and compared with it: both must give the
 * same pipeline, flow for flow and value for value.
 */
import { basename, extname, isAbsolute, join, relative, resolve as resolvePath } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { MirrorflowError, type ConfigIssue } from '../../core/errors';
import { isSecretKey } from '../../core/secrets';
import { valueAtPath, type PathSegment } from '../config-path';
import type { Mm2Document } from './mm2-document';
import { IssueList } from '../issue-list';
import { mm2ToPipeline } from './mm2-to-pipeline';
import { parseConnectorConfigs, readConnectorConfigs, type ConnectorConfigText } from './parse-connector-configs';
import { parseMm2Properties, type ParsedPipeline } from './parse-mm2-properties';
import { parsePipeline } from '../parse-pipeline';
import { pipelineNamePattern } from '../schema/pipeline-schema';
import type { PipelineConfig } from '../pipeline-config';
import { addProblem, isOpaqueValue, readMm2File, restoreReferences, type Mm2File, type Mm2FileOptions } from './read-mm2-file';
import { mm2DocumentToYaml } from './to-yaml';

export interface ConvertOptions extends Omit<Mm2FileOptions, 'set' | 'pipelineDir'> {
  /** Load the file as run would and compare; needs every reference to be readable here. */
  readonly check?: boolean;
  /** The folder the YAML goes to (default: the working directory): relative paths are written relative to it. */
  readonly outputDir?: string;
  /** `--unknown-keys warn`: unknown keys are left out of the YAML with a warning, as MM2 drops them. */
  readonly unknownKeys?: 'error' | 'warn';
}

export interface Converted {
  readonly yaml: string;
  readonly warnings: readonly ConfigIssue[];
  /** Secrets the file held in the clear, which the YAML reads from these environment variables instead. */
  readonly secrets: readonly SecretVariable[];
}

export interface SecretVariable {
  readonly name: string;
  /** The MM2 key (and line) the secret was written at. */
  readonly from: string;
}

export function convertMm2Properties(text: string, fileName: string, options: ConvertOptions = {}): Converted {
  const check = options.check ?? true;
  // Everything run would report, reported first, with references resolved.
  const loaded = check ? parseMm2Properties(text, fileName, options) : undefined;

  const issues = new IssueList(fileName);
  const file = readMm2File(text, issues, { ...options, pipelineDir: outputDirOf(options) }, 'keep');
  if (file.properties.length === 0) throw issues.error();
  return toYaml(file, fileName, issues, new IssueList(fileName), loaded, options);
}

/** `convert` for MM2 connector configs: one YAML pipeline for all the files given. */
export function convertConnectorConfigs(files: readonly ConnectorConfigText[], options: ConvertOptions = {}): Converted {
  const loaded = (options.check ?? true) ? parseConnectorConfigs(files, options) : undefined;
  const { file, issues, warnings } = readConnectorConfigs(files, { ...options, pipelineDir: outputDirOf(options) }, 'keep');
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
  const mapping = mm2ToPipeline({ ...file, isOpaque: isOpaqueValue, ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }) });
  for (const problem of mapping.problems) addProblem(issues, problem);
  if (issues.size > 0) throw issues.error();

  const outputDir = outputDirOf(options);
  const placeholders = new Map(file.placeholders);
  const secrets = secretsToEnvironment(mapping.document, placeholders);
  relativeFilePaths(mapping.document, file.cwd, outputDir);
  const fromFile = basename(fileName, extname(fileName));
  const name = loaded?.config.name ?? (pipelineNamePattern.test(fromFile) ? fromFile : 'mm2');
  const yaml = mm2DocumentToYaml(mapping.document, {
    name,
    sourceFile: basename(fileName),
    restore: (value) => restoreReferences(value, placeholders),
    ...(secrets.length === 0
      ? {}
      : { notes: [` Secrets the file held in the clear are read from the environment: set ${secrets.map((s) => s.name).join(', ')}.`] }),
  });

  if (loaded !== undefined) {
    // Read back from where it is written, the secrets set as the note above asks.
    const env = { ...(options.env ?? process.env), ...Object.fromEntries(secrets.map((s) => [s.name, s.value])) };
    const again = parsePipeline(yaml, join(outputDir, `${name}.yaml`), { env });
    if (!isDeepStrictEqual(comparable(again), comparable(loaded.config))) {
      throw new MirrorflowError('The converted pipeline differs from the properties file (a mirrorflow bug); please report it with the file, secrets removed.');
    }
  }
  for (const warning of mapping.warnings) addProblem(warnings, warning);
  return { yaml, warnings: warnings.sorted(), secrets: secrets.map(({ name: variable, from }) => ({ name: variable, from })) };
}

/**
 * A pipeline as the check compares it: flows by name (a link's two come after the flows), and
 * transform steps without the place they were written (`links[0]` rather than `flows[0]`).
 */
function comparable(config: PipelineConfig): unknown {
  const flows = [...config.flows]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((flow) => ({ ...flow, transforms: flow.transforms.map(({ path: _path, ...step }) => step) }));
  return { ...config, flows };
}

function outputDirOf(options: ConvertOptions): string {
  return resolvePath(options.outputDir ?? options.cwd ?? process.cwd());
}

/** Path segments that say nothing about which secret a variable holds. */
const UNNAMED_SEGMENTS = new Set(['clusters', 'security', 'roles', 'flows', 'flow_defaults']);

/**
 * Every secret of the document written in the clear (not a reference), replaced by an `${env:…}`
 * reference to a variable named after where it goes (`B_SASL_PASSWORD`); the values stay here,
 * for the check only.
 */
function secretsToEnvironment(document: Mm2Document, placeholders: Map<string, string>): (SecretVariable & { readonly value: string })[] {
  const secrets: (SecretVariable & { readonly value: string })[] = [];
  const taken = new Set<string>();
  for (const path of document.leaves()) {
    const value = valueAtPath(document.data, path);
    if (typeof value !== 'string' || isOpaqueValue(value) || value === '' || !isSecretLeaf(path, value)) continue;
    const base = path
      .filter((segment): segment is string => typeof segment === 'string' && !UNNAMED_SEGMENTS.has(segment))
      .join('_')
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^(?=[0-9])/, '_');
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    const placeholder = `\uE000${placeholders.size}\uE001`;
    placeholders.set(placeholder, `\${env:${name}}`);
    document.set(path, placeholder);
    const provenance = document.provenanceOf(path);
    const entry = provenance?.kind === 'property' ? provenance.entry : undefined;
    const from =
      entry === undefined ? (provenance?.key ?? 'the file') : `${entry.key} (${entry.file === undefined ? '' : `${basename(entry.file)} `}line ${entry.line})`;
    secrets.push({ name, from, value });
  }
  return secrets;
}

function isSecretLeaf(path: readonly PathSegment[], value: string): boolean {
  const key = String(path.at(-1));
  return isSecretKey(key) || /secret/i.test(key) || /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value);
}

/** TLS file paths the properties file wrote relative (to MM2's working directory), written relative to the YAML's folder. */
function relativeFilePaths(document: Mm2Document, cwd: string, outputDir: string): void {
  for (const path of document.leaves()) {
    const value = valueAtPath(document.data, path);
    if (typeof value !== 'string' || !String(path.at(-1)).endsWith('_file') || isOpaqueValue(value)) continue;
    const provenance = document.exactProvenance(path);
    const written = provenance?.kind === 'property' ? provenance.entry?.value.trim() : undefined;
    if (written === undefined || isAbsolute(written)) continue;
    document.set(path, relative(outputDir, resolvePath(cwd, written)));
  }
}
