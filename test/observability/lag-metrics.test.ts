/**
 * The lag an SRE acts on, from a real `mirrorflow run` with checkpoints: per group, how many
 * records a consumer failing over at its checkpoint would read again (equal to what the
 * checkpoints on the target really say), and the offset lag as time, 0 once caught up — in
 * /metrics and in /status alike.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, keyedRecords } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { GroupKit } from '../checkpoints/checkpoint-kit';
import type { StatusDocument } from '../../src/telemetry';

let source: KafkaKit;
let sourceGroups: GroupKit;
let targetGroups: GroupKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary), sourceGroups: new GroupKit(clusters.primary), targetGroups: new GroupKit(clusters.backup) }),
  (kits) => ({ source, sourceGroups, targetGroups } = kits),
);

/** The one sample of `name` with these labels among them; undefined when there is none. */
function sample(exposition: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of exposition.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('translation lag and lag as time against real brokers', () => {
  test("a group's translation lag is what its checkpoints make a failover read again; lag in time is 0 when caught up", async () => {
    const p = uniqueName('lagm');
    const topic = `${p}.events`;
    const group = `${p}-app`;
    const checkpointsTopic = 'primary.checkpoints.internal';
    await source.createTopic(topic, 2);
    await source.produce(topic, keyedRecords(100, 2));
    const commit = async (offset: number): Promise<boolean> =>
      waitFor(
        async () => {
          await sourceGroups.commit(group, [
            { topic, partition: 0, offset },
            { topic, partition: 1, offset },
          ]);
          return true;
        },
        { what: `offsets of ${group} committed at ${offset}`, timeoutMs: 60_000 },
      );
    await commit(40);

    const { file } = await writePipeline({
      flows: [{ topics: [`${p}\\..*`], checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, groups: [`${p}-.*`] } }],
    });
    const run = spawnPipeline(file);
    const base = await httpAddress(run);
    const fail = (): string => `mirrorflow stderr:\n${run.stderr().slice(-3000)}`;
    const f = { flow: 'primary->backup' };

    /**
     * Records a consumer of the group, at `committed` on the source, reads again when it resumes
     * on the target at its checkpoints (remote offsets equal source offsets here: no transforms).
     */
    const reread = async (committed: number): Promise<number | undefined> => {
      const cps = [...(await targetGroups.checkpoints(checkpointsTopic, group)).values()];
      return cps.length === 2 ? cps.reduce((sum, c) => sum + (committed - c.downstreamOffset), 0) : undefined;
    };

    for (const committed of [40, 50]) {
      if (committed === 50) await commit(50);
      let expected: number | undefined;
      const text = await waitFor(
        async () => {
          const t = await (await fetch(`${base}/metrics`)).text();
          expected = await reread(committed);
          const done =
            expected !== undefined &&
            sample(t, 'mirrorflow_checkpoint_translation_lag_records', { ...f, group }) === expected &&
            sample(t, 'mirrorflow_flow_lag_records', f) === 0;
          return done ? t : undefined;
        },
        {
          what: `translation lag of ${group} at ${committed} equal to what its checkpoints make a failover read again (${expected}), offset lag 0\n${fail()}`,
          timeoutMs: 90_000,
        },
      );
      assert.ok(expected !== undefined);
      if (committed === 40) assert.ok(expected > 0, `a group behind the last offset sync re-reads records on failover (${expected})`);
      for (const partition of ['0', '1'])
        assert.equal(sample(text, 'mirrorflow_offset_lag_ms', { ...f, topic, partition }), 0, `caught up: no lag in time (${partition})`);
      assert.equal(sample(text, 'mirrorflow_flow_lag_ms', f), 0);

      const status = (await (await fetch(`${base}/status`)).json()) as StatusDocument;
      const flow = status.flows.find((s) => s.name === 'primary->backup')!;
      assert.deepEqual(
        flow.checkpoints.translationLag.filter((g) => g.group === group),
        [{ group, records: expected }],
      );
      assert.equal(flow.lagMs, 0);
      assert.deepEqual(
        flow.partitions.filter((x) => x.topic === topic).map((x) => [x.partition, x.lag, x.lagMs]),
        [
          [0, 0, 0],
          [1, 0, 0],
        ],
      );
    }

    run.kill('SIGTERM');
    assert.equal((await run.exited).code, 0);
  });
});
