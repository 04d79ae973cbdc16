import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatVerifyReport } from './verify.action';
import type { PartitionVerdict, VerifyReport } from '../../pipeline/tools/verify';

const partition = (overrides: Partial<PartitionVerdict>): PartitionVerdict => ({
  flow: 'primary->backup',
  topic: 'orders',
  partition: 0,
  remote_topic: 'primary.orders',
  missing: 0,
  duplicates: 0,
  unexpected: 0,
  behind: 0,
  matched: 10,
  filtered: 0,
  compared_by: 'content',
  offsets_preserved: false,
  from_offset: 0,
  to_offset: 10,
  progress: 10,
  expired: 0,
  source_records: 10,
  target_records: 10,
  ...overrides,
});

const report = (partitions: PartitionVerdict[]): VerifyReport => {
  const sum = (k: 'missing' | 'duplicates' | 'unexpected' | 'behind' | 'matched' | 'expired') => partitions.reduce((n, p) => n + p[k], 0);
  return {
    partitions,
    totals: {
      missing: sum('missing'),
      duplicates: sum('duplicates'),
      unexpected: sum('unexpected'),
      behind: sum('behind'),
      matched: sum('matched'),
      expired: sum('expired'),
    },
  };
};

test('a clean report: the table and the verdict, with what is behind', () => {
  const text = formatVerifyReport(report([partition({ behind: 3 })]));
  assert.match(
    text,
    /^FLOW +TOPIC +PARTITION +REMOTE TOPIC +MATCHED +MISSING +DUPLICATES +UNEXPECTED +BEHIND\nprimary->backup +orders +0 +primary\.orders +10 +0 +0 +0 +3\n/,
  );
  assert.match(text, /\nVerified: 10 records matched in 1 partition; 3 not copied yet \(behind\)\.\n$/);
});

test('a damaged report says where to look, what expired and what was compared by count', () => {
  const text = formatVerifyReport(
    report([
      partition({ missing: 5, first_missing_offset: 40 }),
      partition({ partition: 1, duplicates: 2, first_duplicate_target_offset: 77, unexpected: 1, first_unexpected_target_offset: 80, compared_by: 'count' }),
      partition({ partition: 2, expired: 9, progress: 3, note: 'primary.orders has no partition 2' }),
    ]),
  );
  assert.match(text, /primary->backup orders-0: 5 missing, the first at source offset 40\./);
  assert.match(text, /primary->backup orders-1: 2 duplicates, the first at primary\.orders offset 77\./);
  assert.match(text, /primary->backup orders-1: 1 unexpected, the first at primary\.orders offset 80\./);
  assert.match(text, /primary->backup orders-1: compared by count/);
  assert.match(text, /primary->backup orders-2: primary\.orders has no partition 2\./);
  assert.match(text, /primary->backup orders-2: 9 offsets below the log's start were removed before the flow copied them \(progress 3\)\./);
  assert.match(text, /\nNot verified: 5 missing, 2 duplicates, 1 unexpected \(30 matched, 0 behind\)\.\n$/);
  assert.equal(formatVerifyReport(report([])), 'No replicated partitions to verify.\n');
});
