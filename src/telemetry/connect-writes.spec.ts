import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../core/ports/logger';
import type { ConnectorRef } from './connect-api';
import { ConnectRestError, type ConnectorWrites } from './connect-writes';
import type { FlowSnapshot } from './flow-snapshot';
import { HttpServer } from './http-server';
import { httpRoutes } from './http-routes';
import { Metrics } from './metrics';

/** A running flow as the pipeline reports it; only what the connector routes read matters here. */
function flow(source: string, target: string, overrides: Partial<FlowSnapshot> = {}): FlowSnapshot {
  return {
    source,
    target,
    replicating: true,
    state: 'running',
    topics: 1,
    partitionsAssigned: 1,
    elected: true,
    recordsReplicated: 0,
    recordsDropped: 0,
    bytesReplicated: 0,
    recordBatchesForwarded: 0,
    recordsReencoded: 0,
    topicsCreated: 0,
    writes: 0,
    lastReplicationLatencyMs: undefined,
    lastRecordAgeMs: undefined,
    transformCounters: [],
    failure: undefined,
    partitions: [],
    buffer: undefined,
    checkpoints: {
      state: 'running',
      groups: 0,
      checkpointsWritten: 0,
      lastPassAt: undefined,
      lastCheckpointLatencyMs: undefined,
      errors: 0,
      translationLag: [],
      groupSync: { enabled: false, groupsSynced: 0, offsetsCommitted: 0, skippedActive: 0, activeGroups: [], errors: 0 },
    },
    heartbeats: { state: 'running', written: 0, lastAt: undefined, errors: 0 },
    acls: { state: 'disabled', created: 0, skipped: {}, errors: 0, lastPassAt: undefined },
    sourceResets: 0,
    recordsExpired: 0,
    recordsDeadLettered: 0,
    outages: [],
    retries: [],
    errors: [],
    ...overrides,
  } as FlowSnapshot;
}

/** A `ConnectorWrites` that records what it is asked and answers as the test sets it up. */
class FakeWrites implements ConnectorWrites {
  applying = false;
  flows: FlowSnapshot[] = [flow('primary', 'backup')];
  paused: ConnectorRef[] = [];
  readonly calls: string[] = [];
  readonly configs = new Map<string, Record<string, string>>();
  refusal: ConnectRestError | undefined;
  readonly config = (c: ConnectorRef): Record<string, string> | undefined => this.configs.get(c.name);

  putConfig(name: string, config: Readonly<Record<string, string>>): Promise<{ created: boolean; connector: ConnectorRef }> {
    this.calls.push(`put ${name}`);
    if (this.refusal) return Promise.reject(this.refusal);
    const source = config['source.cluster.alias']!;
    const target = config['target.cluster.alias']!;
    const ref: ConnectorRef = { name: `${source}->${target}.MirrorSourceConnector`, type: 'MirrorSourceConnector', source, target };
    const created = !this.flows.some((f) => f.source === source && f.target === target);
    if (created) this.flows.push(flow(source, target));
    this.configs.set(ref.name, { ...config });
    return Promise.resolve({ created, connector: ref });
  }
  pause(c: ConnectorRef): Promise<void> {
    this.calls.push(`pause ${c.name}`);
    this.paused.push(c);
    return Promise.resolve();
  }
  resume(c: ConnectorRef): Promise<void> {
    this.calls.push(`resume ${c.name}`);
    this.paused = this.paused.filter((p) => p.name !== c.name);
    return Promise.resolve();
  }
  delete(c: ConnectorRef): Promise<void> {
    this.calls.push(`delete ${c.name}`);
    return Promise.resolve();
  }
  restart(c: ConnectorRef): Promise<void> {
    this.calls.push(`restart ${c.name}`);
    return Promise.resolve();
  }
}

interface Answer {
  readonly status: number;
  readonly text: string;
  json(): unknown;
}

async function serve(
  writes: FakeWrites,
  mode: 'read_only' | 'read_write',
  run: (call: (method: string, path: string, body?: unknown) => Promise<Answer>) => Promise<void>,
): Promise<void> {
  const snapshots = (): readonly FlowSnapshot[] => writes.flows;
  const routes = httpRoutes({
    pipeline: 'p1',
    snapshots,
    metrics: new Metrics(snapshots),
    workerId: () => 'host:1',
    connectors: { view: () => writes, writes: mode === 'read_write' ? writes : undefined },
  });
  const server = new HttpServer(routes, silentLogger);
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  try {
    await run(async (method, path, body) => {
      const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const res = await fetch(`http://127.0.0.1:${port}${path}`, init);
      const text = await res.text();
      return { status: res.status, text, json: () => JSON.parse(text) as unknown };
    });
  } finally {
    await server.close();
  }
}

