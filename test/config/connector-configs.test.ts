/**
 * MM2 run the other ways its documentation shows (issue #18), through the real CLI on the test
 * clusters: the three connector configs people hand to a Connect cluster (a
 * `connect-mirror-source.properties`, a checkpoint connector as `POST /connectors` takes it, a
 * heartbeat connector as `PUT /connectors/{name}/config` takes it) make one flow that replicates
 * byte for byte and writes MM2's checkpoints and heartbeats; and KIP-382's "emulate legacy
 * mirror-maker" driver file replicates under the same topic names, creates no checkpoint,
 * heartbeat or offset-sync topic, and leaves a topic created after the start alone.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { spawnCli } from '../support/pipeline-harness';
import { GroupKit } from '../checkpoints/checkpoint-kit';
import { mirrorflow } from './cli';

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let groups: GroupKit;
let dir: string;

sharedClusterKits(
  'mirrorflow-connectors-',
  (opened) => ({ groups: new GroupKit(opened.backup) }),
  (kits) => ({ clusters, primary, backup, groups, dir } = kits),
);

// Recent timestamps: the legacy flow copies no topic configs, so remote topics keep the broker's time retention.
const START = Date.now();
const records = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from([0, 255, from + i, 10, 13]),
    headers: [{ key: 'trace', value: Buffer.from(`t${from + i}`) }],
    timestamp: START + from + i,
  }));

/** What a reader of the target sees of a record, for a byte-exact comparison. */
const seen = (r: {
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers: readonly { key: string; value: Buffer | null }[];
}) => [r.partition, r.offset, r.key?.toString('hex'), r.value?.toString('hex'), r.timestamp, r.headers.map((h) => [h.key, h.value?.toString('hex')])] as const;

