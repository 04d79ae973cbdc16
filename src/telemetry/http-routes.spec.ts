import { after, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../core/ports/logger';
import type { FlowSnapshot } from './flow-snapshot';
import { HttpServer } from './http-server';
import { httpRoutes } from './http-routes';
import { Metrics } from './metrics';

// A fake clock for the whole file: ages and lags in time are exact, whatever the machine's pace.
mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-06-01T12:00:00Z') });
after(() => mock.timers.reset());

type Overrides = { -readonly [K in keyof FlowSnapshot]?: FlowSnapshot[K] };

/** A flow as a running pipeline would report it; `overrides` change what a test is about. */
function flow(overrides: Overrides = {}): FlowSnapshot {
  return {
    source: 'primary',
    target: 'backup',
    replicating: true,
    state: 'running',
    topics: 1,
    partitionsAssigned: 1,
    elected: true,
    recordsReplicated: 70,
    recordsDropped: 2,
    bytesReplicated: 7000,
    recordBatchesForwarded: 3,
    recordsReencoded: 5,
    topicsCreated: 1,
    writes: 4,
    lastReplicationLatencyMs: 12,
    lastRecordAgeMs: 20,
    transformCounters: [{ transform: 'mask_json_field', step: '0', name: 'values_changed', help: 'Values masked.', value: 7 }],
    failure: undefined,
    partitions: [
      { topic: 'orders', partition: 1, nextOffset: 30, highWatermark: 40, records: 30, bytes: 3000, lagSince: Date.now() - 4000 },
      { topic: 'orders', partition: 0, nextOffset: 40, highWatermark: 40, records: 40, bytes: 4000, lagSince: 0 },
    ],
    buffer: { inFlightBytes: 512, maxBytes: 16777216 },
    checkpoints: {
      state: 'running',
      groups: 2,
      checkpointsWritten: 5,
      lastPassAt: Date.now() - 1000,
      lastCheckpointLatencyMs: 8,
      errors: 0,
      translationLag: [
        { group: 'billing', records: 0 },
        { group: 'orders-app', records: 39 },
      ],
      groupSync: { enabled: true, groupsSynced: 1, offsetsCommitted: 2, skippedActive: 3, activeGroups: ['busy'], errors: 0 },
    },
    heartbeats: { state: 'running', written: 9, lastAt: Date.now() - 500, errors: 0 },
    acls: { state: 'running', created: 4, skipped: { 'allow-write': 2, wildcard: 0 }, errors: 0, lastPassAt: Date.now() - 700 },
    sourceResets: 0,
    recordsExpired: 0,
    recordsDeadLettered: 0,
    outages: [],
    retries: [],
    errors: [
      { kind: 'transform-failed', cluster: 'primary', count: 3 },
      { kind: 'transport-retriable', cluster: 'backup', count: 5 },
    ],
    mirror: {
      partitions: [
        {
          topic: 'primary.orders',
          partition: 1,
          records: 30,
          bytes: 3000,
          recordRate: 0.5,
          byteRate: 50,
          recordAge: { last: 20, min: 10, max: 30, avg: 20 },
          replicationLatency: { last: 12, min: 5, max: 40, avg: 12 },
          inFlight: 10,
        },
      ],
      checkpointLatency: [{ group: 'billing', topic: 'primary.orders', partition: 1, latency: { last: 8, min: 8, max: 8, avg: 8 } }],
      offsetCommit: { last: 3, min: 2, max: 4, avg: 3 },
      recordAgeHistogram: { bounds: [10, 100], counts: [5, 70], count: 70, sum: 1400 },
      replicationLatencyHistogram: { bounds: [10, 100], counts: [30, 70], count: 70, sum: 840 },
    },
    ...overrides,
  };
}

async function serve(
  flows: readonly FlowSnapshot[],
  run: (get: (path: string) => Promise<{ status: number; text: string; json: () => unknown }>) => Promise<void>,
): Promise<void> {
  const snapshots = (): readonly FlowSnapshot[] => flows;
  const server = new HttpServer(httpRoutes({ pipeline: 'p1', snapshots, metrics: new Metrics(snapshots), workerId: () => 'host:1' }), silentLogger);
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  try {
    await run(async (path) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      const text = await res.text();
      return { status: res.status, text, json: () => JSON.parse(text) as unknown };
    });
  } finally {
    await server.close();
  }
}

