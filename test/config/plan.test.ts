/**
 * `mirrorflow plan` (issue #4) against the two test clusters: it shows what each flow would do —
 * matching topics and their remote names, partition counts, checkpointed groups, internal topics,
 * problems — and writes nothing: no topic and no consumer group appears on either cluster.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import type { PipelinePlan } from '../../src/pipeline';
import { ClusterInventory, mirrorflow } from './cli';

const EX_UNAVAILABLE = 69;

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let primaryInventory: ClusterInventory;
let backupInventory: ClusterInventory;
let dir: string;

sharedClusterKits(
  'mirrorflow-plan-',
  (opened) => ({ primaryInventory: new ClusterInventory(opened.primary), backupInventory: new ClusterInventory(opened.backup) }),
  (kits) => ({ clusters, primary, backup, primaryInventory, backupInventory, dir } = kits),
);

describe('mirrorflow plan', () => {
  test('shows topics, remote topics, partition counts, checkpointed groups and problems, and writes nothing', async () => {
    const p = uniqueName('plan');
    const src = `s${p}`;
    const dst = `d${p}`;
    await primary.createTopic(`${p}-orders`, 3);
    await primary.createTopic(`${p}-payments`, 2);
    await primary.createTopic(`${p}-other`, 1);
    await backup.createTopic(`${src}.${p}-payments`, 1);
    await primaryInventory.commitOffsets(`${p}-app`, `${p}-orders`, [0, 0, 0]);
    await primaryInventory.commitOffsets(`${p}-unrelated`, `${p}-other`, [0]);
    await primaryInventory.commitOffsets(`console-consumer-${p}`, `${p}-orders`, [0, 0, 0]);

    const file = join(dir, `${p}.properties`);
    writeFileSync(
      file,
      [
        `clusters = ${src}, ${dst}`,
        `${src}.bootstrap.servers = ${clusters.primary}`,
        `${dst}.bootstrap.servers = ${clusters.backup}`,
        `${src}->${dst}.enabled = true`,
        `${src}->${dst}.topics = ${p}-(orders|payments)`,
        // Other tests' heartbeats topics would show up too.
        'heartbeats.replication.enabled = false',
        'replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        'offset.storage.replication.factor = 1',
        'sync.topic.acls.enabled = false',
      ].join('\n'),
    );
    const watched = [p, src, dst];
    const before = await Promise.all([primaryInventory.namesContaining(watched), backupInventory.namesContaining(watched)]);

    const run = await mirrorflow(['plan', file, '--json']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /The plan found 1 problem; see above/);
    const plan = JSON.parse(run.stdout) as PipelinePlan;
    assert.deepEqual(
      plan.clusters.map((c) => [c.alias, c.reachable]),
      [
        [src, true],
        [dst, true],
      ],
    );
    const flow = plan.flows.find((f) => f.flow === `${src}->${dst}`)!;
    assert.equal(flow.mode, 'replication');
    assert.deepEqual(flow.topics, [
      { source: `${p}-orders`, partitions: 3, remote: `${src}.${p}-orders` },
      {
        source: `${p}-payments`,
        partitions: 2,
        remote: `${src}.${p}-payments`,
        remotePartitions: 1,
        problem: `${src}.${p}-payments has 1 partition, fewer than ${p}-payments (2); replication would add partitions, so keys would land in other partitions than before`,
      },
    ]);
    assert.deepEqual(flow.groups, [`${p}-app`]);
    assert.deepEqual(
      flow.internalTopics.filter((t) => t.purpose !== 'heartbeats'),
      [
        { topic: `mm2-offsets.${src}.internal`, cluster: dst, purpose: 'replication progress', exists: false },
        { topic: `mm2-offset-syncs.${dst}.internal`, cluster: src, purpose: 'offset syncs', exists: false },
        { topic: `${src}.checkpoints.internal`, cluster: dst, purpose: 'checkpoints', exists: false },
      ],
    );
    assert.deepEqual(
      plan.flows.map((f) => [f.flow, f.mode]),
      [
        [`${src}->${dst}`, 'replication'],
        [`${dst}->${src}`, 'heartbeats only'],
      ],
    );

    // The same in text, with --set taking effect.
    const text = await mirrorflow(['plan', file, '--set', `${src}->${dst}.topics=${p}-orders`]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(
        `Flow ${src}->${dst} \\(replication\\)\\n  Reads ${src} read_committed: records of aborted transactions are not copied\\n  Topics: 1 of \\d+ on ${src} match\\n    ${p}-orders \\(3\\)  ->  ${src}\\.${p}-orders  would be created with 3 partitions`,
      ),
    );
    assert.match(text.stdout, new RegExp(`Checkpointed groups \\(1\\): ${p}-app`));
    assert.match(text.stdout, /No problems found\./);

    const afterwards = await Promise.all([primaryInventory.namesContaining(watched), backupInventory.namesContaining(watched)]);
    assert.deepEqual(afterwards, before, 'plan must not create topics or consumer groups');
  });

  test('names an unreachable cluster, still plans nothing against it, and exits 69', async () => {
    const p = uniqueName('plan-down');
    const file = join(dir, `${p}.yaml`);
    writeFileSync(
      file,
      [
        'clusters:',
        `  up: { bootstrap_servers: ["${clusters.primary}"] }`,
        '  down: { bootstrap_servers: ["127.0.0.1:1"], connection_timeout_ms: 1000 }',
        'flows:',
        `  - { source: up, target: down, topics: ["${p}-.*"] }`,
      ].join('\n'),
    );
    const run = await mirrorflow(['plan', file]);
    assert.equal(run.code, EX_UNAVAILABLE, run.stderr);
    assert.match(run.stdout, /down +127\.0\.0\.1:1 +✗ unreachable: Cluster "down": cannot be reached/);
    assert.match(run.stdout, /✗ cluster down is unreachable, so this flow cannot be planned/);
    assert.match(run.stderr, /Cluster "down": cannot be reached; the plan above is incomplete/);
  });
});
