/**
 * The status page at `/` of a real `mirrorflow run`, read in headless Chromium as a person would
 * read it: the flow's records, lag and partitions are what was replicated, and they change on
 * the open page (it polls /status) as more records are replicated. The page loads nothing from
 * anywhere else.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { KafkaKit, keyedRecords } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { startBrowser, type BrowserPage, type HeadlessBrowser } from '../support/headless-browser';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

let browser: HeadlessBrowser | undefined;
after(async () => browser?.close());

interface Shown {
  readonly ready: string;
  readonly state: string;
  readonly records: string;
  readonly lag: string;
  readonly heartbeats: string;
  readonly partitions: readonly { id: string; records: string; lag: string; nextOffset: string }[];
  readonly chartLines: readonly string[];
}

/** What the page shows of the flow, read from the rendered DOM; null before the first poll. */
function shown(page: BrowserPage): Promise<Shown | null> {
  return page.evaluate<Shown | null>(`(() => {
    const s = document.querySelector('section[data-flow="primary->backup"]');
    if (!s) return null;
    const text = (root, sel) => root.querySelector(sel)?.textContent ?? '';
    return {
      ready: document.getElementById('ready').textContent,
      state: text(s, 'h2 [data-field=state]'),
      records: text(s, '[data-row=summary] [data-field=records]'),
      lag: text(s, '[data-row=summary] [data-field=lag]'),
      heartbeats: text(s, '[data-row=heartbeats] [data-field=count]'),
      partitions: [...s.querySelectorAll('[data-row=partition]')].map((r) => ({
        id: r.getAttribute('data-partition'),
        records: text(r, '[data-field=records]'),
        lag: text(r, '[data-field=lag]'),
        nextOffset: text(r, '[data-field=next-offset]'),
      })),
      chartLines: [...s.querySelectorAll('svg[data-chart=lag] polyline')].map((l) => l.getAttribute('data-topic')),
    };
  })()`);
}

describe('the status page', () => {
  test('shows the real records, lag and partitions of a replicating run, and follows them as replication moves', async () => {
    const p = uniqueName('page');
    const orders = `${p}-orders`;
    await source.createTopic(orders, 3);
    await source.produce(orders, keyedRecords(300, 3));

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const child = spawnPipeline(file);
    const base = await httpAddress(child);
    const fail = (): string => `mirrorflow stderr:\n${child.stderr().slice(-3000)}`;

    const res = await fetch(`${base}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);

    browser = await startBrowser();
    const page = await browser.open(`${base}/?interval=250`);
    const first = await waitFor(
      async () => {
        const s = await shown(page);
        return s !== null && s.records === '300' && s.lag === '0' && s.partitions.length === 3 ? s : undefined;
      },
      { what: `the page to show 300 records with lag 0\n${fail()}`, timeoutMs: 60_000 },
    );
    assert.equal(first.state, 'running');
    assert.deepEqual(
      first.partitions.map((x) => `${x.id}: ${x.records} records, next ${x.nextOffset}, lag ${x.lag}`),
      [0, 1, 2].map((i) => `${orders}-${i}: 100 records, next 100, lag 0`),
    );
    for (let partition = 0; partition < 3; partition++) {
      assert.equal((await target.readAll(`primary.${orders}`)).get(partition)?.length, 100, `what the page says is on the target, ${orders}-${partition}`);
    }
    assert.deepEqual(first.chartLines, [orders], 'the lag chart has a line for the topic');

    // More records: the open page (no reload) follows the flow.
    await source.produce(orders, keyedRecords(150, 3, 300));
    const later = await waitFor(
      async () => {
        const s = await shown(page);
        return s !== null && s.records === '450' && s.lag === '0' && s.heartbeats !== '0 written' ? s : undefined;
      },
      { what: `the open page to show 450 records and a heartbeat\n${fail()}`, timeoutMs: 60_000 },
    );
    assert.deepEqual(
      later.partitions.map((x) => `${x.id}: ${x.records}`),
      [0, 1, 2].map((i) => `${orders}-${i}: 150`),
    );
    assert.equal(later.ready, 'ready');

    // Self-contained: no script, style or image from elsewhere; every request went to the process itself.
    const external = await page.evaluate<string[]>(
      `[...document.querySelectorAll('script[src], link[href], img[src]')].map((e) => e.outerHTML)
        .concat(performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !n.startsWith(location.origin)))`,
    );
    assert.deepEqual(external, []);

    child.kill('SIGTERM');
    assert.equal((await child.exited).code, 0);
  });
});
