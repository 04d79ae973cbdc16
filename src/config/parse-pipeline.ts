/**
 * From YAML text to a validated `PipelineConfig`, reporting every problem at once with file, line,
 * column and path. The order matters and each step says why it is where it is:
 *   1. YAML syntax (nothing else is trustworthy while the syntax is broken; duplicate keys are not
 *      a syntax break, so checking goes on after them)
 *   2. `${…}` interpolation, on the YAML tree so positions are still known
 *   3. `--set` overrides, on plain data, before anything is validated
 *   4. `flow_defaults` laid under each flow
 *   5. schema, cross-field rules and transform options, all collected together
 */
import { dirname, basename, extname, isAbsolute, resolve as resolvePath } from 'node:path';
import { LineCounter, isMap, parseDocument, type Node } from 'yaml';
import type { ConfigIssue } from '../core/errors';
import { formatPath, hasPath, isPathPrefix, isPlainObject, parsePath, valueAtPath, type ConfigPath, type PathSegment } from './config-path';
import { checkPipelineSemantics } from './check-pipeline-semantics';
import { describeZodIssue } from './describe-zod-issue';
import { interpolateDocument } from './interpolate-document';
import { IssueList } from './issue-list';
import { mergeFlowDefaults } from './merge-flow-defaults';
import type { ClusterConfig, FlowConfig, PipelineConfig, SecurityConfig, TransformStep } from './pipeline-config';
import { pipelineJsonSchema } from './pipeline-json-schema';
import { pipelineFileSchema, pipelineNamePattern } from './pipeline-schema';
import { createReferenceResolver } from './reference-resolver';
import { SchemaNavigator } from './schema-navigator';
import { applySetOverride, isSetProblem, parseSetOverride, type SetOverride, type SetProblem } from './set-overrides';
import { YamlLocator } from './yaml-locator';

/** Checks the options of transform steps against their plugins' schemas; wired by the pipeline layer. */
export type TransformStepValidator = (steps: readonly TransformStep[]) => readonly ConfigIssue[];

export interface ParsePipelineOptions {
  /** Variables for `${VAR}` and `${env:VAR}`; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `path=value` overrides, as given to `--set`. */
  readonly set?: readonly string[];
  readonly validateTransforms?: TransformStepValidator;
}

let navigator: SchemaNavigator | undefined;

function schemaNavigator(): SchemaNavigator {
  navigator ??= new SchemaNavigator(pipelineJsonSchema());
  return navigator;
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
      hint: 'a pipeline has clusters: and flows:',
    });
    throw issues.error();
  }

  // 2. Interpolation.
  const env = options.env ?? process.env;
  const interpolation = interpolateDocument(doc, text, createReferenceResolver({ env, baseDir }), schemaNavigator());
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

  // 3. Overrides.
  const overrides: SetOverride[] = [];
  const reportSetProblem = (problem: SetProblem): void =>
    issues.add({
      ...(problem.path === undefined ? {} : { path: formatPath(problem.path) }),
      message: problem.message,
      ...(problem.hint === undefined ? {} : { hint: problem.hint }),
    });
  for (const entry of options.set ?? []) {
    const parsed = parseSetOverride(entry, schemaNavigator());
    if (isSetProblem(parsed)) {
      reportSetProblem(parsed);
      continue;
    }
    const problem = applySetOverride(data, parsed);
    if (problem === undefined) overrides.push(parsed);
    else reportSetProblem(problem);
  }

  // Where a problem at `path` was written: a flow's value may come from flow_defaults or --set.
  const origin = (path: ConfigPath): { path: ConfigPath; override?: SetOverride } => {
    let written = path;
    if (path[0] === 'flows' && path.length > 2) {
      const flow = valueAtPath(data, path.slice(0, 2));
      const rest = path.slice(2);
      if (!hasPath(flow, rest) && hasPath(data['flow_defaults'], rest)) written = ['flow_defaults', ...rest];
    }
    const override = overrides.findLast((o) => isPathPrefix(o.path, written));
    return override === undefined ? { path: written } : { path: written, override };
  };
  // A value whose `${…}` failed is already reported; what it became (often "") would only add
  // confusing follow-on problems, which might even quote the part that did resolve.
  const unresolved = interpolation.problems.map((problem) => problem.path);
  const report = (path: ConfigPath, message: string, hint?: string, atKey = false): void => {
    const { path: written, override } = origin(path);
    if (override === undefined && unresolved.some((failed) => isPathPrefix(failed, written))) return;
    const note = override === undefined ? undefined : `set by --set ${override.text}`;
    const hints = [hint, note].filter((h): h is string => h !== undefined);
    issues.add({
      ...(override === undefined ? toIssuePosition(locator.positionOf(written, { key: atKey })) : {}),
      path: formatPath(written),
      message,
      ...(hints.length === 0 ? {} : { hint: hints.join('; ') }),
    });
  };
  const isSensitive = (path: ConfigPath): boolean => {
    const { path: written, override } = origin(path);
    if (override !== undefined) return true;
    const node: Node | undefined = locator.nodeAt(written);
    return node !== undefined && interpolation.resolvedNodes.has(node);
  };

  // The default name comes from the file name, which must then make a valid name too.
  if (data['name'] === undefined) {
    const fromFile = basename(fileName, extname(fileName));
    if (pipelineNamePattern.test(fromFile)) data['name'] = fromFile;
    else report(['name'], 'no name given, and the file name is not a valid pipeline name', 'add name: using letters, digits, ".", "_" and "-"');
  }

  // 4. flow_defaults under each flow.
  const merged: Record<string, unknown> = Array.isArray(data['flows'])
    ? { ...data, flows: data['flows'].map((flow) => mergeFlowDefaults(data['flow_defaults'], flow)) }
    : data;

  // 5. Schema, cross-field rules, transform options.
  const result = pipelineFileSchema.safeParse(merged);
  if (!result.success) {
    const context = {
      data: merged,
      allowedKeys: (path: ConfigPath, value: unknown) => schemaNavigator().allowedKeys(path, value),
      isSensitive,
      hasDefault: (path: ConfigPath) => schemaNavigator().at(path).some((schema) => schema.default !== undefined),
    };
    for (const zodIssue of result.error.issues) {
      for (const issue of describeZodIssue(zodIssue, context)) report(issue.path, issue.message, issue.hint, issue.atKey);
    }
  }
  checkPipelineSemantics(merged, { report: (path, message, hint) => report(path, message, hint), isSensitive });
  if (options.validateTransforms !== undefined) {
    const steps = transformSteps(merged);
    if (steps.length > 0) {
      for (const issue of options.validateTransforms(steps)) {
        const path = issue.path === undefined ? undefined : parsePath(issue.path);
        if (issue.line !== undefined || path === undefined) issues.add(issue);
        else report(path, issue.message, issue.hint);
      }
    }
  }

  if (issues.size > 0 || !result.success) throw issues.error();
  return toPipelineConfig(result.data, baseDir);
}

