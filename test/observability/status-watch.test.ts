/**
 * `mirrorflow status URL --watch` against a real replicating `mirrorflow run`: the terminal
 * view redraws frames in place, each with what /status says at that moment, and follows the
 * run as records are replicated; when the run goes away it says so and keeps asking.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, keyedRecords } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, spawnCli, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

const CLEAR_SCREEN = '\u001b[H\u001b[2J';

let source: KafkaKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary) }),
  (kits) => ({ source } = kits),
);

/** The frames drawn so far: the text between screen clears. */
function frames(stdout: string): string[] {
  return stdout.split(CLEAR_SCREEN).slice(1);
}

/** The rates row of the flow in a frame: [records/s, MB/s, lag, catch-up]. */
function ratesRow(frame: string): string[] | undefined {
  const line = frame.split('\n').find((l) => /^primary->backup\s+(-|\d+)\s+(-|\d+\.\d\d)\s+\d+\s/.test(l));
  return line
    ?.trim()
    .split(/\s{2,}/)
    .slice(1);
}

describe('mirrorflow status --watch', () => {
  test('redraws the flow every interval and follows replication; a run that goes away is reported, not fatal', async () => {
    const p = uniqueName('watch');
    const orders = `${p}-orders`;
    await source.createTopic(orders, 2);
    await source.produce(orders, keyedRecords(200, 2));
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = spawnPipeline(file);
    const base = await httpAddress(run);

    const watch = spawnCli(['status', base, '--watch', '--interval', '300']);
    const hasFrame = (pattern: RegExp): string | undefined => frames(watch.stdout()).find((f) => pattern.test(f));
    const flowRow = (records: number): RegExp => new RegExp(`^primary->backup\\s+running\\s+1\\s+${records}\\s+0\\s`, 'm');
    await waitFor(() => hasFrame(flowRow(200)), { what: `a frame with 200 records, lag 0:\n${watch.stdout().slice(-2000)}`, timeoutMs: 60_000 });
    const drawn = frames(watch.stdout()).length;

    await source.produce(orders, keyedRecords(100, 2, 200));
    const last = await waitFor(() => hasFrame(flowRow(300)), { what: `a frame with 300 records:\n${watch.stdout().slice(-2000)}`, timeoutMs: 60_000 });
    assert.match(last, new RegExp(`^\\s+${orders}\\s+1\\s+150\\s+150\\s+0\\s+150$`, 'm'), `partition row of ${orders}-1:\n${last}`);
    const during = frames(watch.stdout()).slice(drawn);
    assert.ok(
      during.some((f) => Number(ratesRow(f)?.[0]) > 0),
      `a frame between 200 and 300 records shows a rate above 0:\n${during.map((f) => ratesRow(f)?.join(' ')).join('\n')}`,
    );
    assert.deepEqual(ratesRow(last)?.slice(2), ['0', 'caught up']);

    run.kill('SIGTERM');
    assert.equal((await run.exited).code, 0);
    await waitFor(() => hasFrame(/Cannot reach mirrorflow at .*\nAsking again every 0\.3 s\./), { what: 'a frame saying the run cannot be reached' });
    assert.equal(watch.child.exitCode, null, 'the view keeps going when the run is gone');

    watch.kill('SIGINT');
    const ended = await watch.exited;
    assert.equal(ended.code, 0, ended.stderr);
  });
});
