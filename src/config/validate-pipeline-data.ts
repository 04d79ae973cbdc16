/**
 * Steps 3–5 of reading a pipeline, shared by both front ends (the YAML file and MM2's
 * mm2.properties): `--set` overrides, the default name, `flow_defaults` laid under each flow, then
 * the schema, the cross-field rules and the transform options, all collected together. The front
 * end says where a path was written (`DocumentOrigin`), so every problem points at its text.
 */
import { basename, extname, isAbsolute, resolve as resolvePath } from 'node:path';
import type { ConfigIssue } from '../core/errors';
import { formatPath, hasPath, isPathPrefix, isPlainObject, parsePath, valueAtPath, type ConfigPath, type PathSegment } from './config-path';
import { checkFlowLoops } from './checks/check-flow-loops';
import { checkPipelineSemantics } from './checks/check-pipeline-semantics';
import { describeZodIssue } from './describe-zod-issue';
import { expandLinks, linkPathOf, type LinkDirection } from './expand-links';
import type { IssueList } from './issue-list';
import { mergeFlowDefaults } from './merge-flow-defaults';
import type { ClusterConfig, FlowConfig, PipelineConfig, SecurityConfig, TransformStep } from './pipeline-config';
import { pipelineFileSchema, pipelineNamePattern } from './schema/pipeline-schema';
import { pipelineSchemaNavigator } from './json-schema/pipeline-schema-navigator';
import { applySetOverride, isSetProblem, parseSetOverride, type SetOverride, type SetProblem } from './set-overrides';
import type { SourcePosition } from './yaml-locator';
import { CONVERTER_NAMES, type ConverterName, type FlowConverters } from '../plugins';

/**
 * Checks the options of transform steps against their plugins' schemas; wired by the pipeline
 * layer. Called once per document, also without steps: it is handed the npm packages of
 * `plugins:` (issues about one of them have the path `plugins[i]`) and the folder they are
 * resolved from.
 */
export type TransformStepValidator = (steps: readonly TransformStep[], plugins: PluginPackages) => readonly ConfigIssue[];

/** The npm packages a pipeline names in `plugins:` (its strings; the schema reports the rest). */
export interface PluginPackages {
  readonly packages: readonly string[];
  /** Where `require` starts looking for them: the pipeline file's folder. */
  readonly baseDir: string;
}

/** Where the values of a document were written, as its front end knows it. */
export interface DocumentOrigin {
  /** The value (or with `key`, the key) at `path`, or the nearest written ancestor. */
  positionOf(path: ConfigPath, options?: { key?: boolean }): SourcePosition | undefined;
  /** The path as the user wrote it, when that differs from the pipeline path (an MM2 key). */
  displayPath?(path: ConfigPath): string | undefined;
  /** Whether the value at exactly `path` holds text from outside the file (`${…}`): never quote it. */
  isResolved(path: ConfigPath): boolean;
  /** Paths whose `${…}` failed (already reported): what they became would only add noise. */
  readonly failedPaths: readonly ConfigPath[];
}

/**
 * The pipeline is right as far as it could be checked without the values of its `${…}`
 * references (`validate --no-resolve`): the schema refused only values that came from them, so
 * what needs a whole pipeline (loops, the files it names) could not be checked.
 */
export class ValuesNotResolved extends Error {
  override readonly name = 'ValuesNotResolved';

  constructor(readonly warnings: readonly ConfigIssue[] = []) {
    super('The pipeline could be checked only as far as its ${…} references allow.');
  }
}

/**
 * Checks of a valid pipeline that need more than its text — the files it names, read as `run`
 * reads them before it connects — wired by the pipeline layer. Each problem has a `path`.
 */
export type ConfigCheck = (config: PipelineConfig) => readonly ConfigIssue[];

export interface ValidateDataOptions {
  /** `path=value` overrides, as given to `--set`. */
  readonly set?: readonly string[];
  readonly validateTransforms?: TransformStepValidator;
  readonly checkConfig?: ConfigCheck;
}

