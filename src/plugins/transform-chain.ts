/**
 * Turns a flow's `transforms:` steps into one function over a batch of records.
 *
 * Validation and construction happen once, when the flow is built; the returned chain is the
 * per-record hot path and does nothing but call each transform in order.
 */
import { token } from '../core/ports/token';
import { type ConfigIssue, formatConfigIssue, PluginError, RecordFailedError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import type { MirrorRecord, RecordFailure } from '../core/record';
import { noopTransformMetrics, type Transform, type TransformDefinition, type TransformMetrics } from './api';
import { connectTransformEquivalents } from './builtins';
import { didYouMean } from './did-you-mean';
import type { PluginRegistry } from './registry';
import { ConnectDataError } from './connect/connect-value';
import { BYTES_CONVERTERS, type FlowConverters } from './connect/converters';
import { DataRecord } from './connect/data-record';
import { isFieldTransformDefinition, type FieldTransform } from './connect/field-transform';
import { conditional, splitStepCondition, type StepCondition } from './step-condition';

/** One entry of a flow's `transforms:` list, as the config loader hands it over. */
export interface TransformStep {
  /** The transform's name, e.g. `rename_topic`. */
  readonly type: string;
  /** Every key of the step except `type`; validated by the transform's schema. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Where the step sits in the pipeline file, e.g. `flows[0].transforms[2]`. */
  readonly path: string;
  /** The converters of the step's flow, for validation; those of the chain's context when not given. */
  readonly converters?: FlowConverters;
}

/** What the flow gives the chain; each step gets its own labelled logger and metrics from it. */
export interface TransformChainContext {
  readonly flow: { readonly source: string; readonly target: string };
  readonly logger: Logger;
  /** Metrics for one step; without it, counters go nowhere. */
  readonly metrics?: (step: { readonly plugin: string; readonly path: string }) => TransformMetrics;
  /** How field-level steps read the key and value; bytes (none) when not given. */
  readonly converters?: FlowConverters;
}

/**
 * Runs records through every step in order and returns those not dropped. With no steps it
 * returns its input as-is, which is why the result is readonly.
 *
 * A record a step throws on becomes a RecordFailure naming it and the step: pushed to `failures`
 * when given (the chain goes on with the next record; the flow decides, by errors.tolerance,
 * whether it goes to the dead-letter topic or stops the flow), thrown otherwise.
 */
export type TransformChain = (records: readonly MirrorRecord[], failures?: RecordFailure[]) => readonly MirrorRecord[];
/** DI token of a flow's chain; a token and its type share a name. */
export const TransformChain = token<TransformChain>('TransformChain');

/**
 * Every problem in every step — unknown types and invalid options — with its path, so the
 * config loader can report them all at once before anything starts.
 */
export function validateTransformSteps(
  steps: readonly TransformStep[],
  registry: PluginRegistry,
  converters: FlowConverters = BYTES_CONVERTERS,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const step of steps) {
    const checked = checkStep(step, registry);
    if ('issues' in checked) issues.push(...checked.issues);
    else {
      const issue = converterIssue(step, checked, step.converters ?? converters) ?? creationIssue(step, checked);
      if (issue !== undefined) issues.push(issue);
    }
  }
  return issues;
}

/**
 * A step whose options pass its schema but whose `create()` refuses them (a plugin that checks
 * more than its schema says): `run` builds every chain before it connects and would stop there,
 * so the loader reports it with the other problems. The step is made with a silent logger and
 * no metrics, and dropped.
 */
