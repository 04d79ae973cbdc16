/**
 * /metrics of a real `mirrorflow run` whose flow drops, dead-letters and masks records,
 * checkpoints a consumer group and writes heartbeats: each metric equals what really happened
 * (records on the target and on the dead-letter topic, the transforms' own counters, the
 * transform failures among the errors by kind), and the
 * counters move as more records are replicated.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { GroupKit } from '../checkpoints/checkpoint-kit';

/** The test plugins (`fail_on_value`), compiled: dist/test/plugins from dist/test/observability. */
const PLUGIN_DIR = resolve(__dirname, '..', 'plugins');

let source: KafkaKit;
let target: KafkaKit;
let groups: GroupKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary), target: new KafkaKit(clusters.backup), groups: new GroupKit(clusters.primary) }),
  (kits) => ({ source, target, groups } = kits),
);

/** Of every 10 records: one carries the header `drop-me` (dropped), one is `poison` (dead-lettered), eight are JSON with a card number (masked). */
function records(count: number, from: number): TestRecord[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      partition: i % 2,
      key: Buffer.from(`k${i}`),
      value: Buffer.from(i % 10 === 5 ? 'poison' : JSON.stringify({ id: i, card: { number: `4111-${i}` } })),
      headers: i % 10 === 0 ? [{ key: 'drop-me', value: Buffer.from('1') }] : [],
      timestamp: Date.now(),
    };
  });
}

/** Every sample of `name` whose labels include `labels`, summed; undefined when there is none. */
function value(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of exposition.split('\n')) {
    const m = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum = (sum ?? 0) + Number(m[3]);
  }
  return sum;
}

