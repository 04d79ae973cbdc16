/**
 * What the fault tests share: a producer that keeps writing numbered records while the fault
 * lasts, mirrorflow's progress lines, and the final comparison of source and target partition by
 * partition.
 */
import { setTimeout as pace } from 'node:timers/promises';
import type { KafkaRecord } from '../../src/core/record';
import type { KafkaKit, TestRecord } from './kafka-kit';
import type { ChildPipeline } from './pipeline-harness';

/**
 * Records whose values are unique ids `<label>-<n>` (padded with `.` to `valueBytes` when
 * given), spread round-robin over `partitions`.
 */
export function numbered(label: string, from: number, count: number, partitions: readonly number[], valueBytes = 0): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: partitions[(from + i) % partitions.length]!,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${from + i}-`.padEnd(valueBytes, '.')),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: Date.now(),
  }));
}

export interface ContinuousProducer {
  /** Records acknowledged by the source so far. */
  written(): number;
  /** Stops after the write in progress; resolves with how many records it wrote (rejects if a write failed). */
  stop(): Promise<number>;
}

/**
 * Keeps writing `perTick` numbered records every `tickMs` to `topic` (directly, never through a
 * proxy under test) until stopped.
 */
export function keepProducing(
  kit: KafkaKit,
  topic: string,
  partitions: readonly number[],
  label: string,
  options: { perTick?: number; tickMs?: number; valueBytes?: number } = {},
): ContinuousProducer {
  const perTick = options.perTick ?? 20;
  const tickMs = options.tickMs ?? 20;
  let stopped = false;
  let n = 0;
  const loop = (async () => {
    while (!stopped) {
      await kit.produce(topic, numbered(label, n, perTick, partitions, options.valueBytes));
      n += perTick;
      await pace(tickMs);
    }
    return n;
  })();
  // Observed here; stop() hands a failure to the test.
  loop.catch(() => undefined);
  return {
    written: () => n,
    stop: async () => {
      stopped = true;
      return loop;
    },
  };
}

export interface Progress {
  readonly state: string;
  readonly records: number;
  readonly lag: number;
  readonly bufferedBytes: number;
  readonly rssMb: number;
  readonly heapMb: number;
}

/** One JSON log line of a child `mirrorflow run`. */
export interface LogLine {
  readonly message: string;
  readonly [field: string]: unknown;
}

/** The child's JSON log lines on stderr so far, in order; a last line still being written is left out. */
export function jsonLogs(child: ChildPipeline): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of child.stderr().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // the last line may still be incomplete
    }
  }
  return lines;
}

/** The child's "Progress." log lines so far (JSON logs on stderr; needs a status interval), in order. */
export function progressLines(child: ChildPipeline): Progress[] {
  const lines: Progress[] = [];
  for (const line of child.stderr().split('\n')) {
    if (!line.includes('"Progress."')) continue;
    try {
      const parsed = JSON.parse(line) as { message?: string } & Progress;
      if (parsed.message === 'Progress.') lines.push(parsed);
    } catch {
      // the last line may still be incomplete
    }
  }
  return lines;
}

/** The distinct log messages of a child at `level` (JSON logs), with how often each came. */
export function logMessages(child: ChildPipeline, level: 'warn' | 'error'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of child.stderr().split('\n')) {
    if (!line.includes(`"level":"${level}"`)) continue;
    try {
      const message = (JSON.parse(line) as { message?: string }).message ?? line;
      counts.set(message, (counts.get(message) ?? 0) + 1);
    } catch {
      // incomplete line
    }
  }
  return counts;
}

export interface PartitionComparison {
  readonly partition: number;
  readonly source: number;
  readonly target: number;
  /** Source values not on the target. */
  readonly missing: readonly string[];
  /** Index in first occurrences where the target's order departs from the source's, or -1. */
  readonly orderBreak: number;
  /** Target records beyond the source's count. */
  readonly duplicates: number;
  readonly detail: string;
}

const values = (records: readonly KafkaRecord[]): string[] => records.map((r) => r.value?.toString() ?? '<null>');
const around = (list: readonly string[], at: number): string => `[${list.slice(Math.max(0, at - 3), at + 5).join(', ')}]`;

/**
 * Compares `remote` on the target with `topic` on the source, partition by partition: every
 * source record there, in the source's order (on first occurrences: the test's own producer is
 * not idempotent either, so a record may be on the source twice), and how many came twice.
 */
export async function compareReplica(source: KafkaKit, topic: string, target: KafkaKit, remote: string): Promise<PartitionComparison[]> {
  const [fromSource, onTarget] = await Promise.all([source.readAll(topic), target.readAll(remote)]);
  const partitions = [...new Set([...fromSource.keys(), ...onTarget.keys()])].sort((a, b) => a - b);
  return partitions.map((partition) => {
    const want = values(fromSource.get(partition) ?? []);
    const got = values(onTarget.get(partition) ?? []);
    const present = new Set(got);
    const missing = want.filter((v) => !present.has(v));
    const wantFirst = [...new Set(want)];
    const gotFirst = [...new Set(got)];
    const orderBreak = gotFirst.findIndex((v, i) => v !== wantFirst[i]);
    return {
      partition,
      source: want.length,
      target: got.length,
      missing,
      orderBreak,
      duplicates: got.length - want.length,
      detail:
        orderBreak < 0
          ? `partition ${partition}: ${want.length} on the source, ${got.length} on the target`
          : `partition ${partition}: from index ${orderBreak} the target has ${around(gotFirst, orderBreak)} where the source has ${around(wantFirst, orderBreak)}`,
    };
  });
}

/** Whether the child process has ended. */
export const exited = (child: ChildPipeline): boolean => child.child.exitCode !== null || child.child.signalCode !== null;