/** The value of the one sample of `name` whose labels include every `labels` pair. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

test('/metrics: per-partition counts and lag, flow totals, state, checkpoints and heartbeats, from the snapshot', async () => {
  await serve([flow()], async (get) => {
    const res = await get('/metrics');
    assert.equal(res.status, 200);
    const t = res.text;
    const p0 = { flow: 'primary->backup', source: 'primary', target: 'backup', topic: 'orders', partition: '0' };
    const p1 = { ...p0, partition: '1' };
    const f = { flow: 'primary->backup' };
    assert.equal(sample(t, 'mirrorflow_records_replicated_total', p0), 40);
    assert.equal(sample(t, 'mirrorflow_records_replicated_total', p1), 30);
    assert.equal(sample(t, 'mirrorflow_bytes_replicated_total', p1), 3000);
    assert.equal(sample(t, 'mirrorflow_offset_lag_records', p0), 0);
    assert.equal(sample(t, 'mirrorflow_offset_lag_records', p1), 10);
    assert.equal(sample(t, 'mirrorflow_flow_lag_records', f), 10);
    assert.equal(sample(t, 'mirrorflow_replication_latency_ms_bucket', { ...f, le: '10' }), 30);
    assert.equal(sample(t, 'mirrorflow_replication_latency_ms_bucket', { ...f, le: '+Inf' }), 70);
    assert.equal(sample(t, 'mirrorflow_replication_latency_ms_sum', f), 840);
    assert.match(t, /^# TYPE mirrorflow_replication_latency_ms histogram$/m);
    assert.equal(sample(t, 'mirrorflow_records_dropped_total', f), 2);
    assert.equal(sample(t, 'mirrorflow_buffer_bytes', f), 512);
    assert.equal(sample(t, 'mirrorflow_flow_state', { ...f, state: 'running' }), 1);
    assert.equal(sample(t, 'mirrorflow_flow_state', { ...f, state: 'failed' }), 0);
    assert.equal(sample(t, 'mirrorflow_checkpoints_written_total', f), 5);
    assert.equal(sample(t, 'mirrorflow_group_sync_skipped_active_total', f), 3);
    assert.equal(sample(t, 'mirrorflow_heartbeats_written_total', f), 9);
    assert.equal(sample(t, 'mirrorflow_heartbeat_age_ms', f), 500);
    assert.match(t, /^# TYPE mirrorflow_records_replicated_total counter$/m);
    assert.match(t, /^mirrorflow_process_resident_memory_bytes /m, "the process's default metrics are there too");
    assert.equal(sample(t, 'mirrorflow_source_resets_total', f), 0);
    assert.equal(sample(t, 'mirrorflow_record_age_ms_count', f), 70);
    assert.equal(sample(t, 'mirrorflow_records_reencoded_total', f), 5);
    assert.equal(sample(t, 'mirrorflow_topics_created_total', f), 1);
    assert.equal(sample(t, 'mirrorflow_transform_counter_total', { ...f, transform: 'mask_json_field', step: '0', counter: 'values_changed' }), 7);
    assert.equal(sample(t, 'mirrorflow_offset_lag_ms', p0), 0, 'caught up: no lag in time');
    const lagMs = sample(t, 'mirrorflow_offset_lag_ms', p1);
    assert.equal(lagMs, 4000, 'lagging since 4 s ago');
    assert.equal(sample(t, 'mirrorflow_flow_lag_ms', f), lagMs, "the flow's most lagging partition");
    assert.equal(sample(t, 'mirrorflow_checkpoint_translation_lag_records', { ...f, group: 'orders-app' }), 39);
    assert.equal(sample(t, 'mirrorflow_checkpoint_translation_lag_records', { ...f, group: 'billing' }), 0);
    assert.equal(sample(t, 'mirrorflow_errors_total', { ...f, kind: 'transform-failed', cluster: 'primary' }), 3);
    assert.equal(sample(t, 'mirrorflow_errors_total', { ...f, kind: 'transport-retriable', cluster: 'backup' }), 5);
  });
});

test('/metrics: offsets: preserve counts preserved partitions and fallbacks; other flows have no such series', async () => {
  const partitions = [
    { topic: 'orders', partition: 0, preserved: true as const, since: 0 },
    { topic: 'orders', partition: 1, preserved: true as const, since: 0 },
    { topic: 'orders', partition: 2, preserved: false as const, reason: 'a gap', fromOffset: 9, at: 0 },
  ];
  await serve([flow({ preservation: { fallbacks: 1, partitions } }), flow({ target: 'dr' })], async (get) => {
    const t = (await get('/metrics')).text;
    assert.equal(sample(t, 'mirrorflow_offsets_preserved_partitions', { flow: 'primary->backup' }), 2);
    assert.equal(sample(t, 'mirrorflow_offset_preservation_fallbacks_total', { flow: 'primary->backup' }), 1);
    assert.equal(sample(t, 'mirrorflow_offsets_preserved_partitions', { flow: 'primary->dr' }), undefined);
  });
});

test('/metrics: source resets, records expired unread, dead letters, and an outage by cluster and operation only while it lasts', async () => {
  const since = Date.now() - 30_000;
  const outage = { cluster: 'dr', operation: 'writing records', since, failures: 9, lastError: 'Connection error' };
  await serve(
    [
      flow({ sourceResets: 2, recordsExpired: 15, recordsDeadLettered: 3 }),
      flow({ target: 'dr', outages: [outage], retries: [{ cluster: 'dr', operation: 'writing records', failures: 9 }] }),
    ],
    async (get) => {
      const t = (await get('/metrics')).text;
      assert.equal(sample(t, 'mirrorflow_source_resets_total', { flow: 'primary->backup' }), 2);
      assert.equal(sample(t, 'mirrorflow_records_expired_total', { flow: 'primary->backup' }), 15);
      assert.equal(sample(t, 'mirrorflow_records_dead_lettered_total', { flow: 'primary->backup' }), 3);
      assert.doesNotMatch(t, /^mirrorflow_outage_seconds\{flow="primary->backup"/m, 'no outage, no series');
      const seconds = sample(t, 'mirrorflow_outage_seconds', { flow: 'primary->dr', cluster: 'dr', operation: 'writing records' });
      assert.equal(seconds, 30, 'an outage of 30 s');
      assert.equal(sample(t, 'mirrorflow_retries_total', { flow: 'primary->dr', cluster: 'dr', operation: 'writing records' }), 9);
      assert.equal(sample(t, 'mirrorflow_flow_ready', { flow: 'primary->backup' }), 1);
      assert.equal(sample(t, 'mirrorflow_flow_ready', { flow: 'primary->dr' }), 0, 'an outage of 30 s makes the flow not ready, as /ready says');
    },
  );
});

test('/healthz is 200; /ready is 200 only when every flow runs, else 503 with a reason per flow', async () => {
  await serve([flow()], async (get) => {
    assert.equal((await get('/healthz')).status, 200);
    assert.equal((await get('/ready')).status, 200);
  });
  await serve([], async (get) => {
    const res = await get('/ready');
    assert.equal(res.status, 503);
    assert.match(res.text, /has not started its flows/);
  });
  const checkpointsFailed = flow({ target: 'dr', checkpoints: { ...flow().checkpoints, state: 'failed' } });
  await serve(
    [
      flow({ state: 'starting' }),
      checkpointsFailed,
      flow({ target: 'c', outages: [{ cluster: 'c', operation: 'writing records', since: Date.now() - 12_000, failures: 5, lastError: 'broker down' }] }),
      flow({
        target: 'blip',
        outages: [{ cluster: 'blip', operation: 'writing records', since: Date.now() - 1_000, failures: 1, lastError: 'NOT_LEADER_OR_FOLLOWER' }],
      }),
      flow({ target: 'ok' }),
    ],
    async (get) => {
      const res = await get('/ready');
      assert.equal(res.status, 503);
      assert.deepEqual(res.json(), {
        ready: false,
        flows: [
          { flow: 'primary->backup', ready: false, reasons: ['replication is starting'] },
          { flow: 'primary->dr', ready: false, reasons: ['checkpoints failed'] },
          { flow: 'primary->c', ready: false, reasons: ['writing records on c has been failing for 12 s: broker down'] },
          { flow: 'primary->blip', ready: true, reasons: [] },
          { flow: 'primary->ok', ready: true, reasons: [] },
        ],
      });
    },
  );
});

test('/status: flows with sorted partitions and their lag, checkpoints, heartbeats, groups skipped as active and records expired unread', async () => {
  await serve([flow({ recordsExpired: 15 })], async (get) => {
    const doc = (await get('/status')).json() as {
      pipeline: string;
      ready: boolean;
      flows: {
        name: string;
        lag: number;
        lagMs: number;
        partitions: { partition: number; lag: number; lagMs: number }[];
        checkpoints: { translationLag: { group: string; records: number }[]; groupSync: { activeGroups: string[] } };
        errors: { kind: string; cluster: string; count: number }[];
        heartbeats: { written: number };
        recordsExpired: number;
      }[];
    };
    assert.equal(doc.pipeline, 'p1');
    assert.equal(doc.flows[0]!.recordsExpired, 15);
    assert.equal(doc.ready, true);
    assert.equal(doc.flows[0]!.name, 'primary->backup');
    assert.equal(doc.flows[0]!.lag, 10);
    assert.deepEqual(
      doc.flows[0]!.partitions.map((p) => [p.partition, p.lag]),
      [
        [0, 0],
        [1, 10],
      ],
    );
    assert.deepEqual(doc.flows[0]!.checkpoints.groupSync.activeGroups, ['busy']);
    const [caughtUp, lagging] = doc.flows[0]!.partitions;
    assert.equal(caughtUp!.lagMs, 0);
    assert.equal(lagging!.lagMs, 4000, 'partition 1 lags since 4 s ago');
    assert.equal(doc.flows[0]!.lagMs, lagging!.lagMs);
    assert.deepEqual(doc.flows[0]!.checkpoints.translationLag, [
      { group: 'billing', records: 0 },
      { group: 'orders-app', records: 39 },
    ]);
    assert.deepEqual(doc.flows[0]!.errors, [
      { kind: 'transform-failed', cluster: 'primary', count: 3 },
      { kind: 'transport-retriable', cluster: 'backup', count: 5 },
    ]);
    assert.equal(doc.flows[0]!.heartbeats.written, 9);
  });
});

test('/connectors: three connectors per flow, named <source>-><target>.<class>; a heartbeats-only flow has one', async () => {
  await serve([flow(), flow({ source: 'backup', target: 'primary', replicating: false, partitions: [] })], async (get) => {
    assert.deepEqual((await get('/connectors')).json(), [
      'primary->backup.MirrorSourceConnector',
      'primary->backup.MirrorCheckpointConnector',
      'primary->backup.MirrorHeartbeatConnector',
      'backup->primary.MirrorHeartbeatConnector',
    ]);
    const status = await get(`/connectors/${encodeURIComponent('primary->backup.MirrorSourceConnector')}/status`);
    assert.deepEqual(status.json(), {
      name: 'primary->backup.MirrorSourceConnector',
      connector: { state: 'RUNNING', worker_id: 'host:1' },
      tasks: [{ id: 0, state: 'RUNNING', worker_id: 'host:1' }],
      type: 'source',
    });
    assert.equal((await get('/connectors/MirrorSourceConnector/status')).status, 200, 'the class name alone finds the only flow that has one');
    assert.equal((await get('/connectors/MirrorHeartbeatConnector/status')).status, 404, 'two flows have one: the class name is ambiguous');
    assert.deepEqual((await get('/connectors/MirrorCheckpointConnector')).json(), {
      name: 'primary->backup.MirrorCheckpointConnector',
      config: {
        name: 'primary->backup.MirrorCheckpointConnector',
        'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
        'source.cluster.alias': 'primary',
        'target.cluster.alias': 'backup',
      },
      tasks: [{ connector: 'primary->backup.MirrorCheckpointConnector', task: 0 }],
      type: 'source',
    });
    const expanded = (await get('/connectors?expand=status')).json() as Record<string, { status: { connector: { state: string } } }>;
    assert.equal(expanded['primary->backup.MirrorCheckpointConnector']!.status.connector.state, 'RUNNING');
  });
});

test('/connectors/{name}/status: a failed flow is FAILED with the trace of what ended it, as Connect shows it', async () => {
  const failure = { message: 'Not authorized to write to backup', trace: 'AuthorizationError: Not authorized to write to backup\n    at write' };
  await serve([flow({ state: 'failed', failure })], async (get) => {
    const status = (await get('/connectors/MirrorSourceConnector/status')).json() as {
      connector: { state: string; trace?: string };
      tasks: { state: string; trace?: string }[];
    };
    assert.equal(status.connector.state, 'FAILED');
    assert.equal(status.connector.trace, failure.trace);
    assert.equal(status.tasks[0]!.state, 'FAILED');
    assert.equal(status.tasks[0]!.trace, failure.trace);
    const running = (await get('/connectors/MirrorHeartbeatConnector/status')).json() as { connector: Record<string, unknown> };
    assert.equal(running.connector['trace'], undefined, 'a running connector has no trace');
    const doc = (await get('/status')).json() as { flows: { failure: string | null }[] };
    assert.equal(doc.flows[0]!.failure, failure.message);
  });
});

test("/connectors/{name}/offsets: the last replicated offset per source partition under MM2's keys", async () => {
  await serve(
    [flow({ partitions: [...flow().partitions, { topic: 'empty', partition: 0, nextOffset: 0, highWatermark: 0, records: 0, bytes: 0, lagSince: 0 }] })],
    async (get) => {
      const res = await get('/connectors/MirrorSourceConnector/offsets');
      assert.equal(res.status, 200);
      assert.equal(
        res.text,
        '{"offsets":[' +
          '{"partition":{"cluster":"primary","partition":0,"topic":"orders"},"offset":{"offset":39}},' +
          '{"partition":{"cluster":"primary","partition":1,"topic":"orders"},"offset":{"offset":29}}]}\n',
        'a partition with nothing replicated has no offset, as in the progress topic',
      );
      assert.equal((await get('/connectors/nope/offsets')).status, 404);
    },
  );
});

test("every group's sync state: /status with the reasons, /metrics a gauge per group and state and counts per state", async () => {
  const base = flow().checkpoints;
  const withStates = flow({
    checkpoints: {
      ...base,
      groupStates: [
        { group: 'billing', state: 'synced', reason: 'its group on backup holds the translated offsets', since: 1_000_000, partitions: 2, translated: 2 },
        { group: 'busy', state: 'active-on-target', reason: 'it has active members on backup (state stable)', since: 1_000_000, targetState: 'stable' },
        { group: 'console-consumer-7', state: 'filtered-out', reason: "the flow's groups filter leaves it out", since: 1_000_000 },
      ],
      groupsFilteredOut: 12,
    },
  });
  await serve([withStates], async (get) => {
    const status = (await get('/status')).json() as {
      flows: {
        checkpoints: { groupStates: { group: string; state: string; reason: string; since: string; partitions: number | null }[]; groupsFilteredOut: number };
      }[];
    };
    const cp = status.flows[0]!.checkpoints;
    assert.deepEqual(
      cp.groupStates.map((g) => [g.group, g.state, g.partitions]),
      [
        ['billing', 'synced', 2],
        ['busy', 'active-on-target', null],
        ['console-consumer-7', 'filtered-out', null],
      ],
    );
    assert.equal(cp.groupStates[1]!.reason, 'it has active members on backup (state stable)');
    assert.equal(cp.groupStates[0]!.since, '1970-01-01T00:16:40.000Z');
    assert.equal(cp.groupsFilteredOut, 12);

    const t = (await get('/metrics')).text;
    const f = { flow: 'primary->backup' };
    assert.equal(sample(t, 'mirrorflow_group_sync_state', { ...f, group: 'billing', state: 'synced' }), 1);
    assert.equal(sample(t, 'mirrorflow_group_sync_state', { ...f, group: 'busy', state: 'active-on-target' }), 1);
    assert.equal(sample(t, 'mirrorflow_group_sync_state', { ...f, group: 'busy', state: 'synced' }), undefined, 'only the current state has a series');
    assert.equal(sample(t, 'mirrorflow_group_sync_groups', { ...f, state: 'synced' }), 1);
    assert.equal(sample(t, 'mirrorflow_group_sync_groups', { ...f, state: 'active-on-target' }), 1);
    assert.equal(sample(t, 'mirrorflow_group_sync_groups', { ...f, state: 'not-translatable' }), 0);
    assert.equal(sample(t, 'mirrorflow_group_sync_groups', { ...f, state: 'filtered-out' }), 12, 'every filtered-out group counts, listed or not');
  });
});

test("/metrics: MM2's and Connect's series under Strimzi's names, with MM2's labels (the remote topic), and none when switched off", async () => {
  await serve([flow()], async (get) => {
    const t = (await get('/metrics')).text;
    const p1 = { source: 'primary', target: 'backup', topic: 'primary.orders', partition: '1' };
    const mm2 = 'kafka_connect_mirror_mirrorsourceconnector_';
    assert.equal(sample(t, `${mm2}record_count`, p1), 30);
    assert.equal(sample(t, `${mm2}record_rate`, p1), 0.5);
    assert.equal(sample(t, `${mm2}byte_count`, p1), 3000);
    assert.equal(sample(t, `${mm2}byte_rate`, p1), 50);
    assert.equal(sample(t, `${mm2}record_age_ms`, p1), 20);
    assert.equal(sample(t, `${mm2}record_age_ms_max`, p1), 30);
    assert.equal(sample(t, `${mm2}replication_latency_ms_min`, p1), 5);
    assert.equal(sample(t, `${mm2}replication_latency_ms_avg`, p1), 12);
    const cp = { source: 'primary', target: 'backup', group: 'billing', topic: 'primary.orders', partition: '1' };
    assert.equal(sample(t, 'kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms', cp), 8);
    assert.equal(sample(t, 'kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms_avg', cp), 8);
    assert.match(t, /^kafka_connect_worker_connector_count 3$/m);
    assert.match(t, /^kafka_connect_worker_task_count 3$/m);
    // Connect's names hold `>`: JMX quotes them, and Strimzi's dashboard matches the quotes.
    assert.match(t, /^kafka_connect_source_task_source_record_active_count\{connector="\\"primary->backup\.MirrorSourceConnector\\"",task="0"\} 10$/m);
    assert.match(t, /^kafka_connect_connector_task_offset_commit_avg_time_ms\{connector="\\"primary->backup\.MirrorSourceConnector\\"",task="0"\} 3$/m);
    assert.match(t, /^kafka_connect_connector_status\{connector="\\"primary->backup\.MirrorCheckpointConnector\\"",task="0",status="running"\} 1$/m);
    assert.match(
      t,
      /^kafka_consumer_fetch_manager_records_lag\{clientid="\\"primary->backup\|primary->backup\.MirrorSourceConnector\|replication-consumer\\"",topic="orders",partition="1"\} 10$/m,
    );
    assert.match(t, /^kafka_producer_outgoing_byte_total\{clientid="\\"connector-producer-primary->backup\.MirrorSourceConnector-0\\""\} 7000$/m);
  });
  const snapshots = (): readonly FlowSnapshot[] => [flow()];
  const off = await new Metrics(snapshots, { mm2Names: false }).render();
  assert.doesNotMatch(off, /^kafka_/m);
  assert.match(off, /mirrorflow_records_replicated_total/);
});

test('Connect REST as its clients read it: GET / by Accept, expand=info, tasks, task status, topics, connector-plugins', async () => {
  const snapshots = (): readonly FlowSnapshot[] => [flow()];
  const server = new HttpServer(
    httpRoutes({
      pipeline: 'p1',
      snapshots,
      metrics: new Metrics(snapshots),
      workerId: () => 'host:1',
      workerInfo: () => ({ version: '0.1.0', commit: 'unknown', kafka_cluster_id: null }),
    }),
    silentLogger,
  );
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  const get = async (path: string, accept = 'application/json'): Promise<{ status: number; type: string; body: string }> => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { accept } });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
  };
  try {
    // kcctl asks GET / first, for Connect's ServerInfo; a browser gets the status page.
    assert.deepEqual(JSON.parse((await get('/')).body), { version: '0.1.0', commit: 'unknown', kafka_cluster_id: null });
    assert.match((await get('/', 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8')).type, /text\/html/);
    const source = 'primary->backup.MirrorSourceConnector';
    const expanded = JSON.parse((await get('/connectors?expand=info&expand=status')).body) as Record<
      string,
      { info: { name: string; type: string }; status: { connector: { state: string } } }
    >;
    assert.equal(expanded[source]!.info.type, 'source');
    assert.equal(expanded[source]!.status.connector.state, 'RUNNING');
    const tasks = JSON.parse((await get(`/connectors/${encodeURIComponent(source)}/tasks`)).body) as { id: unknown; config: Record<string, string> }[];
    assert.deepEqual(tasks[0]!.id, { connector: source, task: 0 });
    assert.equal(tasks[0]!.config['task.class'], 'org.apache.kafka.connect.mirror.MirrorSourceTask');
    assert.deepEqual(JSON.parse((await get(`/connectors/${encodeURIComponent(source)}/tasks/0/status`)).body), {
      id: 0,
      state: 'RUNNING',
      worker_id: 'host:1',
    });
    assert.equal((await get(`/connectors/${encodeURIComponent(source)}/tasks/1/status`)).status, 404);
    assert.deepEqual(JSON.parse((await get(`/connectors/${encodeURIComponent(source)}/topics`)).body), { [source]: { topics: ['primary.orders'] } });
    const plugins = JSON.parse((await get('/connector-plugins')).body) as { class: string; type: string }[];
    assert.deepEqual(
      plugins.map((p) => p.class),
      ['MirrorSourceConnector', 'MirrorCheckpointConnector', 'MirrorHeartbeatConnector'].map((c) => `org.apache.kafka.connect.mirror.${c}`),
    );
  } finally {
    await server.close();
  }
});
