import { type ErrorKind, errorCluster, errorKind } from '../../core/errors';

/** Errors of one kind against one cluster, as `mirrorflow_errors_total` shows them. */
export interface ErrorCount {
  readonly kind: ErrorKind;
  readonly cluster: string;
  readonly count: number;
}

/**
 * Errors a flow ran into since start, by kind (`errorKind`) and cluster: every retriable failure
 * its outage trackers see, every record set aside to the dead-letter topic, checkpoint failures,
 * and the failure that ended replication. Counted where the error is already handled, never per
 * record that went well.
 */
export class ErrorCounts {
  private readonly counts = new Map<string, { kind: ErrorKind; cluster: string; count: number }>();

  /** One error; `cluster` is the one it names, else `fallbackCluster`. `kind` overrides the derived kind. */
  record(error: unknown, fallbackCluster: string, kind: ErrorKind = errorKind(error), times = 1): void {
    const cluster = errorCluster(error) ?? fallbackCluster;
    const key = `${kind}\u0000${cluster}`;
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { kind, cluster, count: times });
    else entry.count += times;
  }

  /** Every count so far, ordered by kind and cluster. */
  values(): readonly ErrorCount[] {
    return [...this.counts.values()]
      .map(({ kind, cluster, count }) => ({ kind, cluster, count }))
      .sort((a, b) => (a.kind === b.kind ? (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0) : a.kind < b.kind ? -1 : 1));
  }
}
