/**
 * config/grafana-dashboard.json and config/prometheus-alerts.yaml are built on the metrics
 * `mirrorflow run` serves: every metric an expression names is one /metrics exports, with the
 * labels the expression filters or groups by. (promtool is not installed here, so PromQL syntax
 * itself is not checked; the names and labels are, against a real exposition.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { parse } from '#yaml';
import { Metrics } from '../../src/telemetry';
import type { FlowSnapshot } from '../../src/telemetry';

const CONFIG = resolve(__dirname, '..', '..', '..', 'config');

/** A flow with every optional part present, so that every metric has a sample. */
const FLOW: FlowSnapshot = {
  source: 'primary',
  target: 'backup',
  replicating: true,
  state: 'running',
  topics: 1,
  partitionsAssigned: 1,
  elected: true,
  recordsReplicated: 1,
  recordsDropped: 0,
  bytesReplicated: 1,
  recordBatchesForwarded: 0,
  recordsReencoded: 5,
  topicsCreated: 1,
  writes: 1,
  lastReplicationLatencyMs: 1,
  lastRecordAgeMs: 1,
  partitions: [{ topic: 'orders', partition: 0, nextOffset: 1, highWatermark: 1, records: 1, bytes: 1, lagSince: 0 }],
  buffer: { inFlightBytes: 0, maxBytes: 1 },
  checkpoints: {
    state: 'running',
    groups: 1,
    checkpointsWritten: 1,
    lastPassAt: 1,
    lastCheckpointLatencyMs: 1,
    errors: 0,
    translationLag: [],
    groupSync: { enabled: true, groupsSynced: 0, offsetsCommitted: 0, skippedActive: 0, activeGroups: [], errors: 0 },
  },
  heartbeats: { state: 'running', written: 1, lastAt: 1, errors: 0 },
  configSync: { enabled: true, passes: 1, changesApplied: 1, changesRefused: 1, refused: [], errors: 0, lastPassAt: 1 },
  acls: { state: 'running', created: 1, skipped: { 'allow-write': 1 }, errors: 0, lastPassAt: 1 },
  verify: {
    state: 'running',
    intervalMs: 60_000,
    recordsPerInterval: 10_000,
    passes: 1,
    lastPassAt: 1,
    records: 10,
    matched: 9,
    missing: 1,
    duplicates: 0,
    unexpected: 0,
    skipped: 0,
    partitionsVerified: 1,
    errors: 0,
    lastError: undefined,
    findings: [],
  },
  sourceResets: 0,
  recordsExpired: 0,
  recordsDeadLettered: 0,
  outages: [{ cluster: 'backup', operation: 'writing records', since: 1, failures: 1, lastError: 'x' }],
  retries: [{ cluster: 'backup', operation: 'writing records', failures: 3 }],
  transformCounters: [{ transform: 't', step: '0', name: 'c', help: 'h', value: 1 }],
  failure: undefined,
  mirror: {
    partitions: [],
    checkpointLatency: [],
    offsetCommit: { last: undefined, min: Number.NaN, max: Number.NaN, avg: Number.NaN },
    recordAgeHistogram: { bounds: [10], counts: [1], count: 1, sum: 1 },
    replicationLatencyHistogram: { bounds: [10], counts: [1], count: 1, sum: 1 },
  },
};

/** Metric name → its label names, from a real exposition. */
async function exported(): Promise<Map<string, Set<string>>> {
  const text = await new Metrics(() => [FLOW]).render();
  const names = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) names.set(type[1]!, names.get(type[1]!) ?? new Set());
    const sample = /^([a-z_]+?)(?:_bucket|_sum|_count)?\{([^}]*)\} /.exec(line);
    if (sample) for (const l of sample[2]!.matchAll(/(\w+)="/g)) names.get(sample[1]!)?.add(l[1]!);
  }
  return names;
}

