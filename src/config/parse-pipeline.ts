/**
 * From YAML text to a validated `PipelineConfig`, reporting every problem at once with file, line,
 * column and path. The order matters and each step says why it is where it is:
 *   1. YAML syntax (nothing else is trustworthy while the syntax is broken; duplicate keys are not
 *      a syntax break, so checking goes on after them)
 *   2. `${…}` interpolation, on the YAML tree so positions are still known
 *   3–5. `--set`, `flow_defaults`, schema and cross-field rules: `validatePipelineData`, which the
 *      mm2.properties front end shares
 */
import { dirname, resolve as resolvePath } from 'node:path';
import { LineCounter, isMap, parseDocument, type Node } from '#yaml';
import { formatPath, isPlainObject } from './config-path';
import { interpolateDocument } from './interpolation/interpolate-document';
import type { Reference, ResolveOutcome } from './interpolation/interpolate';
import { IssueList } from './issue-list';
import type { PipelineConfig } from './pipeline-config';
import { pipelineSchemaNavigator } from './json-schema/pipeline-schema-navigator';
import { createReferenceResolver } from './interpolation/reference-resolver';
import { validatePipelineData, type ConfigCheck, type DocumentOrigin, type TransformStepValidator } from './validate-pipeline-data';
import { YamlLocator } from './yaml-locator';

export type { ConfigCheck, TransformStepValidator };

export interface ParsePipelineOptions {
  /** Variables for `${VAR}` and `${env:VAR}`; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `path=value` overrides, as given to `--set`. */
  readonly set?: readonly string[];
  readonly validateTransforms?: TransformStepValidator;
  /** Checks of the files the pipeline names, as `run` reads them before it connects. */
  readonly checkConfig?: ConfigCheck;
  /**
   * false: check each `${…}` reference's syntax (and, in an mm2.properties file, its provider's
   * declaration) without reading its value; values that come from references are not checked,
   * and where the schema needed one, `ValuesNotResolved` is thrown instead of a config.
   */
  readonly resolve?: boolean;
  /** An mm2.properties file's unknown keys: problems (default) or, with `--unknown-keys warn`, warnings, as MM2 drops them. */
  readonly unknownKeys?: 'error' | 'warn';
}

/** `fileName` names the file in messages; relative `${file:…}`/`${dir:…}` and TLS paths start at its folder. */
export function parsePipeline(text: string, fileName: string, options: ParsePipelineOptions = {}): PipelineConfig {
  const issues = new IssueList(fileName);
  const baseDir = dirname(resolvePath(fileName));

  // 1. Syntax.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
  const locator = new YamlLocator(doc, lineCounter);
  for (const error of doc.errors) {
    const position = locator.position(error.pos[0]);
    if (error.code === 'DUPLICATE_KEY') {
      const path = locator.pathAtOffset(error.pos[0]);
      issues.add({
        ...toIssuePosition(position),
        path: formatPath(path),
        message: `duplicate key "${String(path.at(-1) ?? '')}"`,
        hint: 'the later value would silently replace the earlier one; keep one',
      });
    } else {
      // Only the first: the parser's later complaints are mostly echoes of it.
      const line = text.split(/\r?\n/)[position.line - 1] ?? '';
      const hint = line.includes('${') ? 'inside [ ] or { }, quote values that use ${…}, e.g. "${VAR}"' : undefined;
      issues.add({ ...toIssuePosition(position), message: firstLine(error.message), ...(hint === undefined ? {} : { hint }) });
      throw issues.error();
    }
  }
  if (doc.contents === null || !isMap(doc.contents)) {
    issues.add({
      line: 1,
      column: 1,
      message: doc.contents === null ? 'the file is empty' : 'the top level must be a map',
      // `clusters = a, b` reads as one long YAML string.
      hint: /^\s*clusters\s*=/m.test(text)
        ? 'this looks like an MM2 driver file: give it the .properties extension to run it as one'
        : 'a pipeline has clusters: and flows:',
    });
    throw issues.error();
  }

  // 2. Interpolation.
  const env = options.env ?? process.env;
  const resolver = options.resolve === false ? unresolvedReference : createReferenceResolver({ env, baseDir });
  const interpolation = interpolateDocument(doc, text, resolver, pipelineSchemaNavigator());
  for (const problem of interpolation.problems) {
    issues.add({
      ...toIssuePosition(locator.position(problem.offset)),
      path: formatPath(problem.path),
      message: problem.message,
      ...(problem.hint === undefined ? {} : { hint: problem.hint }),
    });
  }
  // Unresolved aliases make toJS throw; they are reported above, so stop here.
  if (interpolation.problems.some((p) => p.kind === 'alias')) throw issues.error();
  let js: unknown;
  try {
    js = doc.toJS();
  } catch (error) {
    // yaml's guard against alias bombs ("billion laughs"): an alias expanding too far.
    issues.add({ line: 1, column: 1, message: `the document cannot be read: ${firstLine(error instanceof Error ? error.message : String(error))}` });
    throw issues.error();
  }
  // Aliases share objects in toJS output; a tree copy lets --set change one place only.
  const data = copyTree(js) as Record<string, unknown>;

  // Values not read say nothing about the file: whatever the schema thinks of them is left unsaid.
  const failedPaths = [...interpolation.problems.map((problem) => problem.path), ...(options.resolve === false ? interpolation.resolvedPaths : [])];
  const origin: DocumentOrigin = {
    positionOf: (path, opts) => locator.positionOf(path, opts),
    isResolved: (path) => {
      const node: Node | undefined = locator.nodeAt(path);
      return node !== undefined && interpolation.resolvedNodes.has(node);
    },
    failedPaths,
  };
  return validatePipelineData(data, fileName, baseDir, issues, origin, options);
}

/**
 * A reference's stand-in when values are not read: its default where it has one, else a text
 * that a host:port also accepts (the values most often given so, bootstrap servers).
 */
function unresolvedReference(reference: Reference): ResolveOutcome {
  return { value: reference.kind === 'variable' && reference.fallback !== undefined ? reference.fallback : 'unresolved.invalid:9092' };
}

/** A copy in which no object is reached twice (structuredClone would keep the sharing). */
function copyTree(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyTree);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyTree(v)]));
  return value;
}

function toIssuePosition(position: { line: number; column: number } | undefined): { line?: number; column?: number } {
  return position === undefined ? {} : { line: position.line, column: position.column };
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.charAt(0).toLowerCase() + line.slice(1);
}