/**
 * `data` is the plain document (interpolated); it is changed in place by `--set`. Throws the
 * ConfigError of `issues` when anything is wrong, including problems the front end added before.
 */
export function validatePipelineData(
  data: Record<string, unknown>,
  fileName: string,
  /** Relative TLS paths start here. */
  baseDir: string,
  issues: IssueList,
  origin: DocumentOrigin,
  options: ValidateDataOptions = {},
): PipelineConfig {
  const navigator = pipelineSchemaNavigator();

  // 3. Overrides.
  const overrides: SetOverride[] = [];
  const reportSetProblem = (problem: SetProblem): void =>
    issues.add({
      ...(problem.path === undefined ? {} : { path: formatPath(problem.path) }),
      message: problem.message,
      ...(problem.hint === undefined ? {} : { hint: problem.hint }),
    });
  for (const entry of options.set ?? []) {
    const parsed = parseSetOverride(entry, navigator);
    if (isSetProblem(parsed)) {
      reportSetProblem(parsed);
      continue;
    }
    const problem = applySetOverride(data, parsed);
    if (problem === undefined) overrides.push(parsed);
    else reportSetProblem(problem);
  }

  // The flows of `links`, after the written ones (step 4 lays flow_defaults under them).
  const writtenFlows = Array.isArray(data['flows']) ? (data['flows'] as unknown[]) : [];
  const linkProblems: [PathSegment[], string, string | undefined][] = [];
  const links = expandLinks(data['links'], data['flow_defaults'], (path, message, hint) => linkProblems.push([path, message, hint]));
  const linkOf = (flowIndex: PathSegment | undefined): LinkDirection | undefined =>
    typeof flowIndex === 'number' && flowIndex >= writtenFlows.length ? links.directions[flowIndex - writtenFlows.length] : undefined;

  // Where a problem at `path` was written: a flow's value may come from flow_defaults, a link or --set.
  const written = (path: ConfigPath): { path: ConfigPath; override?: SetOverride } => {
    let at = path;
    const link = path[0] === 'flows' ? linkOf(path[1]) : undefined;
    if (link !== undefined) {
      at = linkPathOf(link, path.slice(2), (data['links'] as unknown[])[link.link], data['flow_defaults']);
    } else if (path[0] === 'flows' && path.length > 2) {
      const flow = valueAtPath(data, path.slice(0, 2));
      const rest = path.slice(2);
      if (!hasPath(flow, rest) && hasPath(data['flow_defaults'], rest)) at = ['flow_defaults', ...rest];
    }
    const override = overrides.findLast((o) => isPathPrefix(o.path, at));
    return override === undefined ? { path: at } : { path: at, override };
  };
  const report = (path: ConfigPath, message: string, hint?: string, atKey = false): void => {
    const { path: at, override } = written(path);
    if (override === undefined && origin.failedPaths.some((failed) => isPathPrefix(failed, at))) return;
    const note = override === undefined ? undefined : `set by --set ${override.text}`;
    const hints = [hint, note].filter((h): h is string => h !== undefined);
    const position = override === undefined ? origin.positionOf(at, { key: atKey }) : undefined;
    const shown = override === undefined ? origin.displayPath?.(at) : undefined;
    issues.add({
      ...(position === undefined ? {} : { line: position.line, column: position.column, ...(position.file === undefined ? {} : { file: position.file }) }),
      path: shown ?? formatPath(at),
      message,
      ...(hints.length === 0 ? {} : { hint: hints.join('; ') }),
    });
  };
  const isSensitive = (path: ConfigPath): boolean => {
    const { path: at, override } = written(path);
    return override !== undefined || origin.isResolved(at);
  };

  // The default name comes from the file name, which must then make a valid name too.
  if (data['name'] === undefined) {
    const fromFile = basename(fileName, extname(fileName));
    if (pipelineNamePattern.test(fromFile)) data['name'] = fromFile;
    else report(['name'], 'no name given, and the file name is not a valid pipeline name', 'add name: using letters, digits, ".", "_" and "-"');
  }

  // 4. flow_defaults under each flow; each link as its two flows.
  for (const [path, message, hint] of linkProblems) report(path, message, hint);
  if (data['flows'] === undefined && data['links'] === undefined) {
    report(['flows'], 'missing required key', 'add flows (one direction each: { source: a, target: b }) or links (both ways: { clusters: [a, b] })');
  }
  const { links: _links, ...rest } = data;
  const merged: Record<string, unknown> =
    Array.isArray(data['flows']) || links.flows.length > 0
      ? { ...rest, flows: [...writtenFlows.map((flow) => mergeFlowDefaults(data['flow_defaults'], flow)), ...links.flows] }
      : rest;
  // What a transform step's path says (in messages and metrics): where the step was written.
  const flowPath = (index: number): PathSegment[] => {
    const link = linkOf(index);
    return link === undefined ? ['flows', index] : ['links', link.link];
  };

  // 5. Schema, cross-field rules, transform options.
  const result = pipelineFileSchema.safeParse(merged);
  if (!result.success) {
    const context = {
      data: merged,
      allowedKeys: (path: ConfigPath, value: unknown) => navigator.allowedKeys(path, value),
      isSensitive,
      hasDefault: (path: ConfigPath) => navigator.at(path).some((schema) => schema.default !== undefined),
    };
    for (const zodIssue of result.error.issues) {
      for (const issue of describeZodIssue(zodIssue, context)) report(issue.path, issue.message, issue.hint, issue.atKey);
    }
  }
  checkPipelineSemantics(merged, { report: (path, message, hint) => report(path, message, hint), isSensitive });
  if (options.validateTransforms !== undefined) {
    const steps = transformSteps(merged, flowPath);
    const written = Array.isArray(merged['plugins']) ? merged['plugins'] : [];
    // A list with a non-string is the schema's to report; its indexes would not match `plugins[i]`.
    const packages = written.every((p): p is string => typeof p === 'string') ? written : [];
    for (const issue of options.validateTransforms(steps, { packages, baseDir })) {
      const path = issue.path === undefined ? undefined : parsePath(issue.path);
      if (issue.line !== undefined || path === undefined) issues.add(issue);
      else report(path, issue.message, issue.hint);
    }
  }

  if (issues.size > 0) throw issues.error();
  // Every issue of the schema was at a value not resolved (otherwise it was reported above).
  if (!result.success) throw new ValuesNotResolved();
  const config = toPipelineConfig(result.data, baseDir, flowPath);
  // Loops can only be judged on a valid pipeline: they need the flows' compiled filters.
  for (const loop of checkFlowLoops(config)) report(loop.path, loop.message, loop.hint);
  const kerberos = oneKerberosEnvironment(config);
  if (kerberos !== undefined) report(kerberos.path, kerberos.message, kerberos.hint);
  for (const issue of options.checkConfig?.(config) ?? []) {
    const path = issue.path === undefined ? undefined : parsePath(issue.path);
    if (path === undefined) issues.add(issue);
    else report(path, issue.message, issue.hint);
  }
  if (issues.size > 0) throw issues.error();
  return config;
}

