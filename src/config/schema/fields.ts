/** Field builders the sections of the pipeline schema share. */
import { z } from '#zod';

export const positiveInt = () => z.int().min(1);
export const nonNegativeInt = () => z.int().min(0);

/**
 * Upper and lower case are both accepted because MM2 files say `SASL_SSL` and `SCRAM-SHA-512`;
 * the validated config always holds the lower-case form.
 */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  const upper = values.map((v) => v.toUpperCase());
  const accepted = z.enum([...values, ...upper] as [string, ...string[]]).describe(description);
  return {
    required: () => accepted.transform(lowerCase<T[number]>),
    // The default sits inside the transform so that the JSON Schema (input side) shows it.
    withDefault: (value: T[number]) => accepted.default(value).transform(lowerCase<T[number]>),
  };
}

function lowerCase<T extends string>(value: string): T {
  return value.toLowerCase() as T;
}

export const regexList = (description: string) => z.array(z.string()).describe(description);

/** The replication factor of one internal topic; unset, the flow's `topic_sync.replication_factor` applies. */
export const internalReplicationFactor = (description: string) =>
  z
    .int()
    .max(32767)
    .refine((value) => value === -1 || value >= 1, "must be -1 (the broker's default) or at least 1")
    .optional()
    .describe(description);
