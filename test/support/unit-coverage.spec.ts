import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coverageEnabled, coverageLines } from './unit-coverage';

const lines = (total: number, covered: number) => ({ lines: { total, covered } });

test('coverageLines: the totals of src and plugins, each hot-path folder, and each hot-path file below 90 % (the election is off the hot path)', () => {
  const report = coverageLines(
    {
      total: lines(1000, 800),
      '/repo/src/flow/replication/mirror.ts': lines(100, 95),
      '/repo/src/flow/replication/slots.ts': lines(100, 80),
      '/repo/src/flow/operators/write-batches.ts': lines(50, 50),
      '/repo/src/kafka/consumer/kafkajs-source.ts': lines(200, 190),
      '/repo/src/kafka/consumer/kafkajs-election.ts': lines(100, 0),
      '/repo/src/cli/main.ts': lines(50, 0),
      '/repo/plugins/mask/index.ts': lines(10, 10),
    },
    '/repo',
  );
  assert.deepEqual(report, [
    'line coverage of the unit lane (reported, not a gate; table in coverage/coverage.txt): src 69.2 % of 600 lines, plugins 100.0 % of 10 lines',
    '  hot path src/flow/replication/: 87.5 % of 200 lines',
    '    below 90 %: src/flow/replication/slots.ts 80.0 % of 100 lines',
    '  hot path src/flow/operators/: 100.0 % of 50 lines, every file at 90 % or more',
    '  hot path src/kafka/consumer/: 95.0 % of 200 lines, every file at 90 % or more',
    '  hot path src/kafka/producer/: 100.0 % of 0 lines, every file at 90 % or more',
  ]);
});

test('coverage is on unless MIRRORFLOW_TEST_COVERAGE=0', () => {
  assert.equal(coverageEnabled({}), true);
  assert.equal(coverageEnabled({ MIRRORFLOW_TEST_COVERAGE: '0' }), false);
});
