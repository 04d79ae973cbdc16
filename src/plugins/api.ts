/**
 * The transform plugin API: the only module a plugin in `plugins/` imports.
 *
 * A transform sees one record at a time and returns the record to write (a new object; never
 * mutate the input) or `undefined` to drop it. Records are raw bytes, as MM2's ByteArrayConverter
 * gives them; a plugin that understands a format decodes it itself.
 *
 * `z` is re-exported so a plugin builds its schema with the same zod the host validates with
 * (the config schema is exported as JSON Schema, which needs zod 4 schemas).
 */
import { z } from '#zod';
import type { MirrorRecord, RecordHeader, SourcePosition } from '../core/record';
import type { Logger } from '../core/ports/logger';
import { PluginError } from '../core/errors';
import type { ConverterName } from './connect/converters';

export { z, PluginError };
export type { MirrorRecord, RecordHeader, SourcePosition, Logger };

/*
 * Java regexes, as Kafka Connect's transforms and mirrorflow's topic filters read them: a
 * plugin's patterns mean what they mean in `topics:` and in an mm2.properties file. Use
 * `regexField` in the options schema (a bad pattern is a config error naming the step, reported
 * before anything connects), `fullMatchRegex` in `create()`, and `JavaReplacement` for Java's
 * `$1` / `${name}` replacement syntax.
 */
export { fullMatchRegex, regexField, regexProblem } from './full-match-regex';
export { JavaReplacement, regexGroups } from './java-replacement';

/** A monotonically increasing count, e.g. records a transform passed through untouched. */
export interface TransformCounter {
  inc(by?: number): void;
}

/**
 * Counters scoped to one transform step, named in snake_case (a name that is not fails the
 * step's creation). `mirrorflow run` exports them on /metrics as
 * `mirrorflow_transform_counter_total{flow,source,target,transform,step,counter}`; `inc` only
 * adds to a number. Create counters in `create()`, not per record.
 */
export interface TransformMetrics {
  counter(name: string, help: string): TransformCounter;
}

/** Metrics that go nowhere, for tests and hosts without telemetry. */
export const noopTransformMetrics: TransformMetrics = {
  counter() {
    return { inc() {} };
  },
};

export interface TransformContext {
  /** The flow this transform instance belongs to. */
  readonly flow: { readonly source: string; readonly target: string };
  /** A logger already labelled with the flow and the transform. */
  readonly logger: Logger;
  /** Counters labelled with the flow and this step. */
  readonly metrics: TransformMetrics;
}

export interface Transform {
  /**
   * Returns the record to write, or `undefined` to drop it. Must not throw for ordinary input:
   * a throw fails the record (the flow stops, or with errors.tolerance all sends it to the
   * dead-letter topic). Throw a `PluginError` when the message is safe to show (it is
   * reported as-is); any other error is reported by class name only, because its message may
   * quote record bytes.
   */
  apply(record: MirrorRecord): MirrorRecord | undefined;
}

export interface TransformDefinition<Config = unknown> {
  /** snake_case verb used as `type:` in a pipeline, e.g. `insert_header`. */
  readonly name: string;
  /** One sentence for error messages and the docs. */
  readonly summary: string;
  /**
   * Validates and defaults the step's options (every key of the step except `type`). Prefer
   * `z.strictObject` so a misspelt option is an error rather than silently ignored, and give
   * every field a `.describe()`: it becomes the field's documentation in the JSON Schema.
   */
  readonly configSchema: z.ZodType<Config>;
  create(config: Config, context: TransformContext): Transform;
}

/** Declares a transform; the config type is inferred from the schema. */
export function defineTransform<S extends z.ZodType>(definition: {
  readonly name: string;
  readonly summary: string;
  readonly configSchema: S;
  create(config: z.output<S>, context: TransformContext): Transform;
}): TransformDefinition<z.output<S>> {
  return definition as TransformDefinition<z.output<S>>;
}

/**
 * Samples the plugin contract (`mirrorflow plugins check`, `checkPluginContract`) runs a plugin
 * on; a plugin module exports them as `contract` beside its default export.
 */
export interface ContractSamples {
  /** Valid options of one step (every key but `type`); `{}` when not given. */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Options the plugin must refuse, each with the option its message must name. */
  readonly invalid?: readonly { readonly options: Readonly<Record<string, unknown>>; readonly option: string }[];
  /** The flow's converters: a field-level transform needs `json`, `json_envelope` or `string` on its side. */
  readonly converters?: { readonly key?: ConverterName; readonly value?: ConverterName };
  /** Records to run it on (unset fields filled in); one ordinary record when not given. */
  readonly records?: readonly Partial<MirrorRecord>[];
  /** A record the step throws on, for the errors.tolerance checks (skipped without one). */
  readonly failing?: Partial<MirrorRecord>;
  /**
   * false for a transform that, by design, writes a value for a tombstone (as Connect's
   * HoistField wraps a null value in a map): the check then only asks that it does not crash.
   */
  readonly keepsTombstones?: boolean;
}