/** What is wrong with one expression: unknown metrics, labels a metric does not have. */
function problems(expr: string, metrics: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const used = [...expr.matchAll(/\b(mirrorflow_[a-z0-9_]+)(\{[^}]*\})?/g)];
  if (used.length === 0) found.push('names no mirrorflow metric');
  const labelsOfExpr = new Set<string>();
  for (const [, written, selector] of used) {
    // A histogram's series: its _bucket, _sum and _count.
    const base = written!.replace(/_(bucket|sum|count)$/, '');
    const name = metrics.has(written!) ? written! : base;
    const labels = metrics.get(name);
    if (labels === undefined) {
      found.push(`${name} is not exported`);
      continue;
    }
    for (const l of labels) labelsOfExpr.add(l);
    for (const m of (selector ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)) if (!labels.has(m[1]!)) found.push(`${name} has no label ${m[1]}`);
  }
  for (const by of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
    for (const l of by[1]!.split(',').map((s) => s.trim()))
      if (l !== '' && !labelsOfExpr.has(l)) found.push(`grouping by ${l}, which no metric of the expression has`);
  return found;
}

test('the Grafana dashboard: importable JSON whose every query uses exported metrics and labels', async () => {
  const metrics = await exported();
  const dashboard = JSON.parse(readFileSync(resolve(CONFIG, 'grafana-dashboard.json'), 'utf8')) as {
    __inputs: { name: string; type: string }[];
    panels: { id: number; title: string; targets: { expr: string; refId: string }[] }[];
    templating: { list: { name: string; query: { query: string } }[] };
  };
  assert.deepEqual(
    dashboard.__inputs.map((i) => `${i.type}:${i.name}`),
    ['datasource:DS_PROMETHEUS'],
    'asks for its Prometheus on import',
  );
  assert.ok(dashboard.panels.length >= 10);
  assert.equal(new Set(dashboard.panels.map((p) => p.id)).size, dashboard.panels.length, 'panel ids are unique');
  const wrong: string[] = [];
  for (const panel of dashboard.panels) {
    assert.ok(panel.targets.length > 0, `${panel.title} has a query`);
    for (const t of panel.targets) for (const p of problems(t.expr, metrics)) wrong.push(`${panel.title} (${t.refId}): ${p}`);
  }
  for (const v of dashboard.templating.list) for (const p of problems(v.query.query, metrics)) wrong.push(`variable ${v.name}: ${p}`);
  assert.deepEqual(wrong, []);
});

test('the Prometheus alert rules: each has a name, an expression on exported metrics and labels, a severity and a summary', async () => {
  const metrics = await exported();
  const rules = parse(readFileSync(resolve(CONFIG, 'prometheus-alerts.yaml'), 'utf8')) as {
    groups: { name: string; rules: { alert: string; expr: string; for?: string; labels: { severity: string }; annotations: { summary: string } }[] }[];
  };
  const all = rules.groups.flatMap((g) => g.rules);
  const wrong: string[] = [];
  for (const r of all) {
    assert.match(r.alert, /^Mirrorflow[A-Za-z]+$/);
    assert.match(r.labels.severity, /^(critical|warning)$/, r.alert);
    assert.ok(r.annotations.summary.length > 0, r.alert);
    if (r.for !== undefined) assert.match(r.for, /^\d+[smh]$/, r.alert);
    for (const p of problems(r.expr, metrics)) wrong.push(`${r.alert}: ${p}`);
  }
  assert.deepEqual(wrong, []);
  // What an SRE watching replication needs paged on.
  for (const needed of [
    'mirrorflow_flow_ready',
    'mirrorflow_flow_lag_records',
    'mirrorflow_outage_seconds',
    'mirrorflow_records_dead_lettered_total',
    'mirrorflow_records_expired_total',
    'mirrorflow_checkpoint_age_ms',
    'mirrorflow_heartbeat_age_ms',
  ])
    assert.ok(
      all.some((r) => r.expr.includes(needed)),
      `a rule on ${needed}`,
    );
});

test('the checker catches a wrong name, a wrong label and a wrong grouping', async () => {
  const metrics = await exported();
  assert.deepEqual(problems('rate(mirrorflow_records_replicated_total{topic="x"}[1m])', metrics), []);
  assert.deepEqual(problems('mirrorflow_flow_lag{flow="a"}', metrics), ['mirrorflow_flow_lag is not exported']);
  assert.deepEqual(problems('mirrorflow_flow_lag_records{topic="a"}', metrics), ['mirrorflow_flow_lag_records has no label topic']);
  assert.deepEqual(problems('sum by (group) (mirrorflow_flow_lag_records)', metrics), ['grouping by group, which no metric of the expression has']);
});