type ParsedFile = ReturnType<typeof pipelineFileSchema.parse>;

function toPipelineConfig(parsed: ParsedFile, baseDir: string, flowPath: (index: number) => PathSegment[]): PipelineConfig {
  const clusters: Record<string, ClusterConfig> = {};
  for (const [alias, cluster] of Object.entries(parsed.clusters)) {
    clusters[alias] = { ...cluster, alias, security: withAbsoluteTlsPaths(cluster.security, baseDir) };
  }
  const flows = (parsed.flows ?? []).map((flow, index): FlowConfig => ({
    ...flow,
    name: `${flow.source}->${flow.target}`,
    transforms: flow.transforms.map((step, stepIndex) => toTransformStep(step, [...flowPath(index), 'transforms', stepIndex])),
  }));
  // The name is set from the file name above when the file has none.
  return { name: parsed.name!, clusters, flows, logging: parsed.logging, http: parsed.http };
}

function withAbsoluteTlsPaths(security: SecurityConfig, baseDir: string): SecurityConfig {
  const absolute = (path: string | undefined): string | undefined => (path === undefined || isAbsolute(path) ? path : resolvePath(baseDir, path));
  const kerberos = security.sasl?.kerberos;
  if (kerberos !== undefined) {
    const files = { keytab: absolute(kerberos.keytab), krb5_config: absolute(kerberos.krb5_config) };
    const defined = Object.fromEntries(Object.entries(files).filter(([, value]) => value !== undefined));
    security = { ...security, sasl: { ...security.sasl!, kerberos: { ...kerberos, ...defined } } };
  }
  const ssl = security.ssl;
  if (ssl === undefined) return security;
  const files = {
    ca_file: absolute(ssl.ca_file),
    cert_file: absolute(ssl.cert_file),
    key_file: absolute(ssl.key_file),
    truststore_file: absolute(ssl.truststore_file),
    keystore_file: absolute(ssl.keystore_file),
  };
  const defined = Object.fromEntries(Object.entries(files).filter(([, value]) => value !== undefined));
  return { ...security, ssl: { ...ssl, ...defined } };
}