describe('/metrics against real brokers', () => {
  test('every metric equals what was replicated, dropped, dead-lettered, masked, checkpointed and heartbeaten, and moves with more records', async () => {
    const p = uniqueName('metrics');
    const topic = `${p}.orders`;
    const remote = `primary.${topic}`;
    const dlq = `${p}-dlq`;
    const group = `${p}-consumers`;
    await source.createTopic(topic, 2);
    await source.produce(topic, records(100, 0));
    // The group coordinator of a fresh cluster answers "loading" for a while: retried until it takes the commit.
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
      flows: [
        {
          topics: [`${p}\\..*`],
          transforms: [
            { type: 'drop', when: { has_header: 'drop-me' } },
            { type: 'fail_on_value', values: ['poison'] },
            { type: 'mask_json_field', fields: ['card.number'] },
          ],
          errors: { tolerance: 'all', deadletterqueue: { topic_name: dlq, replication_factor: 1 } },
          checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, groups: [`${p}-.*`] },
        },
      ],
    });
    const run = spawnPipeline(file, { args: ['--plugin-dir', PLUGIN_DIR] });
    const base = await httpAddress(run);
    const fail = (): string => `mirrorflow stderr:\n${run.stderr().slice(-3000)}`;
    const scrape = async (): Promise<string> => (await fetch(`${base}/metrics`)).text();
    const f = { flow: 'primary->backup' };
    const masked = { ...f, transform: 'mask_json_field', step: '2', counter: 'values_changed' };

    const t = await waitFor(
      async () => {
        const text = await scrape();
        const done =
          value(text, 'mirrorflow_records_replicated_total', f) === 80 &&
          value(text, 'mirrorflow_records_dead_lettered_total', f) === 10 &&
          value(text, 'mirrorflow_flow_lag_records', f) === 0 &&
          (value(text, 'mirrorflow_checkpoints_written_total', f) ?? 0) > 0 &&
          (value(text, 'mirrorflow_heartbeats_written_total', f) ?? 0) > 0;
        return done ? text : undefined;
      },
      { what: `80 records replicated, 10 dead-lettered, lag 0, a checkpoint and a heartbeat\n${fail()}`, timeoutMs: 90_000 },
    );
    assert.equal(await target.count(remote), 80, 'what the records counter says is on the target');
    assert.equal(await target.count(dlq), 10, 'what the dead-letter counter says is on the dead-letter topic');
    for (const partition of ['0', '1']) {
      assert.equal(value(t, 'mirrorflow_records_replicated_total', { ...f, topic, partition }), 40);
      assert.equal(value(t, 'mirrorflow_offset_lag_records', { ...f, topic, partition }), 0);
      assert.ok((value(t, 'mirrorflow_bytes_replicated_total', { ...f, topic, partition }) ?? 0) > 0);
    }
    assert.equal(value(t, 'mirrorflow_records_dropped_total', f), 10);
    assert.equal(
      value(t, 'mirrorflow_errors_total', { ...f, kind: 'transform-failed', cluster: 'primary' }),
      10,
      'each dead-lettered record is a transform failure',
    );
    assert.equal(value(t, 'mirrorflow_errors_total', { ...f, kind: 'record-refused' }), undefined, 'the target refused nothing');
    assert.equal(value(t, 'mirrorflow_transform_counter_total', masked), 80, 'the plugin counted every value it masked');
    assert.equal(value(t, 'mirrorflow_transform_counter_total', { ...masked, counter: 'values_not_json' }), 0);
    assert.equal(value(t, 'mirrorflow_topics', f), 1);
    assert.equal(value(t, 'mirrorflow_topics_created_total', f), 1, 'the remote topic (the dead-letter topic is not a replicated one)');
    assert.equal(value(t, 'mirrorflow_records_reencoded_total', f), 80, 'transformed records cannot travel in their source batches');
    assert.equal(value(t, 'mirrorflow_partitions', f), 2);
    assert.equal(value(t, 'mirrorflow_flow_state', { ...f, state: 'running' }), 1);
    assert.equal(value(t, 'mirrorflow_checkpoint_groups', f), 1);
    assert.ok((value(t, 'mirrorflow_writes_total', f) ?? 0) > 0);
    assert.ok((value(t, 'mirrorflow_buffer_max_bytes', f) ?? 0) > 0);
    for (const name of [
      // Histograms: every replicated record observed once.
      'mirrorflow_record_age_ms_count',
      'mirrorflow_replication_latency_ms_count',
      'mirrorflow_checkpoint_latency_ms',
      'mirrorflow_checkpoint_age_ms',
      'mirrorflow_heartbeat_age_ms',
      'mirrorflow_buffer_bytes',
    ]) {
      const v = value(t, name, f);
      assert.ok(v !== undefined && v >= 0, `${name} is reported (${v})`);
    }
    assert.equal(value(t, 'mirrorflow_replication_latency_ms_count', f), 80, 'each replicated record is one observation');
    assert.ok((value(t, 'mirrorflow_process_cpu_seconds_total') ?? 0) > 0, "the process's own metrics");
    assert.equal(value(t, 'mirrorflow_outage_seconds'), undefined, 'no outage, no series');

    // More records: the counters move by exactly what was replicated.
    const heartbeats = value(t, 'mirrorflow_heartbeats_written_total', f)!;
    await source.produce(topic, records(20, 100));
    const moved = await waitFor(
      async () => {
        const text = await scrape();
        const done =
          value(text, 'mirrorflow_records_replicated_total', f) === 96 &&
          value(text, 'mirrorflow_flow_lag_records', f) === 0 &&
          value(text, 'mirrorflow_heartbeats_written_total', f)! > heartbeats;
        return done ? text : undefined;
      },
      { what: `96 records replicated and another heartbeat\n${fail()}`, timeoutMs: 60_000 },
    );
    assert.equal(value(moved, 'mirrorflow_transform_counter_total', masked), 96);
    assert.equal(value(moved, 'mirrorflow_records_dropped_total', f), 12);
    assert.equal(value(moved, 'mirrorflow_records_dead_lettered_total', f), 12);
    assert.equal(value(moved, 'mirrorflow_errors_total', { ...f, kind: 'transform-failed', cluster: 'primary' }), 12);
    assert.equal(await target.count(remote), 96);

    run.kill('SIGTERM');
    assert.equal((await run.exited).code, 0);
  });
});
