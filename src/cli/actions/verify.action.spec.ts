import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatVerifyReport, progressLine } from './verify.action';
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

test('the progress line: partitions and offsets so far, the partition being read, redrawn in place at most every 200 ms and cut to the terminal', () => {
  const written: string[] = [];
  let now = 1_000;
  const draw = progressLine({ columns: 120, write: (text) => written.push(text) }, () => now);
  const current = { flow: 'primary->backup', topic: 'orders', partition: 1, fraction: 0.25 };
  draw({ done: 1, partitions: 3, offsets: 250, totalOffsets: 1_000, current });
  now += 100;
  draw({ done: 1, partitions: 3, offsets: 300, totalOffsets: 1_000, current: { ...current, fraction: 0.3 } });
  now += 150;
  draw({ done: 1, partitions: 3, offsets: 400, totalOffsets: 1_000, current: { ...current, fraction: 0.4 } });
  // A partition done is drawn at once, however soon.
  now += 1;
  draw({ done: 2, partitions: 3, offsets: 500, totalOffsets: 1_000 });
  assert.deepEqual(written, [
    '\r\x1b[Kverifying: 1/3 partitions, 250/1000 offsets (25%)  primary->backup orders-1 25%',
    '\r\x1b[Kverifying: 1/3 partitions, 400/1000 offsets (40%)  primary->backup orders-1 40%',
    '\r\x1b[Kverifying: 2/3 partitions, 500/1000 offsets (50%)',
  ]);
  const narrow: string[] = [];
  progressLine({ columns: 30, write: (text) => narrow.push(text) }, () => 0)({ done: 0, partitions: 3, offsets: 0, totalOffsets: 0 });
  assert.deepEqual(narrow, ['\r\x1b[Kverifying: 0/3 partitions, 0/'], 'cut to the width of the terminal');
});
