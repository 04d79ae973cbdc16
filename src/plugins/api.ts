/**
 * The transform plugin API: the only module a plugin in `plugins/` imports.
 *
 * A transform sees one record at a time and returns the record to write (a new object; never
 * mutate the input) or `undefined` to drop it. Records are raw bytes, as MM2's ByteArrayConverter
 * gives them; a plugin that understands a format decodes it itself.
 */
import type { z } from 'zod';
import type { MirrorRecord, RecordHeader } from '../core/record';
import type { Logger } from '../core/ports/logger';

export type { MirrorRecord, RecordHeader, Logger };

export interface TransformContext {
  /** The flow this transform instance belongs to. */
  readonly flow: { readonly source: string; readonly target: string };
  /** A logger already labelled with the flow and the transform. */
  readonly logger: Logger;
}

export interface Transform {
  /** Returns the record to write, or `undefined` to drop it. Must not throw for ordinary input. */
  apply(record: MirrorRecord): MirrorRecord | undefined;
}

export interface TransformDefinition<Config = unknown> {
  /** snake_case verb used as `type:` in a pipeline, e.g. `insert_header`. */
  readonly name: string;
  /** One sentence for `mirrorflow plugins` and the docs. */
  readonly summary: string;
  /** Validates and defaults the step's options (every key of the step except `type`). */
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