/**
 * The GSS library reads its keytab and krb5.conf from the process's environment, so every
 * cluster of a pipeline that logs in with Kerberos must name the same ones (principals may differ).
 */
function oneKerberosEnvironment(config: PipelineConfig): { path: PathSegment[]; message: string; hint: string } | undefined {
  let first: { alias: string; keytab?: string; krb5Config?: string } | undefined;
  for (const [alias, cluster] of Object.entries(config.clusters)) {
    const kerberos = cluster.security.sasl?.kerberos;
    if (kerberos === undefined) continue;
    if (first === undefined) {
      first = { alias, keytab: kerberos.keytab, krb5Config: kerberos.krb5_config };
      continue;
    }
    for (const [key, mine, theirs] of [
      ['keytab', kerberos.keytab, first.keytab],
      ['krb5_config', kerberos.krb5_config, first.krb5Config],
    ] as const) {
      if (mine === theirs) continue;
      return {
        path: ['clusters', alias, 'security', 'sasl', 'kerberos', key],
        message: `differs from cluster "${first.alias}"'s ${key} (${theirs ?? 'not set'}); one process has one Kerberos keytab and krb5.conf`,
        hint: 'put every principal in one keytab (ktutil can merge them), or run the flows in separate processes',
      };
    }
  }
  return undefined;
}

/** Steps of every flow that at least have a `type`; the rest is the schema's to report. */
function transformSteps(data: Record<string, unknown>, flowPath: (index: number) => PathSegment[]): TransformStep[] {
  const steps: TransformStep[] = [];
  const flows = Array.isArray(data['flows']) ? data['flows'] : [];
  const seen = new Set<string>();
  flows.forEach((flow, index) => {
    if (!isPlainObject(flow) || !Array.isArray(flow['transforms'])) return;
    // A link's two flows share their steps: checked once.
    const at = formatPath(flowPath(index));
    if (seen.has(at)) return;
    seen.add(at);
    const converters = flowConverters(flow['converter']);
    flow['transforms'].forEach((step, stepIndex) => {
      if (isPlainObject(step) && typeof step['type'] === 'string') {
        steps.push({ ...toTransformStep(step as { type: string }, [...flowPath(index), 'transforms', stepIndex]), converters });
      }
    });
  });
  return steps;
}

/** A flow's `converter` as written (a bad one is the schema's to report): bytes where not set. */
function flowConverters(converter: unknown): FlowConverters {
  const side = (name: string): ConverterName => {
    const value = isPlainObject(converter) ? converter[name] : undefined;
    return typeof value === 'string' && (CONVERTER_NAMES as readonly string[]).includes(value) ? (value as ConverterName) : 'bytes';
  };
  return { key: side('key'), value: side('value') };
}

function toTransformStep(step: { type: string } & Record<string, unknown>, path: PathSegment[]): TransformStep {
  const { type, ...options } = step;
  return { type, options, path: formatPath(path) };
}
