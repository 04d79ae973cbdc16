import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { lanesSummary, splitLanes, tapTotals } from './test-lanes';

test('splitLanes puts the specs in the unit lane, test/production files in the production lane, then the files it takes after them, and every other file in the main lane', () => {
  const dist = '/repo/dist';
  const files = [
    'test/local/launcher.test.js',
    'test/bench/bench-smoke-variants.test.js',
    'test/production/rolling-restart.test.js',
    'src/local/free-ports.spec.js',
    'test/productionish/x.test.js',
    'test/support/test-lanes.spec.js',
  ].map((f) => join(dist, f));
  const lanes = splitLanes(files, dist);
  assert.deepEqual(lanes.unit, [join(dist, 'src/local/free-ports.spec.js'), join(dist, 'test/support/test-lanes.spec.js')]);
  assert.deepEqual(lanes.production, [join(dist, 'test/production/rolling-restart.test.js')]);
  assert.deepEqual(lanes.afterProduction, [join(dist, 'test/bench/bench-smoke-variants.test.js')]);
  assert.deepEqual(lanes.main, [join(dist, 'test/local/launcher.test.js'), join(dist, 'test/productionish/x.test.js')]);
});

test('tapTotals reads the last summary of a report, and nothing from a report without one', () => {
  const report = 'TAP version 13\n# Subtest: a\n    # tests 9\nok 1 - a\n1..1\n# tests 3\n# suites 0\n# pass 2\n# fail 1\n# cancelled 0\n';
  assert.deepEqual(tapTotals(report), { tests: 3, pass: 2, fail: 1 });
  assert.equal(tapTotals('TAP version 13\n# Subtest: a\n'), undefined);
});

test('lanesSummary ends with the totals of every lane; a lane that crashed without a summary counts as a failure', () => {
  const summary = lanesSummary([
    { name: 'main', files: 10, code: 0, ms: 1_500_000, totals: { tests: 100, pass: 100, fail: 0 } },
    { name: 'production', files: 6, code: 1, ms: 900_000 },
  ]);
  assert.match(summary, /^# main: 10 files, tests 100, pass 100, fail 0, exit code 0, 1500 s$/m);
  assert.match(summary, /^# production: 6 files, tests 1, pass 0, fail 1, exit code 1, 900 s$/m);
  assert.ok(summary.endsWith('# tests 101\n# pass 100\n# fail 1\n'), summary);
});
