/**
 * `/ready` of a real `mirrorflow run` follows the target: when its broker stops, the answer
 * turns 503 with a JSON reason naming the flow and the cluster (after the outage threshold, so
 * a leader moving does not page anyone); when the broker is back, it turns 200 again and the
 * records written meanwhile arrive. Meanwhile the lag shows in records and as time, and the
 * failures count among the errors by kind and cluster; once caught up, the lag in time is 0. The test stops a broker, so it runs on clusters of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { httpAddress, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { distinctCount, keepProducing, withBrokerBack } from '../faults/outage-support';

const clusters = ownClusters(['src', 'dst']);

interface ReadyAnswer {
  readonly status: number;
  readonly body: { ready: boolean; flows: { flow: string; ready: boolean; reasons: string[] }[] };
}

/** The flow's sample of a per-flow metric; NaN when absent. */
function flowSample(exposition: string, name: string): number {
  const m = new RegExp(`^${name}\\{flow="src->dst"[^}]*\\} (\\S+)$`, 'm').exec(exposition);
  return m === null ? Number.NaN : Number(m[1]);
}

async function ready(base: string): Promise<ReadyAnswer> {
  const res = await fetch(`${base}/ready`);
  return { status: res.status, body: (await res.json()) as ReadyAnswer['body'] };
}

test('/ready: 503 naming the flow and the cluster while the target broker is down, 200 again once it is back', async () => {
  const src = clusters.kit('src');
  const dst = clusters.kit('dst');
  const topic = uniqueName('ready');
  await src.createTopic(topic, 2);
  const { file } = await writePipeline({ clusters: clusters.bootstrapServers(), flows: [{ source: 'src', target: 'dst', topics: [topic] }] });
  const run = spawnPipeline(file);
  const base = await httpAddress(run);
  const fail = (): string => `mirrorflow stderr:\n${run.stderr().slice(-3000)}`;
  await waitFor(async () => (await ready(base)).status === 200, { what: `/ready 200 at start\n${fail()}`, timeoutMs: 60_000 });

  const producer = keepProducing(src, topic, 2, 'ready');
  await waitFor(async () => (await distinctCount(dst, `src.${topic}`).catch(() => 0)) > 0, { what: 'records on the target', timeoutMs: 60_000 });

  const down = await withBrokerBack(clusters.broker('dst'), async () => {
    await clusters.broker('dst').halt();
    const answer = await waitFor(
      async () => {
        const r = await ready(base);
        return r.status === 503 ? r : undefined;
      },
      { what: `/ready to answer 503 with dst down\n${fail()}`, timeoutMs: 90_000 },
    );
    assert.equal((await fetch(`${base}/healthz`)).status, 200, 'alive all along');
    // The producer keeps writing: records wait on the source, and the lag in time says for how long.
    await waitFor(
      async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return flowSample(text, 'mirrorflow_flow_lag_records') > 0 && flowSample(text, 'mirrorflow_flow_lag_ms') > 0;
      },
      { what: `a lag in records and in time while dst is down\n${fail()}`, timeoutMs: 60_000 },
    );
    return answer;
  });
  assert.equal(down.body.ready, false);
  const flow = down.body.flows.find((f) => f.flow === 'src->dst');
  assert.ok(flow !== undefined && !flow.ready, JSON.stringify(down.body));
  assert.ok(
    flow.reasons.some((r) => / on dst has been failing for \d+ s/.test(r)),
    `a reason names the cluster that fails: ${JSON.stringify(flow.reasons)}`,
  );

  await waitFor(async () => (await ready(base)).status === 200, { what: `/ready 200 again with dst back\n${fail()}`, timeoutMs: 120_000 });
  // /ready tolerates failures younger than its threshold; the outage series goes once every operation works again.
  const metrics = await waitFor(
    async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return /^mirrorflow_outage_seconds\{/m.test(text) ? undefined : text;
    },
    { what: `the outage series of dst to go\n${fail()}`, timeoutMs: 90_000 },
  );
  const retried = /^mirrorflow_retries_total\{[^}]*cluster="dst",operation="writing records"\} (\d+)$/m.exec(metrics);
  assert.ok(
    retried !== null && Number(retried[1]) > 0,
    `the failed writes to dst are counted:\n${metrics
      .split('\n')
      .filter((l) => l.startsWith('mirrorflow_retries_total'))
      .join('\n')}`,
  );
  const errors = /^mirrorflow_errors_total\{[^}]*kind="transport-retriable",cluster="dst"\} (\d+)$/m.exec(metrics);
  assert.ok(errors !== null && Number(errors[1]) > 0, 'the failures against dst are counted as errors of their kind and cluster');
  const written = await producer.stop();
  await waitFor(async () => (await distinctCount(dst, `src.${topic}`)) === written, { what: `all ${written} records on the target`, timeoutMs: 90_000 });
  await waitFor(async () => flowSample(await (await fetch(`${base}/metrics`)).text(), 'mirrorflow_flow_lag_ms') === 0, {
    what: `no lag in time once caught up\n${fail()}`,
  });
  run.kill('SIGTERM');
  assert.equal((await run.exited).code, 0);
});
