import { topicPartitionKey, type TopicPartition } from '../../core/record';
import type { PartitionCounts } from './partition-comparison';

/** Where a flow's continuous verification is. */
export type VerifyState = 'disabled' | 'starting' | 'running' | 'failing' | 'stopped';

/** One partition as continuous verification last saw it. */
export interface PartitionVerification {
  readonly topic: string;
  readonly partition: number;
  readonly remoteTopic: string;
  /** Source offsets below this one were verified or skipped: the next window starts here. */
  verifiedTo: number;
  /** Target offsets below this one were judged by the last window: where the next one's copy starts, when it follows on. */
  targetNext: number;
  /** The last window compared, [from, to), and when. */
  lastFrom: number;
  lastTo: number;
  lastAt: number;
  /** Over the run: what was found in this partition. */
  missing: number;
  duplicates: number;
  unexpected: number;
  /** The last window that found something, [from, to), when, and its first offsets (source offset; target offsets). */
  findingFrom?: number;
  findingTo?: number;
  findingAt?: number;
  firstMissing?: number | undefined;
  firstDuplicate?: number | undefined;
  firstUnexpected?: number | undefined;
}

/**
 * What a flow's continuous verification (verify-job.ts) found: totals over the run, per partition
 * where the next window starts and what was found, read by `/status`, the status page and metrics.
 */
export class VerifyStatus {
  state: VerifyState = 'disabled';
  intervalMs = 0;
  recordsPerInterval = 0;
  passes = 0;
  lastPassAt: number | undefined;
  /** Source records compared. */
  records = 0;
  matched = 0;
  missing = 0;
  duplicates = 0;
  unexpected = 0;
  /** Copied records the read budget left unverified (copied faster than the budget reads). */
  skipped = 0;
  errors = 0;
  lastError: string | undefined;
  readonly partitions = new Map<string, PartitionVerification>();

  /** A window [from, to) of `tp` (copied to `remoteTopic`) was compared at `at`. */
  recordWindow(tp: TopicPartition, remoteTopic: string, from: number, to: number, targetNext: number, counts: PartitionCounts, at: number): void {
    const key = topicPartitionKey(tp);
    let p = this.partitions.get(key);
    if (p === undefined) {
      p = {
        topic: tp.topic,
        partition: tp.partition,
        remoteTopic,
        verifiedTo: to,
        targetNext,
        lastFrom: from,
        lastTo: to,
        lastAt: at,
        missing: 0,
        duplicates: 0,
        unexpected: 0,
      };
      this.partitions.set(key, p);
    }
    p.verifiedTo = to;
    p.targetNext = targetNext;
    p.lastFrom = from;
    p.lastTo = to;
    p.lastAt = at;
    p.missing += counts.missing;
    p.duplicates += counts.duplicates;
    p.unexpected += counts.unexpected;
    if (counts.missing + counts.duplicates + counts.unexpected > 0) {
      p.findingFrom = from;
      p.findingTo = to;
      p.findingAt = at;
      p.firstMissing = counts.firstMissing;
      p.firstDuplicate = counts.firstDuplicate;
      p.firstUnexpected = counts.firstUnexpected;
    }
    this.records += counts.sourceRecords;
    this.matched += counts.matched;
    this.missing += counts.missing;
    this.duplicates += counts.duplicates;
    this.unexpected += counts.unexpected;
  }

  /** Where the next window of `tp` starts, undefined before its first. */
  verifiedTo(tp: TopicPartition): number | undefined {
    return this.partitions.get(topicPartitionKey(tp))?.verifiedTo;
  }

  /** Where the copy of the window that follows on from the last one starts on the target, undefined before the first. */
  targetNext(tp: TopicPartition): number | undefined {
    return this.partitions.get(topicPartitionKey(tp))?.targetNext;
  }

  /** Partitions where something was found, by topic and partition. */
  withFindings(): PartitionVerification[] {
    return [...this.partitions.values()]
      .filter((p) => p.missing + p.duplicates + p.unexpected > 0)
      .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }
}
