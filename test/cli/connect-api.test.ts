/**
 * The writable side of the Connect-style REST API on a running `mirrorflow run`, as scripts
 * written for a Connect cluster drive it: the pipeline is a MirrorSourceConnector's JSON config
 * (as `PUT /connectors/{name}/config` takes it), and while a producer keeps writing, a REST PUT
 * widens the topic filter (the same change written into the file afterwards changes nothing: it
 * is the config already running), pause stops progress and resume goes on, restart stops and
 * starts the flow, DELETE stops it with its progress stored (a PUT brings it back from there) —
 * nothing lost or copied twice. With the option off, every write is refused.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { compareReplica, jsonLogs, keepProducing, numbered } from '../support/fault-load';
import { httpAddress, scratchDir, spawnCli, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

let primary: KafkaKit;
let backup: KafkaKit;
useKits(
  (c) => ({ primary: new KafkaKit(c.primary), backup: new KafkaKit(c.backup) }),
  (k) => ({ primary, backup } = k),
);

const count = (kit: KafkaKit, topic: string) => kit.count(topic).catch(() => 0);

interface Answer {
  readonly status: number;
  readonly body: string;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.text() };
}

const SOURCE = `/connectors/${encodeURIComponent('primary->backup.MirrorSourceConnector')}`;

describe('the Connect-style REST API takes writes on a running pipeline (http.connect_api: read_write)', () => {
  test('PUT config widens the filter as the file would, pause/resume, restart and DELETE: nothing lost or copied twice', async () => {
    const p = uniqueName('restw');
    const [orders, returns] = [`${p}-orders`, `${p}-returns`];
    await primary.createTopic(orders, 3);
    await primary.createTopic(returns, 2);
    await primary.produce(orders, numbered('pre', 0, 300, [0, 1, 2]));
    await primary.produce(returns, numbered('ret', 0, 200, [0, 1]));

    const clusters = await testClusters();
    const config = (topics: string): Record<string, string> => ({
      'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
      'source.cluster.alias': 'primary',
      'target.cluster.alias': 'backup',
      'source.cluster.bootstrap.servers': clusters.primary,
      'target.cluster.bootstrap.servers': clusters.backup,
      topics,
      'tasks.max': '1',
      'replication.factor': '1',
      'offset-syncs.topic.replication.factor': '1',
      'sync.topic.acls.enabled': 'false',
      'heartbeats.replication.enabled': 'false',
      'refresh.topics.interval.seconds': '1',
    });
    const file = join(scratchDir(), `${p}-source.json`);
    writeFileSync(file, JSON.stringify(config(orders), null, 2));
    const child = spawnPipeline(file, { args: ['--connect-api', 'read_write', '--log-format', 'json'] });
    const producer = keepProducing(primary, orders, [0, 1, 2], 'live');
    try {
      const base = await httpAddress(child);
      await waitFor(async () => (await count(backup, `primary.${orders}`)) >= 300, { what: `300 records in primary.${orders}`, timeoutMs: 60_000 });

      // 1. PUT …/config widens the filter: 200 (the connector exists), the new topic is replicated.
      const widened = await call(base, 'PUT', `${SOURCE}/config`, config(`${orders}, ${returns}`));
      assert.equal(widened.status, 200, widened.body);
      const info = JSON.parse(widened.body) as { name: string; config: Record<string, string>; type: string };
      assert.deepEqual([info.name, info.config['topics'], info.type], ['primary->backup.MirrorSourceConnector', `${orders}, ${returns}`, 'source']);
      await waitFor(async () => (await count(backup, `primary.${returns}`)) >= 200, { what: `200 records in primary.${returns}`, timeoutMs: 60_000 });
      const shown = JSON.parse((await call(base, 'GET', `${SOURCE}/config`)).body) as Record<string, string>;
      assert.equal(shown['topics'], `${orders}, ${returns}`, 'GET …/config shows the running config');

      // The same change made in the file is the config already running: no flow changes.
      writeFileSync(file, JSON.stringify(config(`${orders}, ${returns}`), null, 2));
      await waitFor(() => jsonLogs(child).some((l) => l.message === 'The pipeline file was read again; no flow changed.'), {
        what: 'the file reload finding nothing to change',
        timeoutMs: 30_000,
      });

      // A config that does not validate is refused with its problems, and changes nothing.
      const invalid = await call(base, 'PUT', `${SOURCE}/config`, { ...config(orders), 'replication.factor': 'many' });
      assert.equal(invalid.status, 400, invalid.body);
      assert.match(invalid.body, /Connector configuration is invalid and contains the following \d+ error\(s\).*replication\.factor/s);
      const wrongClass = await call(base, 'PUT', `${SOURCE}/config`, { ...config(orders), 'connector.class': 'MirrorHeartbeatConnector' });
      assert.equal(wrongClass.status, 400, wrongClass.body);
      assert.match(wrongClass.body, /is a MirrorSourceConnector, but its config's connector\.class is MirrorHeartbeatConnector/);

      // 2. Pause: the flow drains and replicates nothing more while the producer goes on.
      const paused = await call(base, 'PUT', `${SOURCE}/pause`);
      assert.equal(paused.status, 202, paused.body);
      const status = JSON.parse((await call(base, 'GET', `${SOURCE}/status`)).body) as { connector: { state: string } };
      assert.equal(status.connector.state, 'PAUSED');
      const atPause = await count(backup, `primary.${orders}`);
      const sourceAtPause = await count(primary, orders);
      await waitFor(async () => (await count(primary, orders)) >= sourceAtPause + 200, { what: '200 more records on the source', timeoutMs: 30_000 });
      assert.equal(await count(backup, `primary.${orders}`), atPause, 'nothing replicated while paused');

      // Resume: it goes on from where it stopped.
      const resumed = await call(base, 'PUT', `${SOURCE}/resume`);
      assert.equal(resumed.status, 202, resumed.body);
      const sourceNow = await count(primary, orders);
      await waitFor(async () => (await count(backup, `primary.${orders}`)) >= sourceNow, { what: 'replication caught up after resume', timeoutMs: 60_000 });

      // 3. Restart: the flow stops (drained, progress stored) and starts again.
      const stops = (): number => jsonLogs(child).filter((l) => l.message === 'Replication stopped.').length;
      const stoppedBefore = stops();
      const restarted = await call(base, 'POST', `${SOURCE}/restart`);
      assert.equal(restarted.status, 204, restarted.body);
      await waitFor(() => stops() === stoppedBefore + 1, { what: 'the flow to log its stop', timeoutMs: 30_000 });

      // 4. DELETE: the flow stops with its progress stored; a PUT of the config brings it back
      // (201: a new connector), replicating from that progress what came meanwhile.
      const deleted = await call(base, 'DELETE', SOURCE);
      assert.equal(deleted.status, 204, deleted.body);
      assert.deepEqual(JSON.parse((await call(base, 'GET', '/connectors')).body), []);
      assert.equal((await call(base, 'GET', `${SOURCE}/status`)).status, 404);
      const atDelete = await count(backup, `primary.${orders}`);
      const sourceAtDelete = await count(primary, orders);
      await waitFor(async () => (await count(primary, orders)) >= sourceAtDelete + 200, { what: '200 more records on the source', timeoutMs: 30_000 });
      assert.equal(await count(backup, `primary.${orders}`), atDelete, 'nothing replicated once deleted');
      const created = await call(base, 'PUT', `${SOURCE}/config`, config(`${orders}, ${returns}`));
      assert.equal(created.status, 201, created.body);

      const total = 300 + (await producer.stop());
      await waitFor(async () => (await count(backup, `primary.${orders}`)) >= total, { what: `all ${total} records in primary.${orders}`, timeoutMs: 60_000 });
      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);

      for (const topic of [orders, returns]) {
        for (const c of await compareReplica(primary, topic, backup, `primary.${topic}`)) {
          assert.deepEqual(c.missing.slice(0, 10), [], `primary.${topic} partition ${c.partition}: ${c.missing.length} records missing`);
          assert.equal(c.orderBreak, -1, c.detail);
          assert.equal(c.duplicates, 0, `primary.${topic} partition ${c.partition}: ${c.duplicates} records copied twice`);
        }
      }
      assert.equal(jsonLogs(child).filter((l) => l.message === 'Serving metrics, health and status over HTTP.').length, 1, 'one process all along');
    } finally {
      await producer.stop().catch(() => undefined);
      child.kill('SIGKILL');
    }
  });

  test('off by default: every write is answered 405 naming the option, and replication goes on', async () => {
    const p = uniqueName('resto');
    const topic = `${p}-orders`;
    await primary.createTopic(topic, 1);
    await primary.produce(topic, numbered('o', 0, 50, [0]));
    const pipeline = await writePipeline({ flows: [{ topics: [topic] }] });
    const child = spawnCli(['run', pipeline.file, '--status-interval', '0']);
    try {
      const base = await httpAddress(child);
      await waitFor(async () => (await count(backup, `primary.${topic}`)) >= 50, { what: `50 records in primary.${topic}`, timeoutMs: 60_000 });
      for (const [method, path] of [
        ['PUT', `${SOURCE}/config`],
        ['PUT', `${SOURCE}/pause`],
        ['PUT', `${SOURCE}/resume`],
        ['DELETE', SOURCE],
        ['POST', `${SOURCE}/restart`],
      ] as const) {
        const res = await call(base, method, path, method === 'PUT' ? {} : undefined);
        assert.equal(res.status, 405, `${method} ${path}: ${res.body}`);
        assert.match(res.body, /http\.connect_api: read_write/);
      }
      await primary.produce(topic, numbered('o', 50, 50, [0]));
      await waitFor(async () => (await count(backup, `primary.${topic}`)) >= 100, { what: 'replication going on', timeoutMs: 60_000 });
      const status = JSON.parse((await call(base, 'GET', `${SOURCE}/status`)).body) as { connector: { state: string } };
      assert.equal(status.connector.state, 'RUNNING');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
