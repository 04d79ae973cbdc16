/**
 * Continuous verification in `mirrorflow run` (`verify.enabled`, issue 38) on real brokers, the
 * source written by Kafka's Java producer: a running pipeline's target is damaged on purpose while
 * it runs — copies deleted, copies written twice, records of another writer — and the next pass
 * finds each kind, partition by partition, on `/status`, `/metrics`, `mirrorflow status` and the
 * status page (read in headless Chromium); later records are verified clean as replication goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startBrowser, type HeadlessBrowser } from '../support/headless-browser';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { httpAddress, runCli, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import type { StatusDocument } from '../../src/telemetry/status-document';

let clusters: TestClusters;
let source: KafkaKit;
let target: KafkaKit;
let java: JavaTools;

sharedClusterKits('mirrorflow-continuous-verify-', (kits) => ({ clusters, primary: source, backup: target } = kits));

let browser: HeadlessBrowser | undefined;
after(async () => browser?.close());

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
});

/** `records` records written by the Java producer, record i to partition i % partitions. */
async function produce(topic: string, partitions: number, records: number): Promise<void> {
  await java.produce({ bootstrap: clusters.primary, topic, partitions, records, keyBytes: 16, valueBytes: 120, headers: 2, timeoutMs: 180_000 });
}

async function status(base: string): Promise<StatusDocument> {
  const res = await fetch(`${base}/status`);
  return (await res.json()) as StatusDocument;
}

/** Samples of one metric as `labels → value`. */
function samples(exposition: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of exposition.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2]!, Number(m[3]));
  }
  return out;
}

const FLOW_LABELS = 'flow="primary->backup",source="primary",target="backup"';

describe('continuous verification', () => {
  test('a target damaged while the flow runs: the next pass finds the missing, duplicated and foreign records on /status, /metrics and `mirrorflow status`', async () => {
    const topic = `${uniqueName('cverify')}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 3);
    await produce(topic, 3, 3_000);

    // The first pass comes 40 s after the start: the copy is made and damaged before it.
    const { file } = await writePipeline({ flows: [{ topics: [topic], verify: { enabled: true, interval_ms: 40_000, records_per_interval: 100_000 } }] });
    const run = spawnPipeline(file);
    const base = await httpAddress(run);
    await waitFor(async () => (await target.count(remote).catch(() => 0)) === 3_000, { what: `${remote} holding 3,000 copies`, timeoutMs: 60_000 });
    const before = (await status(base)).flows[0]!.verify;
    assert.equal(before?.passes, 0, 'the copy is damaged before the first pass');

    // Partition 0 loses its first 100 copies; partition 1 gets 100 copies written again; partition 2, 7 records of no source.
    await target.deleteRecords(remote, 0, 100);
    const copies = (await target.readAll(remote)).get(1)!.slice(500, 600);
    await target.produce(
      remote,
      copies.map((r): TestRecord => ({ partition: 1, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
    );
    await target.produce(
      remote,
      Array.from({ length: 7 }, (_, i): TestRecord => ({
        partition: 2,
        key: Buffer.from(`foreign-${i}`),
        value: Buffer.from('not from the source'),
        headers: [],
        timestamp: Date.now(),
      })),
    );

    const found = await waitFor(
      async () => {
        const v = (await status(base)).flows[0]!.verify;
        return v !== null && v.passes > 0 && v.partitionsVerified === 3 ? v : undefined;
      },
      { what: 'a verification pass over the three partitions', timeoutMs: 120_000 },
    );
    assert.equal(found.state, 'running');
    assert.deepEqual(
      {
        records: found.records,
        missing: found.missing,
        duplicates: found.duplicates,
        unexpected: found.unexpected,
        skipped: found.skipped,
        errors: found.errors,
      },
      { records: 3_000, missing: 100, duplicates: 100, unexpected: 7, skipped: 0, errors: 0 },
    );
    assert.deepEqual(
      found.findings.map((f) => [f.topic, f.partition, f.remoteTopic, f.missing, f.duplicates, f.unexpected, f.fromOffset, f.toOffset, f.firstMissingOffset]),
      [
        [topic, 0, remote, 100, 0, 0, 0, 1_000, 0],
        [topic, 1, remote, 0, 100, 0, 0, 1_000, null],
        [topic, 2, remote, 0, 0, 7, 0, 1_000, null],
      ],
    );
    assert.equal(found.findings[1]!.firstDuplicateTargetOffset, 1_000);
    assert.equal(found.findings[2]!.firstUnexpectedTargetOffset, 1_000);

    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.equal(samples(metrics, 'mirrorflow_verify_records_total').get(FLOW_LABELS), 3_000);
    assert.equal(samples(metrics, 'mirrorflow_verify_missing_records_total').get(FLOW_LABELS), 100);
    assert.equal(samples(metrics, 'mirrorflow_verify_duplicate_records_total').get(FLOW_LABELS), 100);
    assert.equal(samples(metrics, 'mirrorflow_verify_unexpected_records_total').get(FLOW_LABELS), 7);
    assert.equal(samples(metrics, 'mirrorflow_verify_state').get(`${FLOW_LABELS},state="running"`), 1);

    const printed = await runCli(['status', base]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /verify running: 3000 records compared in 3 partitions, 100 missing, 100 duplicates, 7 unexpected/);
    assert.match(printed.stdout, new RegExp(`verify found in ${topic}-0: 100 missing \\(first at source offset 0\\); last in source offsets 0-999`));
    assert.match(printed.stdout, new RegExp(`verify found in ${topic}-2: 7 unexpected \\(first at ${remote} offset 1000\\)`));
    assert.match(run.stderr() + run.stdout(), /Verification found records missing, duplicated or unexpected on the target/);

    browser = await startBrowser();
    const page = await browser.open(`${base}/?interval=250`);
    const shown = await waitFor(
      () =>
        page.evaluate<{ verify: string; findings: string[] } | null>(`(() => {
          const s = document.querySelector('section[data-flow="primary->backup"]');
          const row = s && s.querySelector('[data-row=verify] [data-field=count]');
          if (!row) return null;
          return {
            verify: row.textContent,
            findings: [...s.querySelectorAll('[data-row=verify-finding]')].map((r) =>
              [r.getAttribute('data-partition'), ...['missing', 'duplicates', 'unexpected', 'window'].map((f) => r.querySelector('[data-field=' + f + ']').textContent)].join(' ')),
          };
        })()`),
      { what: 'the status page to show the verify row', timeoutMs: 30_000 },
    );
    assert.equal(shown.verify, '3000 compared, 100 missing, 100 duplicates, 7 unexpected, 0 skipped');
    assert.deepEqual(shown.findings, [`${topic}-0 100 0 0 0-999`, `${topic}-1 0 100 0 0-999`, `${topic}-2 0 0 7 0-999`]);

    // Replication goes on; the next windows start where the last ones ended, and what is copied now is clean.
    await produce(topic, 3, 300);
    const later = await waitFor(
      async () => {
        const v = (await status(base)).flows[0]!.verify;
        return v !== null && v.records === 3_300 ? v : undefined;
      },
      { what: 'the 300 new records verified', timeoutMs: 120_000 },
    );
    assert.deepEqual([later.missing, later.duplicates, later.unexpected], [100, 100, 7]);

    run.kill('SIGTERM');
    assert.equal((await run.exited).code, 0);
  });
});
