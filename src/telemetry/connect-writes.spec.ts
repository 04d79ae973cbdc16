import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../core/ports/logger';
import type { ConnectorRef, StoredOffset } from './connect-api';
import type { SourceOffsetChange } from './connect-offsets-body';
import { ConnectRestError, type ConnectorWrites, type InitialState } from './connect-writes';
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
  stopped: ConnectorRef[] = [];
  readonly calls: string[] = [];
  readonly baselines = new Map<string, ReadonlyMap<string, number>>();
  stored: StoredOffset[] = [];
  readonly topicsReset = (c: ConnectorRef): ReadonlyMap<string, number> | undefined => this.baselines.get(c.name);
  readonly storedOffsets = (): Promise<readonly StoredOffset[]> => Promise.resolve(this.stored);
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
    this.stopped = this.stopped.filter((p) => p.name !== c.name);
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
  async create(name: string, config: Readonly<Record<string, string>>, initial: InitialState): Promise<ConnectorRef> {
    const { connector } = await this.putConfig(name, config);
    this.calls.push(`create ${initial}`);
    if (initial === 'STOPPED') this.stopped.push(connector);
    if (initial === 'PAUSED') this.paused.push(connector);
    return connector;
  }
  stop(c: ConnectorRef): Promise<void> {
    this.calls.push(`stop ${c.name}`);
    this.paused = this.paused.filter((p) => p.name !== c.name);
    this.stopped.push(c);
    return Promise.resolve();
  }
  resetTopics(c: ConnectorRef, baseline: ReadonlyMap<string, number>): void {
    this.calls.push(`reset topics ${c.name}`);
    this.baselines.set(c.name, baseline);
  }
  alterOffsets(c: ConnectorRef, changes: readonly SourceOffsetChange[]): Promise<void> {
    this.calls.push(`alter ${c.name} ${JSON.stringify(changes)}`);
    return Promise.resolve();
  }
  resetOffsets(c: ConnectorRef): Promise<void> {
    this.calls.push(`reset offsets ${c.name}`);
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
      ['POST', '/connectors'],
      ['PATCH', `/connectors/${SOURCE}/config`],
      ['PUT', `/connectors/${SOURCE}/stop`],
      ['POST', `/connectors/${SOURCE}/tasks/0/restart`],
      ['PUT', `/connectors/${SOURCE}/topics/reset`],
      ['PATCH', `/connectors/${SOURCE}/offsets`],
      ['DELETE', `/connectors/${SOURCE}/offsets`],
    ] as const) {
      const res = await call(method, path, method === 'PUT' || method === 'PATCH' ? sourceConfig : undefined);
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

const status = async (call: (method: string, path: string, body?: unknown) => Promise<Answer>, name = SOURCE) =>
  (await call('GET', `/connectors/${name}/status`)).json() as { connector: { state: string }; tasks: { state: string }[] };

test('PUT …/stop answers 204: status STOPPED without tasks, no task to restart; resume runs it again; an unknown connector is 404', async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_write', async (call) => {
    const stopped = await call('PUT', `/connectors/${SOURCE}/stop`);
    assert.deepEqual([stopped.status, stopped.text], [204, '']);
    assert.deepEqual(await status(call), {
      name: 'primary->backup.MirrorSourceConnector',
      connector: { state: 'STOPPED', worker_id: 'host:1' },
      tasks: [],
      type: 'source',
    });
    assert.deepEqual((await call('GET', `/connectors/${SOURCE}/tasks`)).json(), []);
    assert.deepEqual(((await call('GET', `/connectors/${SOURCE}`)).json() as { tasks: unknown[] }).tasks, []);
    const task = await call('POST', `/connectors/${SOURCE}/tasks/0/restart`);
    assert.deepEqual([task.status, task.json()], [404, { error_code: 404, message: 'Task primary->backup.MirrorSourceConnector-0 not found' }]);
    assert.equal((await call('PUT', `/connectors/${SOURCE}/resume`)).status, 202);
    assert.equal((await status(call)).connector.state, 'RUNNING');
    assert.equal((await call('PUT', '/connectors/nope/stop')).status, 404);
    assert.deepEqual(writes.calls, ['stop primary->backup.MirrorSourceConnector', 'resume primary->backup.MirrorSourceConnector']);
  });
});

