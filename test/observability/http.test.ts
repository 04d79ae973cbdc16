/**
 * What an operator sees of a running `mirrorflow run` over HTTP: a real child process
 * replicating between the test clusters, read through its endpoints and `mirrorflow status`.
 * The numbers must be what was really replicated: record counts per partition equal what is on
 * the target, lag reaches 0, and the Connect-style offsets are what the progress topic stores.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { describe, test } from 'node:test';
import { KafkaKit, keyedRecords } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, runCli, spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';
import { mirrorflow } from '../config/cli';

const PROGRESS_TOPIC = 'mm2-offsets.primary.internal';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

async function get(base: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, text: await res.text() };
}

/** Samples of one metric as `labels → value`, labels in the order the exposition prints them. */
function samples(exposition: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of exposition.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2]!, Number(m[3]));
  }
  return out;
}

function partitionLabels(topic: string, partition: number): string {
  return `flow="primary->backup",source="primary",target="backup",topic="${topic}",partition="${partition}"`;
}

/** The newest stored progress of `topics`, as Connect's offsets answer would list it: key JSON → offset. */
async function storedProgress(topics: readonly string[]): Promise<Map<string, number>> {
  const stored = new Map<string, number>();
  for (const batch of (await target.readAll(PROGRESS_TOPIC)).values()) {
    for (const r of batch) {
      const key = r.key?.toString() ?? '';
      const [connector, partition] = JSON.parse(key) as [string, { topic?: string }];
      if (connector !== 'MirrorSourceConnector' || !topics.includes(partition.topic ?? '')) continue;
      if (r.value === null) stored.delete(JSON.stringify(partition));
      else stored.set(JSON.stringify(partition), (JSON.parse(r.value.toString()) as { offset: number }).offset);
    }
  }
  return stored;
}

describe('observability over HTTP', () => {
  test('a replicating run: /ready, /metrics, /status, connector offsets and `mirrorflow status` show what was replicated', async () => {
    const p = uniqueName('obs');
    const orders = `${p}-orders`;
    const audit = `${p}-audit`;
    await source.createTopic(orders, 3);
    await source.createTopic(audit, 1);
    await source.produce(orders, keyedRecords(300, 3));
    await source.produce(audit, keyedRecords(50, 1));

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
    const child: ChildPipeline = spawnPipeline(file, { statusIntervalMs: 500 });
    const base = await httpAddress(child);
    const fail = (): string => `mirrorflow stderr:\n${child.stderr().slice(-3000)}`;

    assert.equal((await get(base, '/healthz')).status, 200, 'alive as soon as it serves');
    await waitFor(async () => (await get(base, '/ready')).status === 200, { what: `/ready to answer 200\n${fail()}`, timeoutMs: 60_000 });

    // Metrics: every record counted once, per partition, as on the target; lag reaches 0.
    const exposition = await waitFor(
      async () => {
        const text = (await get(base, '/metrics')).text;
        const lag = samples(text, 'mirrorflow_flow_lag_records').get('flow="primary->backup",source="primary",target="backup"');
        const counted = [...samples(text, 'mirrorflow_records_replicated_total').values()].reduce((a, b) => a + b, 0);
        return lag === 0 && counted === 350 ? text : undefined;
      },
      { what: `/metrics to count 350 records with lag 0\n${fail()}`, timeoutMs: 60_000 },
    );
    const onTarget = await target.readAll(`primary.${orders}`);
    const replicated = samples(exposition, 'mirrorflow_records_replicated_total');
    for (let partition = 0; partition < 3; partition++) {
      assert.equal(replicated.get(partitionLabels(orders, partition)), onTarget.get(partition)?.length ?? 0, `records of ${orders}-${partition}`);
      assert.equal(samples(exposition, 'mirrorflow_offset_lag_records').get(partitionLabels(orders, partition)), 0);
    }
    assert.equal(replicated.get(partitionLabels(audit, 0)), await target.count(`primary.${audit}`));
    assert.equal(samples(exposition, 'mirrorflow_flow_state').get('flow="primary->backup",source="primary",target="backup",state="running"'), 1);

    // /status: positions per partition, and the flow's heartbeats.
    const status = await waitFor(
      async () => {
        const doc = JSON.parse((await get(base, '/status')).text) as {
          flows: {
            name: string;
            state: string;
            lag: number;
            partitions: { topic: string; partition: number; nextOffset: number; lag: number }[];
            heartbeats: { written: number };
          }[];
        };
        return doc.flows[0]!.heartbeats.written > 0 ? doc : undefined;
      },
      { what: 'a heartbeat in /status' },
    );
    const flow = status.flows[0]!;
    assert.equal(flow.name, 'primary->backup');
    assert.equal(flow.state, 'running');
    assert.equal(flow.lag, 0);
    assert.deepEqual(
      flow.partitions.map((x) => `${x.topic}-${x.partition}@${x.nextOffset}`),
      [`${audit}-0@50`, `${orders}-0@100`, `${orders}-1@100`, `${orders}-2@100`],
    );

    // Connect's offsets answer equals what the progress topic stores, key for key.
    const offsets = JSON.parse((await get(base, '/connectors/MirrorSourceConnector/offsets')).text) as {
      offsets: { partition: unknown; offset: { offset: number } }[];
    };
    const answered = new Map(offsets.offsets.map((o) => [JSON.stringify(o.partition), o.offset.offset]));
    assert.equal(answered.size, 4);
    await waitFor(async () => JSON.stringify([...(await storedProgress([orders, audit]))].sort()) === JSON.stringify([...answered].sort()), {
      what: `the progress topic to store ${JSON.stringify([...answered])}`,
    });

    // The CLI reads the same endpoint.
    const printed = await mirrorflow(['status', base]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^primary->backup\s+running\s+2\s+350\s+0\s/m, `flow row with 2 topics, 350 records, lag 0:\n${printed.stdout}`);
    assert.match(printed.stdout, new RegExp(`^\\s+${orders}\\s+2\\s+100\\s+100\\s+0\\s+`, 'm'), `partition row of ${orders}-2:\n${printed.stdout}`);

    // The progress log line carries checkpoint and heartbeat state too.
    await child.waitForOutput(/"heartbeatsWritten":[1-9]/);
    const progress = JSON.parse(
      child
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"heartbeatsWritten":'))
        .at(-1)!,
    ) as Record<string, unknown>;
    assert.equal(progress['heartbeats'], 'running');
    assert.match(String(progress['checkpoints']), /^(starting|loading|running)$/);

    child.kill('SIGTERM');
    const exited = await child.exited;
    assert.equal(exited.code, 0, exited.stderr.slice(-3000));
  });

  test('a port in use ends the run with a clear error before anything is replicated', async () => {
    const p = uniqueName('obs-port');
    const topic = `${p}-t`;
    await source.createTopic(topic, 1);
    await source.produce(topic, keyedRecords(5, 1));
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as { port: number }).port;
      const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });
      const result = await runCli(['run', file, '--status-interval', '0', '--http', `127.0.0.1:${port}`]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`127\\.0\\.0\\.1:${port}: the port is in use`));
      assert.deepEqual(await target.topicsContaining(p), [], 'nothing was created on the target');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
