import type { Logger } from '../../core/ports/logger';
import { ClusterUnavailableError, KafkaTransportError, describeError } from '../../core/errors';
import { ErrorCounts } from './error-counts';

/** One operation against one cluster that keeps failing retriably, as the flow status shows it. */
export interface Outage {
  readonly cluster: string;
  /** What was being done, a constant phrase: `writing records`, `storing progress`. */
  readonly operation: string;
  /** Scheduler time (epoch ms) of the first failure. */
  readonly since: number;
  /** Failures so far. */
  readonly failures: number;
  readonly lastError: string;
}

interface Entry {
  cluster: string;
  operation: string;
  since: number;
  failures: number;
  lastError: string;
  /** Outage length at which the next warning is due. */
  nextWarnAtMs: number;
  /** The reasons a warning of this outage has carried, so a new one is told at once, once. */
  readonly warnedReasons: Set<string>;
  /** Who is failing now: an outage ends when the last of them succeeds or gives up. */
  readonly holders: Set<object>;
}

/** The first repeat of a warning comes this long into an outage; each later one twice as far in. */
const FIRST_REPEAT_MS = 5_000;
/** Repeats are never further apart than this. */
const MAX_REPEAT_MS = 60_000;
/** An outage whose reason keeps changing tells this many at once; later ones wait for the next repeat. */
const MAX_WARNED_REASONS = 8;

/**
 * The outages a flow is living through: which cluster, which operation, since when. The flow's
 * parts report failures and successes here (see `OutageTracker`); the progress line and the
 * status read `current`. Warnings go out when an outage starts and then at growing intervals
 * (5 s, 10 s, 20 s … then every minute), not once per retry; a reason the outage's warnings have
 * not carried yet (a broker that refused connections now fails its TLS handshake) is warned at
 * once, once, so a warning never lags behind its reason; an info line says when it ended.
 */
export class OutageStatus {
  private readonly entries = new Map<string, Entry>();
  /** Outages that ended because the operation succeeded again. */
  recovered = 0;
  /** Every retriable failure so far, per cluster and operation (ongoing outages or not). */
  private readonly totals = new Map<string, { readonly cluster: string; readonly operation: string; failures: number }>();

  /** @param errors where every failure is also counted by kind and cluster (the flow's `errors`). */
  constructor(readonly errors: ErrorCounts = new ErrorCounts()) {}

  /** Retriable failures since start, per cluster and operation, each retried. */
  get failuresSoFar(): readonly { readonly cluster: string; readonly operation: string; readonly failures: number }[] {
    return [...this.totals.values()].map(({ cluster, operation, failures }) => ({ cluster, operation, failures }));
  }

  /** Ongoing outages, oldest first. */
  get current(): readonly Outage[] {
    return [...this.entries.values()]
      .map(({ cluster, operation, since, failures, lastError }) => ({ cluster, operation, since, failures, lastError }))
      .sort((a, b) => a.since - b.since);
  }

  /** A tracker for one kind of operation on one cluster. */
  tracker(cluster: string, operation: string, logger: Logger, now: () => number): OutageTracker {
    return new OutageTracker(this, cluster, operation, logger, now);
  }

  /** @internal Records a failure of `holder`; returns the entry when a warning is due. */
  fail(holder: object, cluster: string, operation: string, error: unknown, now: number): { outage: Outage; warn: boolean; reasonChanged: boolean } {
    const key = `${cluster}\u0000${operation}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { cluster, operation, since: now, failures: 0, lastError: '', nextWarnAtMs: 0, warnedReasons: new Set(), holders: new Set() };
      this.entries.set(key, entry);
    }
    entry.holders.add(holder);
    entry.failures++;
    this.errors.record(error, cluster);
    const total = this.totals.get(key);
    if (total === undefined) this.totals.set(key, { cluster, operation, failures: 1 });
    else total.failures++;
    entry.lastError = describeError(error);
    const outageMs = now - entry.since;
    const due = outageMs >= entry.nextWarnAtMs;
    const reasonChanged = !due && entry.warnedReasons.size < MAX_WARNED_REASONS && !entry.warnedReasons.has(entry.lastError);
    if (due) entry.nextWarnAtMs = outageMs + Math.min(MAX_REPEAT_MS, Math.max(FIRST_REPEAT_MS, outageMs));
    if (due || reasonChanged) entry.warnedReasons.add(entry.lastError);
    return { outage: { ...entry }, warn: due || reasonChanged, reasonChanged };
  }

  /**
   * @internal `holder` succeeded at `operation` (or, with `recovered` false, gave up): ends the
   * outage it was part of — on whichever cluster its failures named. Returns the ended outage.
   */
  release(holder: object, operation: string, recovered: boolean): Outage | undefined {
    for (const [key, entry] of this.entries) {
      if (entry.operation !== operation || !entry.holders.delete(holder)) continue;
      if (entry.holders.size > 0 && !recovered) return undefined;
      this.entries.delete(key);
      if (recovered) this.recovered++;
      return { ...entry };
    }
    return undefined;
  }
}

/**
 * Reports one operation's failures and successes to the flow's OutageStatus and logs them:
 * a warning naming the cluster, the operation and how long it has been failing (`outageMs`),
 * repeated at growing intervals, and an info line with the whole duration when it works again.
 */
export class OutageTracker {
  constructor(
    private readonly status: OutageStatus,
    readonly cluster: string,
    readonly operation: string,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /**
   * A retriable failure; `holder` identifies who failed (one retry loop, say). The cluster is the
   * one the error names, if it names one (an operation may touch both clusters of a flow).
   */
  failed(error: unknown, holder: object = this): void {
    const cluster = error instanceof KafkaTransportError || error instanceof ClusterUnavailableError ? error.cluster : this.cluster;
    const { outage, warn, reasonChanged } = this.status.fail(holder, cluster, this.operation, error, this.now());
    const meta = {
      cluster,
      operation: this.operation,
      outageMs: this.now() - outage.since,
      failures: outage.failures,
      error: outage.lastError,
      // Before its repeat was due: the outage's reason changed.
      ...(reasonChanged && { reasonChanged: true }),
    };
    if (warn) this.logger.warn('A cluster keeps failing an operation; retrying until it works again.', meta);
    else this.logger.debug('A cluster failed an operation again; retrying.', meta);
  }

  /** The operation worked: ends the outage `holder` was part of, if any. */
  succeeded(holder: object = this): void {
    const ended = this.status.release(holder, this.operation, true);
    if (ended !== undefined) {
      this.logger.info('A cluster works again after an outage.', {
        cluster: ended.cluster,
        operation: this.operation,
        outageMs: this.now() - ended.since,
        failures: ended.failures,
      });
    }
  }

  /** `holder` stopped trying (unsubscribed, or failed for good): no recovery to report. */
  abandoned(holder: object = this): void {
    this.status.release(holder, this.operation, false);
  }
}