const SOURCE = encodeURIComponent('primary->backup.MirrorSourceConnector');
const sourceConfig = {
  'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
  'source.cluster.alias': 'primary',
  'target.cluster.alias': 'backup',
  topics: 'orders.*',
};

test('read_only (the default): every write route answers 405 naming the option, changes nothing, and the reads still answer', async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_only', async (call) => {
    for (const [method, path] of [
      ['PUT', `/connectors/${SOURCE}/config`],
      ['PUT', `/connectors/${SOURCE}/pause`],
      ['PUT', `/connectors/${SOURCE}/resume`],
      ['DELETE', `/connectors/${SOURCE}`],
      ['POST', `/connectors/${SOURCE}/restart`],
    ] as const) {
      const res = await call(method, path, method === 'PUT' ? sourceConfig : undefined);
      assert.equal(res.status, 405, `${method} ${path}`);
      const body = res.json() as { error_code: number; message: string };
      assert.equal(body.error_code, 405);
      assert.match(body.message, /http\.connect_api: read_write/);
      assert.match(body.message, /--connect-api read_write/);
    }
    assert.deepEqual(writes.calls, []);
    assert.equal((await call('GET', `/connectors/${SOURCE}`)).status, 200);
    assert.equal((await call('GET', `/connectors/${SOURCE}/config`)).status, 200);
  });
});

test("PUT /connectors/{name}/config: 201 with Connect's ConnectorInfo for a new connector, 200 for a changed one; secrets masked", async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_write', async (call) => {
    const updated = await call('PUT', `/connectors/${SOURCE}/config`, { ...sourceConfig, 'source.cluster.sasl.jaas.config': 'x password="hunter22";' });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.json(), {
      name: 'primary->backup.MirrorSourceConnector',
      config: { ...sourceConfig, 'source.cluster.sasl.jaas.config': '[redacted]', name: 'primary->backup.MirrorSourceConnector' },
      tasks: [{ connector: 'primary->backup.MirrorSourceConnector', task: 0 }],
      type: 'source',
    });
    assert.doesNotMatch(updated.text, /hunter22/);
    assert.deepEqual(
      writes.configs.get('primary->backup.MirrorSourceConnector')?.['name'],
      'primary->backup.MirrorSourceConnector',
      'the name from the URL is put into the config',
    );

    const name = encodeURIComponent('backup->primary.MirrorSourceConnector');
    const created = await call('PUT', `/connectors/${name}/config`, { ...sourceConfig, 'source.cluster.alias': 'backup', 'target.cluster.alias': 'primary' });
    assert.equal(created.status, 201);
    assert.equal((created.json() as { name: string }).name, 'backup->primary.MirrorSourceConnector');
    assert.deepEqual(((await call('GET', '/connectors')).json() as string[]).filter((n) => n.endsWith('MirrorSourceConnector')).sort(), [
      'backup->primary.MirrorSourceConnector',
      'primary->backup.MirrorSourceConnector',
    ]);
    const config = (await call('GET', `/connectors/${SOURCE}/config`)).json() as Record<string, string>;
    assert.equal(config['topics'], 'orders.*', 'GET …/config shows the running config');
    assert.equal(config['source.cluster.sasl.jaas.config'], '[redacted]');
  });
});

test("PUT /connectors/{name}/config refuses, with Connect's 400 body, a name that differs from the URL, a body that is not a config, and what the pipeline refuses", async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_write', async (call) => {
    const mismatch = await call('PUT', `/connectors/${SOURCE}/config`, { ...sourceConfig, name: 'other' });
    assert.equal(mismatch.status, 400);
    assert.deepEqual(mismatch.json(), {
      error_code: 400,
      message: "Connector name configuration (other) doesn't match connector name in the URL (primary->backup.MirrorSourceConnector)",
    });
    assert.equal((await call('PUT', `/connectors/${SOURCE}/config`, '{"topics": ')).status, 400);
    const list = await call('PUT', `/connectors/${SOURCE}/config`, ['topics']);
    assert.equal(list.status, 400);
    assert.match((list.json() as { message: string }).message, /JSON object of connector settings/);
    const nested = await call('PUT', `/connectors/${SOURCE}/config`, { ...sourceConfig, topics: ['a'] });
    assert.match((nested.json() as { message: string }).message, /these do not: topics/);
    assert.deepEqual(writes.calls, [], 'nothing reached the pipeline');

    writes.refusal = new ConnectRestError(
      400,
      'Connector configuration is invalid and contains the following 2 error(s):\nx: bad\ny: password=sekrit99 differs',
    );
    const refused = await call('PUT', `/connectors/${SOURCE}/config`, sourceConfig);
    assert.equal(refused.status, 400);
    const message = (refused.json() as { message: string }).message;
    assert.match(message, /2 error\(s\):\nx: bad\ny: /);
    assert.doesNotMatch(message, /sekrit99/, 'a quoted secret is masked');
  });
});

