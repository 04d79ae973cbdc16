/**
 * Kafka's sampled statistics (org.apache.kafka.common.metrics.stats), as MM2's metrics use them
 * with the default MetricConfig: two samples of 30 s, so a min, max, average or rate covers the
 * last 30 to 60 seconds, and a window without events reads NaN (Min, Max, Avg) or 0 (a Rate).
 * Recorded once per batch (with the batch's count and extremes), never per record.
 */

/** Kafka's MetricConfig defaults: `metrics.num.samples` 2, `metrics.sample.window.ms` 30000. */
export const SAMPLES = 2;
export const SAMPLE_WINDOW_MS = 30_000;

interface Sample {
  start: number;
  count: number;
  sum: number;
  min: number;
  max: number;
}

/**
 * Count, sum, min and max of values over the last samples; each record adds `count` values.
 * The two samples are two fields, not an array: a flow keeps four of these per source partition
 * (mirror-metrics.ts), and an array grown by push held 17 slots for them (152 bytes) each. A
 * sample that leaves the window is reused as the next one.
 */
export class SampledStat {
  /** The sample being recorded into. */
  private current: Sample | undefined;
  /** The one before it, while there is one. */
  private previous: Sample | undefined;
  /** The last value recorded (Kafka's `Value` stat). */
  last: number | undefined;

  record(now: number, count: number, sum: number, min: number, max: number, last: number): void {
    if (count <= 0) return;
    let current = this.current;
    if (current === undefined || now - current.start >= SAMPLE_WINDOW_MS) {
      const recycled = this.previous;
      this.previous = current;
      current = recycled ?? { start: now, count: 0, sum: 0, min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY };
      current.start = now;
      current.count = 0;
      current.sum = 0;
      current.min = Number.POSITIVE_INFINITY;
      current.max = Number.NEGATIVE_INFINITY;
      this.current = current;
    }
    current.count += count;
    current.sum += sum;
    current.min = Math.min(current.min, min);
    current.max = Math.max(current.max, max);
    this.last = last;
  }

  /** The samples still in the window at `now`, oldest first (Kafka purges those older than samples × window). */
  private live(now: number): Sample[] {
    const live: Sample[] = [];
    for (const s of [this.previous, this.current]) if (s !== undefined && now - s.start < SAMPLES * SAMPLE_WINDOW_MS) live.push(s);
    return live;
  }

  min(now: number): number {
    const live = this.live(now).filter((s) => s.count > 0);
    return live.length === 0 ? Number.NaN : Math.min(...live.map((s) => s.min));
  }

  max(now: number): number {
    const live = this.live(now).filter((s) => s.count > 0);
    return live.length === 0 ? Number.NaN : Math.max(...live.map((s) => s.max));
  }

  avg(now: number): number {
    let count = 0;
    let sum = 0;
    for (const s of this.live(now)) {
      count += s.count;
      sum += s.sum;
    }
    return count === 0 ? Number.NaN : sum / count;
  }

  /**
   * Kafka's `Rate` of the sum per second: the window's sum over its elapsed time, counted from the
   * oldest sample's start and never less than (samples − 1) windows, nor one window.
   */
  ratePerSecond(now: number): number {
    const live = this.live(now);
    if (live.length === 0) return 0;
    let sum = 0;
    for (const s of live) sum += s.sum;
    const elapsed = Math.max(now - live[0]!.start, (SAMPLES - 1) * SAMPLE_WINDOW_MS, SAMPLE_WINDOW_MS);
    return sum / (elapsed / 1000);
  }
}

/** Bucket counts of a Prometheus histogram, observed with a weight (a batch's record count). */
export class BucketCounts {
  readonly counts: number[];
  count = 0;
  sum = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number, weight = 1): void {
    if (weight <= 0 || !Number.isFinite(value)) return;
    this.count += weight;
    this.sum += value * weight;
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) this.counts[i]! += weight;
  }
}

/** Bounds of the latency and record-age histograms, ms: from a few ms (a local link) to a day (a backlog). */
export const LATENCY_BUCKETS_MS: readonly number[] = [
  5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000, 86_400_000,
];
