/**
 * Reads typed values out of an mm2.properties file as Kafka's ConfigDef does (values trimmed;
 * booleans `true`/`false` in any case; Java integer ranges; LIST split on commas), collecting a
 * problem per bad value instead of stopping. Messages name the key, never the value.
 *
 * `mirrorflow convert` reads a file without resolving its `${…}` references: each one stands in
 * the value as an opaque placeholder. A placeholder can travel into the pipeline as text (a
 * password, a whole number the pipeline file reads back as one), but not through a computation
 * (seconds to milliseconds, a flag that decides which flows exist), which is then reported.
 */
import type { Mm2Problem, Mm2Property } from './mm2-document';
import { splitList } from './mm2-providers';

export type IntegerType = 'int' | 'long' | 'short';

const RANGES: Readonly<Record<IntegerType, readonly [number, number]>> = {
  short: [-32768, 32767],
  int: [-2147483648, 2147483647],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

export interface Mm2ValuesOptions {
  /** Keys whose `${…}` failed: their problems are reported already. */
  readonly failedKeys: ReadonlySet<string>;
  /** Whether a value holds an unresolved reference (convert); never true when values are resolved. */
  readonly isOpaque: (value: string) => boolean;
  /**
   * What an unknown key is: `error` (the default; MM2 would drop it without a word, and a typo
   * would go unnoticed) or `warn` (`--unknown-keys warn`, for files whose typos MM2 tolerated).
   */
  readonly unknownKeys?: UnknownKeys;
}

export type UnknownKeys = 'error' | 'warn';

export class Mm2Values {
  readonly problems: Mm2Problem[] = [];
  readonly warnings: Mm2Problem[] = [];
  /** Problems found, counting those not reported because their key's `${…}` failed. */
  failures = 0;

  constructor(private readonly options: Mm2ValuesOptions) {}

  report(prop: Mm2Property, message: string, hint?: string, atValue = true): void {
    this.failures += 1;
    if (this.options.failedKeys.has(prop.key)) return;
    this.problems.push({
      key: prop.key,
      ...(prop.entry === undefined ? {} : { entry: prop.entry }),
      atValue,
      message,
      ...(hint === undefined ? {} : { hint }),
      ...(prop.viaSet === true ? { viaSet: true } : {}),
    });
  }

  warn(prop: Mm2Property, message: string, hint?: string): void {
    this.warnings.push({
      key: prop.key,
      ...(prop.entry === undefined ? {} : { entry: prop.entry }),
      message,
      ...(hint === undefined ? {} : { hint }),
      ...(prop.viaSet === true ? { viaSet: true } : {}),
    });
  }

  /** A key mirrorflow does not know (MM2 drops such keys): a problem, or with `--unknown-keys warn` a warning. */
  unknown(prop: Mm2Property, message: string, hint?: string): void {
    if (this.options.unknownKeys === 'warn') {
      this.warn(prop, `${message}; ignored, as MM2 ignores it (--unknown-keys warn)`, hint);
      return;
    }
    this.report(prop, message, hint === undefined ? '--unknown-keys warn ignores unknown keys, as MM2 does' : hint, false);
  }

  /** `warn`, once per property and message: a top-level key reaches every flow, and is read for each. */
  warnOnce(prop: Mm2Property, message: string, hint?: string): void {
    if (this.warnings.some((w) => w.key === prop.key && w.message === message && w.entry === prop.entry)) return;
    this.warn(prop, message, hint);
  }

  isOpaque(prop: Mm2Property): boolean {
    return this.options.isOpaque(prop.value);
  }

  /** A value a computation needs; with an unresolved reference (convert) that is a problem. */
  literal(prop: Mm2Property, purpose: string): string | undefined {
    if (!this.options.isOpaque(prop.value)) return prop.value.trim();
    this.report(
      prop,
      `comes from a \${…} reference, and convert needs its value ${purpose}`,
      'write the value in the file, or write this part of the pipeline by hand',
    );
    return undefined;
  }

  boolean(prop: Mm2Property, purpose = 'to decide what the pipeline holds'): boolean | undefined {
    const value = this.literal(prop, purpose);
    if (value === undefined) return undefined;
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === 'false') return lower === 'true';
    this.report(prop, `must be true or false`);
    return undefined;
  }

  integer(prop: Mm2Property, type: IntegerType, purpose = 'to convert it'): number | undefined {
    const value = this.literal(prop, purpose);
    if (value === undefined) return undefined;
    const [min, max] = RANGES[type];
    if (!/^[+-]?\d+$/.test(value)) {
      this.report(prop, `must be a whole number`);
      return undefined;
    }
    const number = Number(value);
    if (number < min || number > max) {
      this.report(prop, `is out of range for a Java ${type} (${min} to ${max})`);
      return undefined;
    }
    return number;
  }

  /** A boolean that goes into the pipeline as it is: a reference may stay a reference. */
  booleanLeaf(prop: Mm2Property): boolean | string | undefined {
    return this.isWholeReference(prop) ? prop.value.trim() : this.boolean(prop);
  }

  /** A whole number that goes into the pipeline as it is. */
  integerLeaf(prop: Mm2Property, type: IntegerType): number | string | undefined {
    return this.isWholeReference(prop) ? prop.value.trim() : this.integer(prop, type);
  }

  /** Seconds in the file, milliseconds in the pipeline. */
  secondsAsMs(prop: Mm2Property, type: IntegerType = 'long'): number | undefined {
    const seconds = this.integer(prop, type, 'to convert seconds to milliseconds');
    return seconds === undefined ? undefined : seconds * 1000;
  }

  /** One of `choices`, compared without case; the pipeline gets the choice as listed. */
  choice<T extends string>(prop: Mm2Property, choices: readonly T[], hint?: string): T | undefined {
    if (this.isWholeReference(prop)) {
      this.report(prop, `comes from a \${…} reference, and convert needs its value to check it`, 'write the value in the file');
      return undefined;
    }
    const value = prop.value.trim().toLowerCase();
    const found = choices.find((c) => c.toLowerCase() === value);
    if (found === undefined) this.report(prop, `must be one of: ${choices.join(', ')}`, hint);
    return found;
  }

  list(prop: Mm2Property): string[] {
    return splitList(prop.value);
  }

  private isWholeReference(prop: Mm2Property): boolean {
    return this.options.isOpaque(prop.value) && splitList(prop.value).length === 1;
  }
}