test('pause and resume answer 202 and status shows PAUSED; DELETE answers 204; an unknown connector is 404', async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_write', async (call) => {
    const paused = await call('PUT', `/connectors/${SOURCE}/pause`);
    assert.deepEqual([paused.status, paused.text], [202, '']);
    const status = (await call('GET', `/connectors/${SOURCE}/status`)).json() as { connector: { state: string }; tasks: { state: string }[] };
    assert.deepEqual([status.connector.state, status.tasks.map((t) => t.state)], ['PAUSED', ['PAUSED']]);
    assert.equal((await call('PUT', '/connectors/MirrorSourceConnector/resume')).status, 202, 'the bare class name finds the only flow that has one');
    const running = (await call('GET', `/connectors/${SOURCE}/status`)).json() as { connector: { state: string } };
    assert.equal(running.connector.state, 'RUNNING');
    const deleted = await call('DELETE', `/connectors/${encodeURIComponent('primary->backup.MirrorCheckpointConnector')}`);
    assert.deepEqual([deleted.status, deleted.text], [204, '']);
    assert.deepEqual(writes.calls, [
      'pause primary->backup.MirrorSourceConnector',
      'resume primary->backup.MirrorSourceConnector',
      'delete primary->backup.MirrorCheckpointConnector',
    ]);
    for (const [method, path] of [
      ['PUT', '/connectors/nope/pause'],
      ['PUT', '/connectors/nope/resume'],
      ['DELETE', '/connectors/nope'],
      ['POST', '/connectors/nope/restart'],
    ] as const) {
      const res = await call(method, path);
      assert.deepEqual([res.status, res.json()], [404, { error_code: 404, message: 'Connector nope not found' }], `${method} ${path}`);
    }
    assert.equal(writes.calls.length, 3);
  });
});

test('POST …/restart: 204 for the connector alone; 202 with the planned RESTARTING states with includeTasks; onlyFailed restarts nothing that runs', async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_write', async (call) => {
    const alone = await call('POST', `/connectors/${SOURCE}/restart`);
    assert.deepEqual([alone.status, alone.text], [204, '']);
    const withTasks = await call('POST', `/connectors/${SOURCE}/restart?includeTasks=true`);
    assert.equal(withTasks.status, 202);
    assert.deepEqual(withTasks.json(), {
      name: 'primary->backup.MirrorSourceConnector',
      connector: { state: 'RESTARTING', worker_id: 'host:1' },
      tasks: [{ id: 0, state: 'RESTARTING', worker_id: 'host:1' }],
      type: 'source',
    });
    const onlyFailed = await call('POST', `/connectors/${SOURCE}/restart?includeTasks=true&onlyFailed=true`);
    assert.equal(onlyFailed.status, 202);
    assert.equal((onlyFailed.json() as { connector: { state: string } }).connector.state, 'RUNNING');
    assert.deepEqual(writes.calls, ['restart primary->backup.MirrorSourceConnector', 'restart primary->backup.MirrorSourceConnector']);

    writes.flows = [flow('primary', 'backup', { state: 'failed', failure: { message: 'boom', trace: 'Error: boom' } as FlowSnapshot['failure'] })];
    const failed = await call('POST', `/connectors/${SOURCE}/restart?onlyFailed=true`);
    assert.equal((failed.json() as { connector: { state: string } }).connector.state, 'RESTARTING');
    assert.equal(writes.calls.length, 3, 'a failed connector is restarted');
  });
});

test('409 while a change is being applied, as Connect answers during a rebalance; nothing is asked of the pipeline', async () => {
  const writes = new FakeWrites();
  writes.applying = true;
  await serve(writes, 'read_write', async (call) => {
    for (const [method, path] of [
      ['PUT', `/connectors/${SOURCE}/config`],
      ['PUT', `/connectors/${SOURCE}/pause`],
      ['DELETE', `/connectors/${SOURCE}`],
      ['POST', `/connectors/${SOURCE}/restart`],
    ] as const) {
      const res = await call(method, path, method === 'PUT' ? sourceConfig : undefined);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.match((res.json() as { message: string }).message, /^Cannot complete request momentarily due to stale configuration/);
    }
    assert.deepEqual(writes.calls, []);
  });
});
