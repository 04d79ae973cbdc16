/**
 * `mirrorflow verify` holds a bounded window, never a partition (issue 38: a partition of
 * millions of records in at most 256 MiB): 2,000,000 records in one partition, written by Kafka's
 * Java producer and replicated, verify with exit 0 while the process's resident memory stays
 * under 256 MiB at its peak (getrusage's high-water mark, read as the process exits).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { uniqueName, type TestClusters } from '../support/clusters';
import { MIRRORFLOW_MAIN, caughtUp, startPipeline, writePipeline } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import type { KafkaKit } from '../support/kafka-kit';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';

const RECORDS = 2_000_000;
const LIMIT_KIB = 256 * 1024;

let clusters: TestClusters;
let source: KafkaKit;
let java: JavaTools;

sharedClusterKits('mirrorflow-verify-memory-', (kits) => ({ clusters, primary: source } = kits));

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
});

test(`a partition of ${RECORDS} records verifies in less than 256 MiB`, async () => {
  const p = uniqueName('verify-memory');
  const topic = `${p}-orders`;
  await source.createTopic(topic, 1);
  await java.produce({ bootstrap: clusters.primary, topic, partitions: 1, records: RECORDS, keyBytes: 16, valueBytes: 100, headers: 1, timeoutMs: 300_000 });
  const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
  const run = await startPipeline(file);
  await run.running();
  await run.until(() => caughtUp(run, source, [topic]), { what: `${RECORDS} records copied`, timeoutMs: 400_000, intervalMs: 1000 });
  await run.stop();

  const child = spawn(process.execPath, ['-r', join(__dirname, 'max-rss.js'), MIRRORFLOW_MAIN, 'verify', file, '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as { totals: { matched: number; missing: number } };
  assert.equal(report.totals.matched, RECORDS);
  const maxRss = Number(/max-rss-kib=(\d+)/.exec(stderr)?.[1]);
  assert.ok(maxRss > 0 && maxRss < LIMIT_KIB, `peak resident memory ${Math.round(maxRss / 1024)} MiB`);
});