function creationIssue(step: TransformStep, { definition, config }: { definition: TransformDefinition; config: unknown }): ConfigIssue | undefined {
  try {
    createTransform(definition, config, step, { flow: { source: 'source', target: 'target' }, logger: silentLogger });
  } catch (error) {
    // `Plugin "x": could not be created at flows[0].transforms[1]: Plugin "x": …`: the problem's key says all but the reason.
    const reason = messageOf(error).replace(/^(Plugin "[^"]*": |could not be created at [^:]*: )+/, '');
    return { path: step.path, message: `transform "${definition.name}" refuses these options: ${reason}` };
  }
  return undefined;
}

/** A field-level step on a side the flow copies as bytes. */
function converterIssue(
  step: TransformStep,
  { definition, config }: { definition: TransformDefinition; config: unknown },
  converters: FlowConverters,
): ConfigIssue | undefined {
  if (!isFieldTransformDefinition(definition)) return undefined;
  const side = definition.sides(config).find((s) => converters[s] === 'bytes');
  if (side === undefined) return undefined;
  const flow = step.path.replace(/\.transforms\[\d+\]$/, '');
  return {
    path: `${step.path}.type`,
    message: `Transform "${definition.name}" (Connect's ${definition.connectClass}) reads fields of the record's ${side}, which the flow copies as bytes: it needs a converter`,
    hint: `set ${flow}.converter.${side} to json (plain JSON), json_envelope (JSON in Connect's {schema, payload} envelope) or string; in mm2.properties, ${side}.converter = org.apache.kafka.connect.json.JsonConverter (with ${side}.converter.schemas.enable = false for plain JSON)`,
  };
}

/**
 * Validates the steps, creates one transform instance per step and returns the chain.
 * Throws a PluginError for the first step that is unknown, has invalid options or fails to
 * create (call `validateTransformSteps` first to report every problem).
 */
export function buildTransformChain(steps: readonly TransformStep[], registry: PluginRegistry, context: TransformChainContext): TransformChain {
  const transforms: (Transform | FieldTransform)[] = [];
  const plugins: string[] = [];
  const paths: string[] = [];
  const converters = context.converters ?? BYTES_CONVERTERS;
  for (const step of steps) {
    const checked = checkStep(step, registry);
    if ('issues' in checked) {
      const described = checked.issues.map((issue) => formatConfigIssue(issue)).join('; ');
      throw new PluginError(step.type, `invalid step at ${step.path}: ${described}`);
    }
    const issue = converterIssue(step, checked, converters);
    if (issue !== undefined) throw new PluginError(step.type, `invalid step at ${step.path}: ${formatConfigIssue(issue)}`);
    const { definition, config, condition } = checked;
    transforms.push(conditional(createTransform(definition, config, step, context), condition));
    plugins.push(definition.name);
    paths.push(step.path);
  }

  const count = transforms.length;
  if (count === 0) return (records) => records;

  return (records, failures) => {
    const out: MirrorRecord[] = [];
    // Indexes live outside the loop so one try/catch around the whole batch can still say
    // which step failed on which record; after a failure the loop resumes at the next record.
    let i = 0;
    let j = 0;
    while (i < records.length) {
      try {
        for (; i < records.length; i++) {
          let record: MirrorRecord | undefined = records[i]!;
          // Consecutive field-level steps share one DataRecord: the record is read by the
          // converters once and written back once, before the next byte-level step or the end.
          let data: DataRecord | undefined;
          for (j = 0; j < count; j++) {
            const transform = transforms[j]!;
            if ('applyData' in transform) {
              data = transform.applyData(data ?? DataRecord.of(record, converters));
              if (data === undefined) break;
              continue;
            }
            if (data !== undefined) {
              // A failure to write back is the previous (field-level) step's.
              j--;
              record = data.toRecord();
              data = undefined;
              j++;
            }
            record = transform.apply(record);
            if (record === undefined) break;
            if (typeof record !== 'object' || record === null) throw new BadReturn(record);
          }
          if (data !== undefined) {
            j = count - 1;
            record = data.toRecord();
          } else if (j < count) record = undefined;
          if (record !== undefined) out.push(record);
        }
      } catch (error) {
        const shown = error instanceof ConnectDataError ? new PluginError(plugins[j]!, error.message, { cause: error }) : error;
        const failure = { record: records[i]!, error: transformFailed(plugins[j]!, paths[j]!, records[i]!, shown) };
        if (failures === undefined) throw failure.error;
        failures.push(failure);
        i++;
      }
    }
    return out;
  };
}

type CheckedStep = { definition: TransformDefinition; config: unknown; condition: StepCondition } | { issues: ConfigIssue[] };

function checkStep(step: TransformStep, registry: PluginRegistry): CheckedStep {
  const definition = registry.get(step.type);
  if (definition === undefined) return { issues: [unknownType(step, registry)] };

  // `when` and `negate` are the chain's, on every step; the plugin's schema checks the rest.
  const split = splitStepCondition(step.options);
  const issues: ConfigIssue[] = 'issues' in split ? split.issues.map((issue) => ({ path: joinPath(step.path, issue.path), message: issue.message })) : [];
  let result: ReturnType<TransformDefinition['configSchema']['safeParse']>;
  try {
    result = definition.configSchema.safeParse(split.options);
  } catch (error) {
    // A plugin's own refinement threw instead of reporting an issue.
    return { issues: [...issues, { path: step.path, message: `The options of "${step.type}" could not be checked: ${messageOf(error)}` }] };
  }
  if (result.success) return 'condition' in split ? { definition, config: result.data, condition: split.condition } : { issues };

  const own = optionNames(definition);
  const known = own === undefined ? undefined : [...own, 'negate', 'when'].sort();
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = issue.path.length === 0 && known !== undefined ? didYouMean(key, known) : undefined;
        issues.push({
          path: joinPath(step.path, [...issue.path, key]),
          message: `Unknown option "${key}" for transform "${step.type}"`,
          hint: suggestion !== undefined ? `did you mean "${suggestion}"?` : known !== undefined ? `options are: ${known.join(', ')}` : undefined,
        });
      }
    } else {
      issues.push({ path: joinPath(step.path, issue.path), message: issue.message });
    }
  }
  return { issues };
}

