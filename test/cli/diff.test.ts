/**
 * `mirrorflow diff` on a drifted pair of real clusters: what it reports per topic (missing,
 * partitions, configs with what the sync would do or why it would not), remote topics whose
 * source is gone, and its exit codes (1 with drift, 0 once the flow repaired what it can and the
 * orphan is gone). It must change nothing itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, startPipeline, writePipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

interface DiffJson {
  readonly drift: number;
  readonly kept: number;
  readonly flows: readonly {
    readonly topics: readonly {
      readonly source: string;
      readonly remote: string;
      readonly sourcePartitions: number;
      readonly remotePartitions?: number;
      readonly configs: readonly { name: string; sourceValue: string | null; targetValue: string | null; change?: unknown; keptBecause?: string }[];
    }[];
    readonly inSync: number;
    readonly orphans: readonly { remote: string; source: string }[];
  }[];
}

describe('mirrorflow diff', () => {
  test('reports a drifted pair, exits 1, changes nothing; exits 0 once the flow synced it and the orphan is gone', async () => {
    const p = uniqueName('diff');
    const [drifted, missing, same, gone] = ['drifted', 'missing', 'same', 'gone'].map((n) => `${p}-${n}`) as [string, string, string, string];
    await source.createTopic(drifted, 3, { 'retention.bytes': '1000', 'delete.retention.ms': '1000' });
    await target.createTopic(`primary.${drifted}`, 2, { 'delete.retention.ms': '2000' });
    await source.createTopic(missing, 1);
    await source.createTopic(same, 1);
    await target.createTopic(`primary.${same}`, 1);
    await target.createTopic(`primary.${gone}`, 1);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], topic_sync: { configs_exclude: ['delete\\.retention\\..*'] } }] });
    const json = await runCli(['diff', file, '--json']);
    assert.equal(json.code, 1, json.stderr);
    const report = JSON.parse(json.stdout) as DiffJson;
    const flow = report.flows[0]!;
    assert.deepEqual(
      flow.topics.map((t) => [t.source, t.remote, t.sourcePartitions, t.remotePartitions]),
      [
        [drifted, `primary.${drifted}`, 3, 2],
        [missing, `primary.${missing}`, 1, undefined],
      ],
    );
    assert.deepEqual(flow.topics[0]!.configs, [
      { name: 'delete.retention.ms', sourceValue: '1000', targetValue: '2000', keptBecause: 'excluded by topic_sync.configs_exclude' },
      { name: 'retention.bytes', sourceValue: '1000', targetValue: '-1', change: { op: 'set', name: 'retention.bytes', value: '1000' } },
    ]);
    assert.equal(flow.inSync, 1, `${same} is in sync`);
    assert.deepEqual(flow.orphans, [{ remote: `primary.${gone}`, source: gone }]);
    // Partitions, retention.bytes, the missing topic and the orphan; the excluded config is kept.
    assert.deepEqual([report.drift, report.kept], [4, 1]);

    const text = await runCli(['diff', file]);
    assert.equal(text.code, 1);
    for (const line of [
      `  ${drifted} -> primary.${drifted}`,
      '    ✗ partitions: 3 on primary, 2 on backup (the next topic refresh adds 1)',
      '    ✗ retention.bytes: primary 1000, backup -1 (the sync sets 1000)',
      '    · delete.retention.ms: primary 1000, backup 2000 (kept: excluded by topic_sync.configs_exclude)',
      `    ✗ missing on backup (created at the next topic refresh)`,
      `  ✗ primary.${gone}: its source topic ${gone} is gone from primary`,
      'Drift: 4; 1 difference kept on purpose.',
    ]) {
      assert.ok(text.stdout.includes(`${line}\n`), `"${line}" in:\n${text.stdout}`);
    }
    assert.match(text.stderr, /Drift found: 4 differences/);
    // Read-only: nothing was created, grown or changed.
    assert.equal((await target.topics()).get(`primary.${drifted}`), 2);
    assert.equal((await target.topics()).has(`primary.${missing}`), false);
    assert.equal((await target.topicConfigs(`primary.${drifted}`)).get('retention.bytes')?.value, '-1');

    // The flow repairs what it can; the orphan is for people to delete.
    const run = await startPipeline(file);
    try {
      await run.until(
        async () =>
          (await target.topics()).get(`primary.${drifted}`) === 3 &&
          (await target.topics()).has(`primary.${missing}`) &&
          (await target.topicConfigs(`primary.${drifted}`)).get('retention.bytes')?.value === '1000',
        { what: 'the flow to create, grow and sync the remote topics', timeoutMs: 30_000 },
      );
    } finally {
      await run.stop();
    }
    await target.deleteTopic(`primary.${gone}`);
    const after = await runCli(['diff', file]);
    assert.equal(after.code, 0, after.stdout + after.stderr);
    assert.ok(after.stdout.includes('In sync; 1 difference kept on purpose.\n'), after.stdout);
    const strict = await runCli(['diff', file, '--strict']);
    assert.equal(strict.code, 1, 'with --strict, the kept difference is drift');
  });
});