describe('MM2 connector configs', () => {
  test('source, checkpoint and heartbeat connectors replicate byte for byte and write checkpoints and heartbeats in MM2 format', async () => {
    const p = uniqueName('conn');
    const source = `up-${p}`;
    const target = `down-${p}`;
    const topic = `${p}-orders`;
    const group = `${p}-billing`;
    await primary.createTopic(topic, 2);
    await primary.produce(topic, records(0, 40));
    const sourceGroups = new GroupKit(clusters.primary);
    try {
      // A fresh cluster's group coordinator may still be loading: commit once it answers.
      await waitFor(
        async () => {
          await sourceGroups.commit(group, [
            { topic, partition: 0, offset: 20 },
            { topic, partition: 1, offset: 20 },
          ]);
          return true;
        },
        { what: `offsets committed for ${group}`, timeoutMs: 30_000 },
      );
    } finally {
      await sourceGroups.close();
    }

    // connect-mirror-source.properties, as Kafka's documentation writes it for a Connect cluster.
    const sourceFile = join(dir, `${p}-connect-mirror-source.properties`);
    writeFileSync(
      sourceFile,
      [
        'name = mm2-source',
        'connector.class = org.apache.kafka.connect.mirror.MirrorSourceConnector',
        'tasks.max = 1',
        `topics = ${p}-.*`,
        `source.cluster.alias = ${source}`,
        `target.cluster.alias = ${target}`,
        `source.cluster.bootstrap.servers = ${clusters.primary}`,
        `target.cluster.bootstrap.servers = ${clusters.backup}`,
        'key.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
        'value.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
        'replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        'sync.topic.acls.enabled = false',
        'offset.lag.max = 0',
      ].join('\n'),
    );
    // POST /connectors, as curl users keep it in a file.
    const checkpointFile = join(dir, `${p}-checkpoint.json`);
    writeFileSync(
      checkpointFile,
      JSON.stringify(
        {
          name: 'mm2-checkpoint',
          config: {
            'connector.class': 'MirrorCheckpointConnector',
            'tasks.max': '1',
            'source.cluster.alias': source,
            'target.cluster.alias': target,
            'source.cluster.bootstrap.servers': clusters.primary,
            'target.cluster.bootstrap.servers': clusters.backup,
            topics: `${p}-.*`,
            groups: `${p}-.*`,
            'emit.checkpoints.interval.seconds': '1',
            'checkpoints.topic.replication.factor': '1',
            'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
            'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
          },
        },
        null,
        2,
      ),
    );
    // PUT /connectors/mm2-heartbeat/config: the config map alone.
    const heartbeatFile = join(dir, `${p}-heartbeat.json`);
    writeFileSync(
      heartbeatFile,
      JSON.stringify(
        {
          'connector.class': 'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
          'source.cluster.alias': source,
          'target.cluster.alias': target,
          'target.cluster.bootstrap.servers': clusters.backup,
          'emit.heartbeats.interval.seconds': '1',
          'heartbeats.topic.replication.factor': '1',
        },
        null,
        2,
      ),
    );
    const files = [sourceFile, checkpointFile, heartbeatFile];

    const validated = await mirrorflow(['validate', ...files]);
    assert.equal(validated.code, 0, validated.stderr);
    assert.equal(validated.stdout, `${files.join(', ')}: ok\n`);
    const yaml = join(dir, `${p}.yaml`);
    const converted = await mirrorflow(['convert', ...files, '-o', yaml]);
    assert.equal(converted.code, 0, converted.stderr);
    // The connector's tasks.max becomes the flow's slot count (what an exactly-once flow shares out).
    assert.match(readFileSync(yaml, 'utf8'), /tasks: 1 # tasks\.max \(.*connect-mirror-source\.properties line 3\)/);

    const run = spawnCli(['run', ...files, '--status-interval', '0', '--http', 'off']);
    const remote = `${source}.${topic}`;
    try {
      await waitFor(async () => (await backup.count(remote)) >= 40, { what: `40 records in ${remote}`, timeoutMs: 60_000 });
      const [sent, copied] = await Promise.all([primary.readAllFlat(topic), backup.readAllFlat(remote)]);
      assert.deepEqual(copied.map(seen).sort(), sent.map(seen).sort());

      await waitFor(async () => (await groups.heartbeats('heartbeats')).some((h) => h.sourceClusterAlias === source && h.targetClusterAlias === target), {
        what: `a ${source}->${target} heartbeat in heartbeats on the target`,
        timeoutMs: 60_000,
      });
      const checkpointsTopic = `${source}.checkpoints.internal`;
      await waitFor(async () => (await groups.checkpoints(checkpointsTopic, group)).size === 2, { what: `checkpoints of ${group}`, timeoutMs: 60_000 });
      const checkpoints = await groups.checkpoints(checkpointsTopic, group);
      for (const partition of [0, 1]) {
        const checkpoint = [...checkpoints.values()].find((c) => c.topicPartition.partition === partition);
        assert.deepEqual([checkpoint?.topicPartition.topic, checkpoint?.upstreamOffset], [remote, 20], `the checkpoint of partition ${partition}`);
        // A consumer moving to the target resumes at or before where it was: nothing skipped.
        assert.ok(checkpoint!.downstreamOffset > 0 && checkpoint!.downstreamOffset <= 20, `downstream offset ${checkpoint!.downstreamOffset}`);
      }
    } finally {
      run.kill('SIGTERM');
      const exit = await run.exited;
      assert.equal(exit.code, 0, exit.stderr);
    }
  });

  test('a converter mirrorflow lacks, an unknown connector and a missing alias are refused, naming the file, line and key', async () => {
    const p = uniqueName('connbad');
    const file = join(dir, `${p}-source.properties`);
    writeFileSync(
      file,
      [
        'name = mm2-source',
        'connector.class = MirrorSourceConnector',
        'source.cluster.alias = up',
        `source.cluster.bootstrap.servers = ${clusters.primary}`,
        `target.cluster.bootstrap.servers = ${clusters.backup}`,
        'value.converter = com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter',
      ].join('\n'),
    );
    const sink = join(dir, `${p}-sink.json`);
    writeFileSync(sink, JSON.stringify({ name: 'x', config: { 'connector.class': 'MirrorSinkConnector' } }, null, 2));
    const refused = await mirrorflow(['run', file, '--http', 'off']);
    assert.equal(refused.code, 78, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(
        `${p}-source\\.properties:6:19: value\\.converter: names Java code, which mirrorflow cannot run: com\\.amazonaws\\.services\\.schemaregistry\\.kafkaconnect\\.AWSKafkaAvroConverter is not a converter mirrorflow has`,
      ),
    );
    const both = await mirrorflow(['validate', file, sink]);
    assert.equal(both.code, 78, both.stderr);
    assert.match(both.stderr, new RegExp(`${p}-sink\\.json:4:24: connector\\.class: MirrorSinkConnector is not one of MM2's connectors`));
  });
});

describe("MM2's legacy mode (KIP-382: emulate legacy mirror-maker)", () => {
  test('replicates under the same topic names, creates no checkpoint, heartbeat or offset-sync topic, and leaves later topics alone', async () => {
    const p = uniqueName('legacy');
    const [source, target] = [`src-${p}`, `dst-${p}`];
    const topic = `${p}-payments`;
    await primary.createTopic(topic, 2);
    await primary.produce(topic, records(0, 30));
    const file = join(dir, `${p}-legacy.properties`);
    writeFileSync(
      file,
      [
        `clusters = ${source}, ${target}`,
        `${source}.bootstrap.servers = ${clusters.primary}`,
        `${target}.bootstrap.servers = ${clusters.backup}`,
        `${source}->${target}.enabled = true`,
        `${source}->${target}.topics = ${p}-.*`,
        '# emulate legacy mirror-maker',
        'replication.policy.class = org.apache.kafka.mirror.LegacyReplicationPolicy',
        'refresh.topics.enabled = false',
        // Were refreshes on, a new topic would be found within a second.
        'refresh.topics.interval.seconds = 1',
        'refresh.groups.enabled = false',
        'emit.checkpoints.enabled = false',
        'emit.heartbeats.enabled = false',
        'sync.topic.configs.enabled = false',
        'sync.topic.acls.enabled = false',
        'replication.factor = 1',
        'offset.storage.replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        `${target}.offset.flush.interval.ms = 500`,
      ].join('\n'),
    );
    const validated = await mirrorflow(['validate', file]);
    assert.equal(validated.code, 0, validated.stderr);
    assert.match(
      validated.stderr,
      /:7:1: warning: replication\.policy\.class: org\.apache\.kafka\.mirror\.LegacyReplicationPolicy is KIP-382's name for .*IdentityReplicationPolicy/,
    );

    const run = spawnCli(['run', file, '--status-interval', '0', '--http', 'off']);
    const later = `${p}-later`;
    try {
      await waitFor(async () => (await backup.count(topic)) >= 30, { what: `30 records in ${topic} on the target`, timeoutMs: 60_000 });
      const [sent, copied] = await Promise.all([primary.readAllFlat(topic), backup.readAllFlat(topic)]);
      assert.deepEqual(copied.map(seen).sort(), sent.map(seen).sort());

      // A topic that appears after the start: with the topic set fixed, it is never replicated,
      // while the first one goes on replicating.
      await primary.createTopic(later, 2);
      await primary.produce(later, records(100, 5));
      const created = Date.now();
      await primary.produce(topic, records(30, 10));
      await waitFor(async () => (await backup.count(topic)) >= 40, { what: `40 records in ${topic} on the target`, timeoutMs: 60_000 });
      // Something that does not happen has no event to await: give refreshes five intervals to
      // (wrongly) find the new topic; replication of the first one goes on meanwhile.
      await waitFor(async () => Date.now() - created > 5_000 && (await backup.count(topic)) === 40, { what: 'five refresh intervals', timeoutMs: 30_000 });
    } finally {
      run.kill('SIGTERM');
      const exit = await run.exited;
      assert.equal(exit.code, 0, exit.stderr);
    }
    const targetTopics = await backup.topics();
    assert.equal(targetTopics.has(later), false, `${later} was replicated`);
    assert.equal(targetTopics.has(`${source}.${topic}`), false, 'the topic was renamed');
    // Heartbeats topics are replicated whatever the topic filter says, in legacy mode too (MM2
    // does the same): other tests' on these shared clusters arrive as `<source>.….heartbeats`.
    // Those are copies, not internal topics of this flow.
    const replicatedHeartbeats = (t: string): boolean => t.startsWith(`${source}.`) && t.endsWith('heartbeats');
    const internal = [...targetTopics.keys(), ...(await primary.topics()).keys()].filter(
      (t) => t.includes(p) && !replicatedHeartbeats(t) && (t.includes('checkpoints') || t.includes('heartbeats') || t.includes('offset-syncs')),
    );
    assert.deepEqual(internal, []);
    assert.equal([...(await primary.topics()).keys()].includes(`mm2-offset-syncs.${target}.internal`), false, 'an offset-syncs topic was created');
    assert.equal(targetTopics.has('heartbeats') && (await groups.heartbeats('heartbeats')).some((h) => h.sourceClusterAlias === source), false);
  });
});
