/**
 * The TypeScript side of `java/ConnectTransformOracle.java`: what Kafka Connect's own converters
 * and SMTs make of records, one case per record (see the Java file for the shapes).
 */
import type { JavaPrograms } from './java-programs';

/** A converter, transformation or predicate: its class and its config. */
export type ConnectPart = { readonly class: string } & Readonly<Record<string, string>>;

export interface OracleStep {
  readonly transform: ConnectPart;
  readonly predicate?: ConnectPart;
  readonly negate?: boolean;
}

export interface OracleCase {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  /** UTF-8 text, or null for no bytes. */
  readonly key: string | null;
  readonly value: string | null;
  /** Name and base64 value (null: a header without a value). */
  readonly headers: readonly (readonly [string, string | null])[];
  readonly keyConverter: ConnectPart;
  readonly valueConverter: ConnectPart;
  readonly headerConverter: ConnectPart;
  readonly steps: readonly OracleStep[];
}

export type OracleAnswer =
  | { readonly topic: string; readonly key: string | null; readonly value: string | null; readonly headers: readonly (readonly [string, string | null])[] }
  | { readonly dropped: true }
  | { readonly error: string };

/** Runs every case through the oracle (one JVM for all); the answers in the same order. */
export async function askConnect(programs: JavaPrograms, cases: readonly OracleCase[]): Promise<OracleAnswer[]> {
  const lines = cases.map(({ steps, ...rest }) =>
    JSON.stringify({
      ...rest,
      transforms: steps.map((step) => ({
        ...step.transform,
        ...(step.predicate !== undefined && { predicate: step.predicate }),
        ...(step.negate !== undefined && { negate: step.negate }),
      })),
    }),
  );
  const stdout = await programs.run('ConnectTransformOracle', [], lines.map((line) => `${line}\n`).join(''));
  const answers = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as OracleAnswer);
  if (answers.length !== cases.length) throw new Error(`ConnectTransformOracle answered ${answers.length} of ${cases.length} cases:\n${stdout.slice(-3000)}`);
  return answers;
}