function unknownType(step: TransformStep, registry: PluginRegistry): ConfigIssue {
  const names = registry.names();
  const equivalent = connectEquivalent(step.type);
  const suggestion = equivalent !== undefined && registry.has(equivalent) ? equivalent : didYouMean(step.type, names);
  const known = `known types: ${names.join(', ')}`;
  return {
    path: `${step.path}.type`,
    message: `Unknown transform type "${step.type}"`,
    hint: suggestion !== undefined ? `did you mean "${suggestion}"? ${known}` : known,
  };
}

/** The built-in for a Connect SMT named by class (`org.apache…RegexRouter`) or short name (`RegexRouter`). */
function connectEquivalent(type: string): string | undefined {
  const bare = type.replace(/\$(Key|Value|Header)$/, '');
  for (const [className, builtIn] of Object.entries(connectTransformEquivalents)) {
    if (className === bare || className.endsWith(`.${bare}`)) return builtIn;
  }
  return undefined;
}

/** Top-level option names, when the schema is an object schema (it usually is). */
function optionNames(definition: TransformDefinition): string[] | undefined {
  const shape: unknown = (definition.configSchema as { shape?: unknown }).shape;
  return typeof shape === 'object' && shape !== null ? Object.keys(shape).sort() : undefined;
}

function createTransform(definition: TransformDefinition, config: unknown, step: TransformStep, context: TransformChainContext): Transform | FieldTransform {
  const target = { plugin: definition.name, path: step.path };
  const transformContext = {
    flow: context.flow,
    logger: context.logger.child({ transform: definition.name, step: step.path }),
    metrics: context.metrics?.(target) ?? noopTransformMetrics,
  };
  if (isFieldTransformDefinition(definition)) return definition.createField(config, transformContext);
  let transform: Transform;
  try {
    transform = definition.create(config, transformContext);
  } catch (error) {
    throw new PluginError(definition.name, `could not be created at ${step.path}: ${messageOf(error)}`, { cause: error });
  }
  if (typeof transform !== 'object' || transform === null || typeof transform.apply !== 'function') {
    throw new PluginError(definition.name, `create() at ${step.path} must return an object with an apply(record) method.`);
  }
  return transform;
}

/** A transform returned something that is neither a record nor undefined. */
class BadReturn extends Error {
  override readonly name = 'BadReturn';
  constructor(readonly value: unknown) {
    super('bad return');
  }
}

/**
 * The error for a transform that threw. It names the step and the record's source position but
 * never quotes the record: a plugin's own PluginError message is shown (the API documents it as
 * safe to show), any other error only by class name, since messages like JSON.parse's quote
 * their input. The original error stays reachable as `cause`.
 */
function transformFailed(plugin: string, path: string, record: MirrorRecord, error: unknown): RecordFailedError {
  const stage = { kind: 'transform', plugin, step: path } as const;
  if (error instanceof BadReturn) {
    const got = error.value === null ? 'null' : typeof error.value;
    return new RecordFailedError(record.source, stage, `apply() returned ${got}; return a record, or undefined to drop it.`);
  }
  let detail: string;
  if (error instanceof PluginError) {
    const prefix = `Plugin "${error.plugin}": `;
    detail = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  } else {
    const name = error instanceof Error ? error.name : typeof error;
    detail = `${name} thrown; its message is withheld because it may quote record data (see the cause).`;
  }
  return new RecordFailedError(record.source, stage, detail, { cause: error });
}

/** `flows[0].transforms[1]` + `['when', 'topic_matches']` → `flows[0].transforms[1].when.topic_matches`. */
function joinPath(base: string, segments: readonly PropertyKey[]): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$-]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(String(segment))}]`;
  }
  return path;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