type ParsedFile = ReturnType<typeof pipelineFileSchema.parse>;

function toPipelineConfig(parsed: ParsedFile, baseDir: string): PipelineConfig {
  const clusters: Record<string, ClusterConfig> = {};
  for (const [alias, cluster] of Object.entries(parsed.clusters)) {
    clusters[alias] = { ...cluster, alias, security: withAbsoluteTlsPaths(cluster.security, baseDir) };
  }
  const flows = parsed.flows.map(
    (flow, index): FlowConfig => ({
      ...flow,
      name: `${flow.source}->${flow.target}`,
      transforms: flow.transforms.map((step, stepIndex) => toTransformStep(step, ['flows', index, 'transforms', stepIndex])),
    }),
  );
  // The name is set from the file name above when the file has none.
  return { name: parsed.name!, clusters, flows, logging: parsed.logging };
}

function withAbsoluteTlsPaths(security: SecurityConfig, baseDir: string): SecurityConfig {
  const ssl = security.ssl;
  if (ssl === undefined) return security;
  const absolute = (path: string | undefined): string | undefined =>
    path === undefined || isAbsolute(path) ? path : resolvePath(baseDir, path);
  const files = { ca_file: absolute(ssl.ca_file), cert_file: absolute(ssl.cert_file), key_file: absolute(ssl.key_file) };
  const defined = Object.fromEntries(Object.entries(files).filter(([, value]) => value !== undefined));
  return { ...security, ssl: { ...ssl, ...defined } };
}

/** Steps of every flow that at least have a `type`; the rest is the schema's to report. */
function transformSteps(data: Record<string, unknown>): TransformStep[] {
  const steps: TransformStep[] = [];
  const flows = Array.isArray(data['flows']) ? data['flows'] : [];
  flows.forEach((flow, index) => {
    if (!isPlainObject(flow) || !Array.isArray(flow['transforms'])) return;
    flow['transforms'].forEach((step, stepIndex) => {
      if (isPlainObject(step) && typeof step['type'] === 'string') {
        steps.push(toTransformStep(step as { type: string }, ['flows', index, 'transforms', stepIndex]));
      }
    });
  });
  return steps;
}

function toTransformStep(step: { type: string } & Record<string, unknown>, path: PathSegment[]): TransformStep {
  const { type, ...options } = step;
  return { type, options, path: formatPath(path) };
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
