/**
 * Strimzi's MM2 dashboard and alert rules against a real `mirrorflow run` (issue #39): each of
 * their PromQL expressions (strimzi-mm2-queries.ts, verbatim) is evaluated against two scrapes of
 * /metrics, with the target labels a Strimzi deployment's scrape adds, and must return series
 * with values (the metric names, labels and label values it matches all exist); the alerts read
 * real series and do not fire while all is well. Only what comes from outside the process
 * (cAdvisor) or is the JVM's is left out, each saying why.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { GroupKit } from '../checkpoints/checkpoint-kit';
import { evaluate, parseExposition, type Scrape } from '../support/promql';
import { ALERTS, DASHBOARD, DASHBOARD_VARIABLES, TARGET_LABELS } from './strimzi-mm2-queries';

let source: KafkaKit;
let target: KafkaKit;
let groups: GroupKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary), target: new KafkaKit(clusters.backup), groups: new GroupKit(clusters.primary) }),
  (kits) => ({ source, target, groups } = kits),
);

const records = (count: number, from: number): TestRecord[] =>
  Array.from({ length: count }, (_, k) => ({
    partition: (from + k) % 2,
    key: Buffer.from(`k${from + k}`),
    value: Buffer.from(`v${from + k}`),
    headers: [],
    timestamp: Date.now(),
  }));

const withVariables = (expr: string): string => expr.replace(/\$([a-z_]+)/g, (_, name: string) => DASHBOARD_VARIABLES[name] ?? `$${name}`);

describe("Strimzi's MirrorMaker 2 dashboard and alerts", () => {
  test('every expression on series the process serves returns series against a real run', async () => {
    const p = uniqueName('strimzi');
    const topic = `${p}.orders`;
    const group = `${p}-consumers`;
    await source.createTopic(topic, 2);
    await source.produce(topic, records(100, 0));
    await waitFor(
      async () => {
        await groups.commit(group, [
          { topic, partition: 0, offset: 40 },
          { topic, partition: 1, offset: 40 },
        ]);
        return true;
      },
      { what: `offsets of ${group} committed on the source`, timeoutMs: 60_000 },
    );
    const { file } = await writePipeline({
      flows: [{ topics: [`${p}\\..*`], checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, groups: [`${p}-.*`] } }],
    });
    const run = spawnPipeline(file);
    const base = await httpAddress(run);
    const scrape = async (): Promise<Scrape> => ({ at: Date.now(), samples: parseExposition(await (await fetch(`${base}/metrics`)).text(), TARGET_LABELS) });
    const count = (s: Scrape, name: string): number => s.samples.filter((x) => x.labels['__name__'] === name).length;
    const first = await waitFor(
      async () => {
        const s = await scrape();
        return count(s, 'kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms') > 0 &&
          count(s, 'kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms') === 2
          ? s
          : undefined;
      },
      { what: `records replicated and a checkpoint written\n${run.stderr().slice(-2000)}`, timeoutMs: 90_000 },
    );
    // More records, so that rates and counters move between the scrapes, as Prometheus sees them.
    await source.produce(topic, records(50, 100));
    await waitFor(async () => (await target.count(`primary.${topic}`)) >= 150, { what: 'the second records on the target', timeoutMs: 60_000 });
    const second = await scrape();
    const scrapes = [first, second];

    const empty: string[] = [];
    for (const q of DASHBOARD) {
      if (q.outside !== undefined) continue;
      const series = evaluate(withVariables(q.expr), scrapes);
      if (series.length === 0 || series.some((s) => Number.isNaN(s.value))) empty.push(`${q.title}: ${q.expr} gave ${JSON.stringify(series)}`);
    }
    assert.deepEqual(empty, []);
    assert.ok(DASHBOARD.filter((q) => q.outside === undefined).length >= 20, 'the dashboard is read, not left out');

    // What the panels show is what happened: remote topic names, the replicated records, two tasks' worth of connectors.
    const byTopic = evaluate('sum(kafka_connect_mirror_mirrorsourceconnector_record_count) by (topic)', scrapes);
    assert.deepEqual(
      byTopic.map((s) => [s.labels['topic'], s.value]),
      [[`primary.${topic}`, 150]],
    );
    assert.deepEqual(
      evaluate('sum(kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms) by (group, topic)', scrapes).map((s) => [
        s.labels['group'],
        s.labels['topic'],
      ]),
      [[group, `primary.${topic}`]],
    );
    assert.ok(evaluate('sum(kafka_connect_mirror_mirrorsourceconnector_record_rate)', scrapes)[0]!.value > 0);
    assert.equal(evaluate('sum(kafka_connect_worker_connector_count)', scrapes)[0]!.value, 3);

    for (const a of ALERTS) {
      if (a.outside !== undefined) continue;
      assert.deepEqual(evaluate(a.expr, scrapes), [], `${a.alert} does not fire while all is well`);
      assert.ok(evaluate(a.series!, scrapes).length > 0, `${a.alert} reads series that exist`);
    }
    run.kill('SIGTERM');
    assert.equal((await run.exited).code, 0);
  });

  test('the evaluator refuses what it cannot answer honestly: unknown functions, grouping by a label no series has', () => {
    const s: Scrape = { at: 0, samples: parseExposition('m{a="1"} 2\nm{a="2"} 3\n', { job: 'x' }) };
    assert.deepEqual(
      evaluate('sum(m) by (a)', [s]).map((x) => x.value),
      [2, 3],
    );
    assert.deepEqual(evaluate('sum(m{a=~"1|2"}) / count(m) > 2', [s]), [{ labels: {}, value: 2.5 }]);
    assert.throws(() => evaluate('sum(m) by (b)', [s]), /no series has the label b/);
    assert.throws(() => evaluate('irate(m[5m])', [s]), /not known/);
  });
});
