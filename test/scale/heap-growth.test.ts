/**
 * A `mirrorflow run` process whose flows fetch 2,000 source partitions or more holds V8's heap
 * growth at twice what a collection keeps (src/cli/heap-growth.ts, issue 42's many partitions)
 * and says so, copying as before; once a changed pipeline file leaves it fewer, V8's own growth
 * is back, and said so. On clusters of its own: 4,000 partitions would weigh on the shared ones.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { stringify } from '#yaml';
import { uniqueName, waitFor } from '../support/clusters';
import { jsonLogs, numbered, type LogLine } from '../support/fault-load';
import { ownClusters } from '../support/own-clusters';
import { spawnCli, writePipeline, type ChildPipeline } from '../support/pipeline-harness';

const clusters = ownClusters(['primary', 'backup'] as const);

/** Partitions of the wide topic: at the threshold of heap-growth.ts with the narrow topic's two. */
const WIDE_PARTITIONS = 1_998;
const HELD = 'Many partitions: the heap grows to at most twice what it keeps.';
const RELEASED = "Fewer partitions: V8's own heap growth again.";

async function firstLog(child: ChildPipeline, message: string): Promise<LogLine> {
  await waitFor(() => jsonLogs(child).some((line) => line.message === message), { what: `the log line "${message}"`, timeoutMs: 90_000 });
  return jsonLogs(child).find((line) => line.message === message)!;
}

test('2,000 partitions hold the heap growth, with every record copied; a file leaving fewer lets it go', async (t) => {
  const began = Date.now();
  const phase = (what: string) => t.diagnostic(`${what} at ${((Date.now() - began) / 1000).toFixed(1)} s`);
  const source = clusters.kit('primary');
  const target = clusters.kit('backup');
  const p = uniqueName('heap-growth');
  const [wide, narrow] = [`${p}-wide`, `${p}-narrow`];
  await source.createTopic(wide, WIDE_PARTITIONS);
  await source.createTopic(narrow, 2);
  await source.produce(wide, numbered('wide', 0, 30, [0, 999, WIDE_PARTITIONS - 1]));
  await source.produce(narrow, numbered('narrow', 0, 20, [0, 1]));

  phase('topics written');
  const pipeline = await writePipeline({ clusters: clusters.bootstrapServers(), flows: [{ topics: [wide, narrow] }] });
  // V8's own growth is held only where the heap may reach 2 GiB (heap-growth.ts): as on a host of 8 GiB or more.
  const nodeOptions = `${process.env['NODE_OPTIONS'] ?? ''} --max-old-space-size=4096`.trim();
  const child = spawnCli(['run', pipeline.file, '--status-interval', '0'], { env: { NODE_OPTIONS: nodeOptions } });
  try {
    const held = await firstLog(child, HELD);
    assert.equal(held['partitions'], WIDE_PARTITIONS + 2, 'counted over both topics');
    phase('held');
    const count = (topic: string) => target.count(topic).catch(() => 0);
    await waitFor(async () => (await count(`primary.${wide}`)) >= 30 && (await count(`primary.${narrow}`)) >= 20, {
      what: 'the records of both topics on the target',
      timeoutMs: 90_000,
    });
    const [onSource, onTarget] = [await source.endOffsetsOf([wide]), await target.endOffsetsOf([`primary.${wide}`])];
    assert.deepEqual(onTarget.get(`primary.${wide}`), onSource.get(wide), 'each partition holds on the target what it holds on the source');

    phase('copied');
    const flows = pipeline.document['flows'] as Record<string, unknown>[];
    writeFileSync(pipeline.file, stringify({ ...pipeline.document, flows: [{ ...flows[0], topics: [narrow] }] }));
    const released = await firstLog(child, RELEASED);
    // The narrow topic's 2, or none while the flow is assembled again for the new file.
    assert.ok(Number(released['partitions']) <= 2, `released at ${String(released['partitions'])} partitions`);
    phase('released');
    await source.produce(narrow, numbered('narrow', 20, 20, [0, 1]));
    await waitFor(async () => (await count(`primary.${narrow}`)) >= 40, { what: `40 records in primary.${narrow}`, timeoutMs: 60_000 });
    assert.equal(jsonLogs(child).filter((line) => line.message === HELD).length, 1, 'held once, never again after the release');

    phase('narrow copied');
    child.kill('SIGTERM');
    const result = await child.exited;
    assert.equal(result.code, 0, `mirrorflow exits 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);
    phase('stopped');
  } finally {
    child.kill('SIGKILL');
  }
});
