/**
 * `mirrorflow demo` (`npm run demo`, the README's first command) as a newcomer runs it: two local
 * clusters of its own, sample data, the example pipeline replicating it, the status page and the
 * metrics it points at, and the record-by-record check, run as the built CLI. With `--stay`, so
 * the endpoints can be read while it replicates; Ctrl-C (SIGINT) then ends it with the check.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cleanupHarness, spawnCli } from '../support/pipeline-harness';

after(cleanupHarness);

const RECORDS = 3000;
const TOPICS = [
  { name: 'orders', partitions: 3 },
  { name: 'payments', partitions: 2 },
];

test('the demo replicates its sample data, serves what it points at, and checks the copy after Ctrl-C', async () => {
  const demo = spawnCli(['demo', '--records', String(RECORDS), '--stay']);
  await demo.waitForOutput(/The copy is complete; replication goes on\./, 240_000);
  const total = TOPICS.length * 2 * RECORDS;
  assert.match(demo.stdout(), new RegExp(`^ +${total.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} records on backup`, 'm'));

  const base = /^Watch it: (http:\/\/[^/\s]+)\/ \(status page\)/m.exec(demo.stdout())?.[1];
  assert.ok(base !== undefined, `the demo says where to watch it:\n${demo.stdout()}`);
  const page = await fetch(`${base}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  let replicated = 0;
  for (const line of metrics.split('\n'))
    if (line.startsWith('mirrorflow_records_replicated_total{')) replicated += Number(line.slice(line.lastIndexOf(' ') + 1));
  assert.equal(replicated, total, 'the metrics count every record copied');

  demo.kill('SIGINT');
  const result = await demo.exited;
  assert.equal(result.code, 0, result.stderr);
  for (const topic of TOPICS)
    for (let p = 0; p < topic.partitions; p++)
      assert.match(
        result.stdout,
        new RegExp(`^ {2}ok {3}${topic.name}\\[${p}\\] → primary\\.${topic.name}\\[${p}\\] {2}\\d+ records, sha256 [0-9a-f]{16}$`, 'm'),
      );
  assert.match(result.stdout, /^backup holds an exact copy of primary\. Stopping the clusters\.$/m);
  assert.doesNotMatch(result.stdout, /DIFF/);
});
