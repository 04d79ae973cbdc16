/**
 * A cluster that cannot be reached when `mirrorflow run` starts (under Kubernetes, the replicator
 * often starts first): the process waits, says so in its log and answers /ready with 503 naming
 * the cluster, and replicates once the cluster is up, as MM2 does; `--startup-timeout` makes it
 * give up (exit 69) instead. A SIGTERM while it waits ends it cleanly. Halts a broker, so it runs
 * on clusters of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { httpAddress, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { numbered, withBrokerBack } from './outage-support';

const clusters = ownClusters(['src', 'dst']);

async function pipelineFile(topic: string): Promise<string> {
  const { file } = await writePipeline({
    clusters: clusters.bootstrapServers(),
    flows: [{ source: 'src', target: 'dst', topics: [topic], checkpoints: { enabled: false } }],
  });
  return file;
}

test('a target down at start is waited for: not ready meanwhile, then every record replicated', async () => {
  const src = clusters.kit('src');
  const dst = clusters.kit('dst');
  const topic = uniqueName('down-at-start');
  await src.createTopic(topic, 2);
  await src.produce(topic, numbered('early', 0, 1000, 2));
  const file = await pipelineFile(topic);
  await withBrokerBack(clusters.broker('dst'), async () => {
    await clusters.broker('dst').halt();
    const child = spawnPipeline(file, { args: ['--log-format', 'json'] });
    const address = await httpAddress(child, 60_000);
    // A JSON line, keys sorted: the cluster, then the message, then the operation.
    await child.waitForOutput(
      /"cluster":"dst".*"message":"A cluster keeps failing an operation; retrying until it works again\.","operation":"connecting at start"/,
      60_000,
    );
    await waitFor(
      async () => {
        const ready = await fetch(`${address}/ready`);
        const body = (await ready.json()) as { flows: { reasons: string[] }[] };
        return ready.status === 503 && body.flows[0]!.reasons.some((r) => /connecting at start on dst has been failing for \d+ s/.test(r));
      },
      { what: '/ready to answer 503 naming the cluster it waits for', timeoutMs: 60_000 },
    );
    assert.equal(child.child.exitCode, null, 'the process waits; it does not exit');

    await clusters.broker('dst').start();
    await waitFor(async () => (await dst.count(`src.${topic}`).catch(() => 0)) >= 1000, { what: 'every record on the target', timeoutMs: 90_000 });
    await waitFor(async () => (await fetch(`${address}/ready`)).status === 200, { what: '/ready to answer 200', timeoutMs: 60_000 });
    assert.match(child.stderr(), /A cluster works again after an outage\./);
    child.kill('SIGTERM');
    assert.equal((await child.exited).code, 0);
  });
});

test('with --startup-timeout, a cluster down at start ends the run with exit 69 once it passed; a SIGTERM while waiting exits 0', async () => {
  const topic = uniqueName('down-timeout');
  await clusters.kit('src').createTopic(topic, 1);
  const file = await pipelineFile(topic);
  await withBrokerBack(clusters.broker('dst'), async () => {
    await clusters.broker('dst').halt();
    const bounded = spawnPipeline(file, { args: ['--startup-timeout', '3000'] });
    const result = await bounded.exited;
    assert.equal(result.code, 69, result.stderr);
    assert.match(result.stderr, /Cluster "dst": cannot be reached \(.*\); gave up after \d+ s \(--startup-timeout\)/);

    const waiting = spawnPipeline(file);
    await waiting.waitForOutput(/connecting at start/, 60_000);
    waiting.kill('SIGTERM');
    const stopped = await waiting.exited;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, /Stopping before replication started\./);
    assert.doesNotMatch(stopped.stderr, /A cluster works again after an outage/, 'a wait given up is no recovery');
  });
});