test('POST …/tasks/{task}/restart restarts the flow of task 0 (204); another task is 404 as Connect words it', async () => {
  const writes = new FakeWrites();
  await serve(writes, 'read_write', async (call) => {
    const restarted = await call('POST', `/connectors/${SOURCE}/tasks/0/restart`);
    assert.deepEqual([restarted.status, restarted.text], [204, '']);
    const other = await call('POST', `/connectors/${SOURCE}/tasks/1/restart`);
    assert.deepEqual([other.status, other.json()], [404, { error_code: 404, message: 'Task primary->backup.MirrorSourceConnector-1 not found' }]);
    assert.deepEqual(writes.calls, ['restart primary->backup.MirrorSourceConnector']);
  });
});

test("POST /connectors: 201 with Connect's ConnectorInfo, in its initial_state; 409 for one that exists; 400 for a body Connect refuses", async () => {
  const writes = new FakeWrites();
  writes.flows = [];
  await serve(writes, 'read_write', async (call) => {
    const created = await call('POST', '/connectors', { name: ' primary->backup.MirrorSourceConnector ', config: sourceConfig, initial_state: 'stopped' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json(), {
      name: 'primary->backup.MirrorSourceConnector',
      config: { ...sourceConfig, name: 'primary->backup.MirrorSourceConnector' },
      tasks: [],
      type: 'source',
    });
    assert.equal((await status(call)).connector.state, 'STOPPED', 'created stopped, as KIP-980 asks');
    const again = await call('POST', '/connectors', { name: 'primary->backup.MirrorSourceConnector', config: sourceConfig });
    assert.deepEqual([again.status, again.json()], [409, { error_code: 409, message: 'Connector primary->backup.MirrorSourceConnector already exists' }]);
    for (const [body, message] of [
      [{ config: sourceConfig }, /Invalid value {2}for configuration name: String may not be empty/],
      [{ name: 'x' }, /has no "config"/],
      [{ name: 'x', config: sourceConfig, initial_state: 'FOO' }, /initial_state "FOO" is none of RUNNING, PAUSED, STOPPED/],
      [{ name: 'x', config: { ...sourceConfig, name: 'y' } }, /Connector name configuration \(y\) doesn't match connector name in the URL \(x\)/],
      ['{"name":', /not JSON/],
    ] as const) {
      const res = await call('POST', '/connectors', body);
      assert.equal(res.status, 400, res.text);
      assert.match((res.json() as { message: string }).message, message);
    }
    assert.deepEqual(writes.calls, ['put primary->backup.MirrorSourceConnector', 'create STOPPED']);
  });
});

test('PATCH …/config changes the running config key by key (null removes one) and answers 200 with ConnectorInfo', async () => {
  const writes = new FakeWrites();
  writes.configs.set('primary->backup.MirrorSourceConnector', { ...sourceConfig, 'sync.topic.acls.enabled': 'false' });
  await serve(writes, 'read_write', async (call) => {
    const patched = await call('PATCH', `/connectors/${SOURCE}/config`, { topics: 'orders.*, returns', 'sync.topic.acls.enabled': null });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual((patched.json() as { config: Record<string, string> }).config, {
      ...sourceConfig,
      topics: 'orders.*, returns',
      name: 'primary->backup.MirrorSourceConnector',
    });
    assert.equal((await call('PATCH', '/connectors/nope/config', { topics: 'a' })).status, 404);
  });
});

test('PUT …/topics/reset answers 202 and empties …/topics; a topic written to after it is listed again', async () => {
  const writes = new FakeWrites();
  const mirror = (records: number) => ({ partitions: [{ topic: 'primary.orders', partition: 0, records }] }) as unknown as FlowSnapshot['mirror'];
  writes.flows = [flow('primary', 'backup', { mirror: mirror(5) })];
  await serve(writes, 'read_write', async (call) => {
    const topics = async () =>
      ((await call('GET', `/connectors/${SOURCE}/topics`)).json() as Record<string, { topics: string[] }>)['primary->backup.MirrorSourceConnector']!.topics;
    assert.deepEqual(await topics(), ['primary.orders']);
    const reset = await call('PUT', `/connectors/${SOURCE}/topics/reset`);
    assert.deepEqual([reset.status, reset.text], [202, '']);
    assert.deepEqual(await topics(), []);
    writes.flows = [flow('primary', 'backup', { mirror: mirror(6) })];
    assert.deepEqual(await topics(), ['primary.orders']);
  });
});

test("PATCH and DELETE …/offsets (KIP-875): 400 unless stopped, MM2's checks of every offset, then Connect's messages", async () => {
  const writes = new FakeWrites();
  const offset = (partition: Record<string, unknown>, o: Record<string, unknown> | null) => ({ offsets: [{ partition, offset: o }] });
  const good = { cluster: 'primary', topic: 'orders', partition: 0 };
  await serve(writes, 'read_write', async (call) => {
    const running = await call('PATCH', `/connectors/${SOURCE}/offsets`, offset(good, { offset: 5 }));
    assert.deepEqual(
      [running.status, (running.json() as { message: string }).message],
      [
        400,
        "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/primary->backup.MirrorSourceConnector/stop' endpoint",
      ],
    );
    assert.equal((await call('DELETE', `/connectors/${SOURCE}/offsets`)).status, 400);
    await call('PUT', `/connectors/${SOURCE}/stop`);
    for (const [body, message] of [
      [{ offsets: [] }, 'Partitions / offsets need to be provided for an alter offsets request'],
      [{}, 'Partitions / offsets need to be provided for an alter offsets request'],
      [
        offset({ cluster: 'primary', partition: 0 }, { offset: 5 }),
        "Source partition {cluster=primary, partition=0} is missing the 'topic' key, which is required",
      ],
      [
        offset({ ...good, partition: '0' }, { offset: 5 }),
        "Source partition {cluster=primary, partition=0, topic=orders} has an invalid value 0 for the 'partition' key, which must be an integer",
      ],
      [
        offset(good, { offset: -5 }),
        "Source offset {offset=-5} for source partition {cluster=primary, partition=0, topic=orders} has an invalid value -5 for the 'offset' key, which cannot be negative",
      ],
      [
        offset(good, { x: 5 }),
        "Source offset {x=5} for source partition {cluster=primary, partition=0, topic=orders} is missing the 'offset' key, which is required",
      ],
    ] as const) {
      const res = await call('PATCH', `/connectors/${SOURCE}/offsets`, body);
      assert.deepEqual([res.status, (res.json() as { message: string }).message], [400, message], JSON.stringify(body));
    }
    const altered = await call('PATCH', `/connectors/${SOURCE}/offsets`, {
      offsets: [
        { partition: good, offset: { offset: 5 } },
        { partition: { ...good, partition: 1 }, offset: null },
      ],
    });
    assert.deepEqual([altered.status, altered.json()], [200, { message: 'The offsets for this connector have been altered successfully' }]);
    const reset = await call('DELETE', `/connectors/${SOURCE}/offsets`);
    assert.deepEqual([reset.status, reset.json()], [200, { message: 'The offsets for this connector have been reset successfully' }]);
    assert.deepEqual(writes.calls.slice(1), [
      'alter primary->backup.MirrorSourceConnector [{"cluster":"primary","topic":"orders","partition":0,"offset":5},{"cluster":"primary","topic":"orders","partition":1,"offset":null}]',
      'reset offsets primary->backup.MirrorSourceConnector',
    ]);

    // Stopped, GET …/offsets reads what is stored.
    writes.stored = [{ topic: 'orders', partition: 2, offset: 41 }];
    assert.deepEqual((await call('GET', `/connectors/${SOURCE}/offsets`)).json(), {
      offsets: [{ partition: { cluster: 'primary', partition: 2, topic: 'orders' }, offset: { offset: 41 } }],
    });

    // The heartbeat connector's offsets: checked as MM2 checks them (only 0), and nothing is stored here.
    const heartbeat = encodeURIComponent('primary->backup.MirrorHeartbeatConnector');
    await call('PUT', `/connectors/${heartbeat}/stop`);
    const partition = { sourceClusterAlias: 'primary', targetClusterAlias: 'backup' };
    const nonZero = await call('PATCH', `/connectors/${heartbeat}/offsets`, offset(partition, { offset: 3 }));
    assert.match((nonZero.json() as { message: string }).message, /the only accepted value is 0$/);
    const zero = await call('PATCH', `/connectors/${heartbeat}/offsets`, offset(partition, { offset: 0 }));
    assert.equal(zero.status, 200);
    assert.match((zero.json() as { message: string }).message, /^MirrorHeartbeatConnector keeps no offsets in mirrorflow .*nothing to change/);
    assert.equal(writes.calls.filter((c) => c.startsWith('alter') || c.startsWith('reset')).length, 2, 'nothing asked of the pipeline for the heartbeats');
  });
});
