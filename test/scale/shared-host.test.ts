/**
 * Several `mirrorflow run` processes of one MM2 file on one host, as MM2 users scale out: with
 * the default HTTP address, which only one of them can hold, every process runs and serves on a
 * port of its own, says which in its log and `/status`, and `mirrorflow status` without a URL
 * lists them all. An address the user chose that is in use still ends the run.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { httpAddress, runCli, scratchDir, spawnCli, writePipelineText, type ChildPipeline } from '../support/pipeline-harness';
import { exited, numbered } from '../support/fault-load';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

/** Holds 127.0.0.1:9464 as another program would; if something already holds it, so much the better. */
async function holdDefaultPort(): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(9464, '127.0.0.1', () => resolve(server));
  });
}

describe('processes sharing a host', () => {
  test('three processes from one MM2 file with the default HTTP address all run, each on its own port, and status finds them', async () => {
    const clusters = await testClusters();
    const s = uniqueName('src');
    const t = uniqueName('tgt');
    const topic = uniqueName('host');
    await source.createTopic(topic, 6);
    const file = writePipelineText(
      [
        `clusters = ${s}, ${t}`,
        `${s}.bootstrap.servers = ${clusters.primary}`,
        `${t}.bootstrap.servers = ${clusters.backup}`,
        `${s}->${t}.enabled = true`,
        `${s}->${t}.topics = ${topic}`,
        `${t}->${s}.emit.heartbeats.enabled = false`,
        'replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        'offset.storage.replication.factor = 1',
        '',
      ].join('\n'),
      'mm2.properties',
    );
    const runtimeDir = scratchDir('mirrorflow-runtime-');
    const env = { MIRRORFLOW_RUNTIME_DIR: runtimeDir };
    const held = await holdDefaultPort();
    const children: ChildPipeline[] = [];
    try {
      for (let i = 0; i < 3; i++) children.push(spawnCli(['run', file, '--status-interval', '0', '--log-format', 'json'], { env, defaultHttp: true }));
      const addresses = await Promise.all(children.map((child) => httpAddress(child, 90_000)));
      assert.equal(new Set(addresses).size, 3, `each process serves on its own port: ${addresses.join(', ')}`);
      assert.ok(!addresses.includes('http://127.0.0.1:9464'), 'the port held by another program is not used');
      for (const child of children) assert.match(child.stderr(), /The default HTTP port is in use/);

      await source.produce(topic, numbered('host', 0, 600, [0, 1, 2, 3, 4, 5]));
      await waitFor(async () => (await target.count(`${s}.${topic}`).catch(() => 0)) >= 600, { what: 'every record on the target', timeoutMs: 90_000 });
      assert.ok(
        children.every((child) => !exited(child)),
        'no process ended',
      );

      for (const [i, child] of children.entries()) {
        const status = (await (await fetch(`${addresses[i]}/status`)).json()) as { worker: string; pid: number };
        assert.equal(`http://${status.worker}`, addresses[i]);
        assert.equal(status.pid, child.pid);
      }
      const listed = spawnCli(['status', '--json'], { env });
      const result = await listed.exited;
      assert.equal(result.code, 0, result.stderr);
      const { processes } = JSON.parse(result.stdout) as { processes: { pid: number; url: string; status: { pipeline: string } }[] };
      assert.deepEqual(processes.map((p) => p.pid).sort(), children.map((c) => c.pid).sort());
      assert.deepEqual(processes.map((p) => p.url).sort(), addresses.map((a) => `${a}/status`).sort());

      // A port the user chose is used as given: taken, the run ends before it contacts a cluster.
      const taken = new URL(addresses[0]!).port;
      const chosen = await runCli(['run', file, '--http', `127.0.0.1:${taken}`]);
      assert.equal(chosen.code, 1);
      assert.match(chosen.stderr, new RegExp(`Cannot serve HTTP on 127\\.0\\.0\\.1:${taken}: the port is in use`));
    } finally {
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(children.map((child) => child.exited));
      await new Promise<void>((resolve) => (held === undefined ? resolve() : held.close(() => resolve())));
    }
    // Each process removed its file when it stopped.
    assert.deepEqual(readdirSync(runtimeDir), []);
  });
});
