/**
 * From an mm2.properties file to a validated `PipelineConfig`, as `mirrorflow run mm2.properties`
 * and `validate` read it: the file's entries, `${…}` references resolved through the declared
 * config providers, every key checked, MM2's precedence applied (see `mm2-to-pipeline.ts`), then
 * the same `--set`, schema and cross-field checks a YAML pipeline gets. Problems point at the
 * property to fix (`mm2.properties:12:1: … at primary->backup.topics`).
 */
import type { ConfigIssue } from '../../core/errors';
import { formatPath, type ConfigPath } from '../config-path';
import { IssueList } from '../issue-list';
import type { Mm2Document } from './mm2-document';
import { mm2ToPipeline } from './mm2-to-pipeline';
import type { PipelineConfig } from '../pipeline-config';
import { addProblem, isOpaqueValue, readMm2File, shownKey, type Mm2File, type Mm2FileOptions } from './read-mm2-file';
import { ValuesNotResolved, validatePipelineData, type ConfigCheck, type DocumentOrigin, type TransformStepValidator } from '../validate-pipeline-data';

export interface ParseMm2Options extends Mm2FileOptions {
  readonly validateTransforms?: TransformStepValidator;
  readonly checkConfig?: ConfigCheck;
  /** false: references checked against their providers, not read (see `ParsePipelineOptions.resolve`). */
  readonly resolve?: boolean;
  /** The pipeline's name; by default the first file's name (a connector changed over the REST API keeps the running one). */
  readonly name?: string;
  readonly unknownKeys?: 'error' | 'warn';
}

/** A pipeline and the notes about its file that do not stop it (keys without effect, …). */
export interface ParsedPipeline {
  readonly config: PipelineConfig;
  readonly warnings: readonly ConfigIssue[];
}

export function parseMm2Properties(text: string, fileName: string, options: ParseMm2Options = {}): ParsedPipeline {
  const issues = new IssueList(fileName);
  const file = readMm2File(text, issues, options, options.resolve === false ? 'keep' : 'resolve');
  if (file.properties.length === 0) throw issues.error();
  return mm2FileToPipeline(file, fileName, issues, new IssueList(fileName), options);
}

/** The mapping and validation of properties already read; `issues` and `warnings` may hold some already. */
export function mm2FileToPipeline(file: Mm2File, fileName: string, issues: IssueList, warnings: IssueList, options: ParseMm2Options): ParsedPipeline {
  // Not resolved: a value holding a reference is not known, so nothing is said about it (as of one whose reference failed).
  const unresolved = options.resolve === false;
  const failedKeys = unresolved ? new Set([...file.failedKeys, ...file.properties.filter((p) => isOpaqueValue(p.value)).map((p) => p.key)]) : file.failedKeys;
  const mapping = mm2ToPipeline({
    ...file,
    failedKeys,
    isOpaque: unresolved ? isOpaqueValue : () => false,
    ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }),
  });
  for (const problem of mapping.problems) addProblem(issues, problem);
  for (const warning of mapping.warnings) addProblem(warnings, warning);
  // Without clusters or flows there is nothing more to check that would not repeat the problem.
  if (issues.size > 0 && mapping.document.data['flows'] === undefined) throw issues.error();

  const data = options.name === undefined ? mapping.document.data : { ...mapping.document.data, name: options.name };
  let config: PipelineConfig;
  try {
    config = validatePipelineData(data, fileName, file.cwd, issues, mm2Origin(mapping.document, failedKeys), {
      set: file.pipelineSets,
      ...(options.validateTransforms === undefined ? {} : { validateTransforms: options.validateTransforms }),
      ...(options.checkConfig === undefined ? {} : { checkConfig: options.checkConfig }),
    });
  } catch (error) {
    if (error instanceof ValuesNotResolved) throw new ValuesNotResolved(warnings.sorted());
    throw error;
  }
  return { config, warnings: warnings.sorted() };
}

/** Where a document value came from, for problems the shared validation finds. */
export function mm2Origin(document: Mm2Document, failedKeys: ReadonlySet<string>): DocumentOrigin {
  const failedPaths = [
    ...document.failedPaths,
    ...document.leaves().filter((path) => {
      const provenance = document.exactProvenance(path);
      return provenance?.kind === 'property' && failedKeys.has(provenance.key);
    }),
  ];
  return {
    positionOf: (path, options) => {
      // The property that set the value (or the list it is in): its value; a flow or cluster as a whole: the line declaring it.
      for (let length = path.length; length >= 0; length--) {
        const provenance = document.exactProvenance(path.slice(0, length));
        if (provenance === undefined) continue;
        if (provenance.kind !== 'property' || provenance.entry === undefined) return undefined;
        const { entry } = provenance;
        const file = entry.file === undefined ? {} : { file: entry.file };
        return length > 2 && options?.key !== true
          ? { line: entry.valueLine, column: entry.valueColumn, ...file }
          : { line: entry.line, column: entry.column, ...file };
      }
      return undefined;
    },
    displayPath: (path) => displayPath(document, path),
    isResolved: (path) => {
      // A list item (`topics[0]`) holds text of the property that set the list.
      for (let length = path.length; length > 2; length--) {
        const provenance = document.exactProvenance(path.slice(0, length));
        if (provenance !== undefined) return provenance.kind === 'property' && provenance.resolved;
      }
      return false;
    },
    failedPaths,
  };
}

function displayPath(document: Mm2Document, path: ConfigPath): string {
  // The property that set the value, or the list it is an item of (`primary->backup.topics[0]`).
  for (let length = path.length; length > 2; length--) {
    const exact = document.exactProvenance(path.slice(0, length));
    if (exact === undefined) continue;
    const key = exact.kind === 'property' ? shownKey(exact) : `${exact.key} (MM2's default)`;
    return `${key}${formatPath(path.slice(length)).replace(/^(?=[^[])/, path.length > length ? '.' : '')}`;
  }
  if (path[0] === 'flows' && typeof path[1] === 'number') {
    const source = document.data['flows'] as { source?: string; target?: string }[] | undefined;
    const flow = source?.[path[1]];
    if (flow?.source !== undefined && flow.target !== undefined)
      return `${flow.source}->${flow.target}${path.length > 2 ? ` (${formatPath(path.slice(2))})` : ''}`;
  }
  if (path[0] === 'clusters' && typeof path[1] === 'string') return `${path[1]}${path.length > 2 ? ` (${formatPath(path.slice(2))})` : ''}`;
  return formatPath(path);
}
