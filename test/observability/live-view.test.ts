/**
 * `mirrorflow run` on a terminal: a real pseudo-terminal (util-linux `script`) in front of a real
 * run replicating between the test clusters. The live view at the bottom of the screen is redrawn
 * in place and shows the records really replicated, reaching what was produced, with lag 0; log
 * lines still reach the screen, above the view; Ctrl-C typed on the terminal stops the run cleanly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { KafkaKit, keyedRecords } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { MIRRORFLOW_MAIN, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

/** What the view sends to replace its last frame: cursor up that many lines, clear to the end of the screen. */
const ERASE_FRAME = /\u001b\[\d+A\u001b\[J/;

let source: KafkaKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary) }),
  (kits) => ({ source } = kits),
);

/** `mirrorflow run FILE` under a pseudo-terminal: what the terminal received, and its keyboard. */
function runOnTerminal(file: string): { screen: () => string; type: (keys: string) => void; exited: Promise<number | null> } {
  // A terminal 200 columns wide: the view cuts lines at the terminal's width. Text logs: the
  // test pipelines log JSON, and JSON logs mean no live view.
  const command = `stty cols 200 rows 50; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(MIRRORFLOW_MAIN)} run ${JSON.stringify(file)} --http 127.0.0.1:0 --log-format text`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdin.on('error', () => undefined); // typing after the run ended
  const type = (keys: string): void => {
    if (child.exitCode === null && child.signalCode === null) child.stdin.write(keys);
  };
  return { screen: () => out.replace(/\r/g, ''), type, exited };
}

/** The view's pieces: what was written between two frame replacements (log lines, then a frame). */
function pieces(screen: string): string[] {
  return screen.split(ERASE_FRAME);
}

describe('mirrorflow run on a terminal', () => {
  test('the live view shows the records really replicated, redrawn in place, with log lines above it', async () => {
    const p = uniqueName('live');
    const topic = `${p}-orders`;
    await source.createTopic(topic, 2);
    await source.produce(topic, keyedRecords(200, 2, 0));
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const run = runOnTerminal(file);
    const shown = (pattern: RegExp): string | undefined => pieces(run.screen()).find((piece) => pattern.test(piece));
    /** The piece showing `pattern`; until it is there, the check fails with the screen's end (quoted on timeout). */
    const showing = (pattern: RegExp) => (): string => {
      const piece = shown(pattern);
      if (piece === undefined) throw new Error(`not on screen yet; the screen ends with:\n${run.screen().slice(-3000)}`);
      return piece;
    };
    const row = (count: number, state = 'running'): RegExp =>
      new RegExp(`^primary->backup\\s+${state}\\s+${count}\\s+(-|\\d+)\\s+(-|\\d+\\.\\d\\d)\\s+0\\s+0 ms\\s+caught up\\s`, 'm');
    try {
      const first = await waitFor(showing(row(200)), { what: 'a frame with 200 records, lag 0', timeoutMs: 60_000 });
      assert.match(first, /^FLOW\s+STATE\s+RECORDS\s+RECORDS\/S\s+MB\/S\s+LAG\s+LAG-TIME\s+CATCH-UP\s+CHECKPOINT\s+HEARTBEAT$/m);
      assert.ok(pieces(run.screen()).length > 2, 'the frame is replaced in place, not printed once');

      await source.produce(topic, keyedRecords(100, 2, 200));
      await waitFor(showing(row(300)), { what: 'a frame with 300 records', timeoutMs: 60_000 });

      const started = shown(/INFO\s+Replication started\./);
      assert.ok(started !== undefined, `the log line reaches the screen:\n${run.screen().slice(-3000)}`);
      assert.match(started, /INFO\s+Replication started\.[^\n]*\n(.*\n)*FLOW\s+STATE/, 'the frame is drawn again below the log line');
      assert.doesNotMatch(run.screen(), /INFO\s+Progress\./, 'the view replaces the progress log line');

      run.type('\u0003');
      assert.equal(await run.exited, 0, run.screen().slice(-3000));
      const last = pieces(run.screen()).at(-1)!;
      assert.match(last, row(300, 'stopped'), `the last frame stays on screen:\n${last}`);
    } finally {
      run.type('\u0003');
      await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, 35_000))]);
    }
  });
});
