/**
 * Field-level Connect SMTs in an mm2.properties file, with JsonConverter (schemas.enable=false)
 * as MM2 users configure it: records written by Kafka's own Java console producer go through
 * InsertField$Value, ReplaceField$Value and Cast$Value, and a consumer of the target reads the
 * JSON Connect would have written (the expected texts are what Kafka 4.3.1's own classes give on
 * JDK 17 for these field names, field order included); a tombstone stays a tombstone, and keys
 * keep their bytes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultKafkaVersion, ensureKafkaDistribution, javaCommand } from '../../src/local';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { spawnCli } from '../support/pipeline-harness';

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let dir: string;

sharedClusterKits('mirrorflow-mm2-field-smts-', (kits) => ({ clusters, primary, backup, dir } = kits));

/** `kafka-console-producer` with `key<TAB>value` lines and `<null>` for a null value. */
async function consoleProduce(bootstrap: string, topic: string, lines: readonly string[]): Promise<void> {
  const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
  const java = javaCommand(distribution, {
    mainClass: 'org.apache.kafka.tools.ConsoleProducer',
    profile: 'tool',
    args: ['--bootstrap-server', bootstrap, '--topic', topic, '--property', 'parse.key=true', '--property', 'null.marker=<null>'],
  });
  await new Promise<void>((resolve, reject) => {
    const child = execFile(java.command, java.args, { timeout: 120_000, killSignal: 'SIGKILL' }, (error, _stdout, stderr) =>
      error ? reject(new Error(`The Java console producer failed: ${error.message}\n${stderr.slice(-3000)}`, { cause: error })) : resolve(),
    );
    child.stdin!.end(lines.map((line) => `${line}\n`).join(''));
  });
}

describe('field-level Connect SMTs with JsonConverter from mm2.properties', () => {
  test('InsertField$Value + ReplaceField$Value + Cast$Value: the target holds the JSON Connect writes', async () => {
    const p = uniqueName('fsmt');
    const topic = `${p}-orders`;
    const source = `src-${p}`;
    const flow = `${source}->dst-${p}`;
    const remote = `${source}.${topic}`;
    const properties = join(dir, `${p}.properties`);
    writeFileSync(
      properties,
      [
        `clusters = ${source}, dst-${p}`,
        `${source}.bootstrap.servers = ${clusters.primary}`,
        `dst-${p}.bootstrap.servers = ${clusters.backup}`,
        `${flow}.enabled = true`,
        `${flow}.topics = ${p}-.*`,
        'emit.heartbeats.enabled = false',
        'heartbeats.replication.enabled = false',
        'emit.checkpoints.enabled = false',
        'sync.topic.acls.enabled = false',
        'replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        'offset.storage.replication.factor = 1',
        'checkpoints.topic.replication.factor = 1',
        '',
        'value.converter = org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable = false',
        `${flow}.transforms = origin, trim, types`,
        `${flow}.transforms.origin.type = org.apache.kafka.connect.transforms.InsertField$Value`,
        `${flow}.transforms.origin.static.field = origin`,
        `${flow}.transforms.origin.static.value = dc1`,
        `${flow}.transforms.origin.topic.field = topic`,
        `${flow}.transforms.origin.partition.field = part`,
        `${flow}.transforms.trim.type = org.apache.kafka.connect.transforms.ReplaceField$Value`,
        `${flow}.transforms.trim.exclude = secret`,
        `${flow}.transforms.trim.renames = id:order_id`,
        `${flow}.transforms.types.type = org.apache.kafka.connect.transforms.Cast$Value`,
        `${flow}.transforms.types.spec = amount:float64`,
      ].join('\n'),
    );
    await primary.createTopic(topic, 1);
    await consoleProduce(clusters.primary, topic, [
      'k7\t{"id":7,"amount":"12.5","name":"Zoë","secret":"s3"}',
      'k8\t{ "id" : 8, "amount" : "3", "name" : null, "secret" : "x", "qty" : 2 }',
      'k9\t<null>',
    ]);

    const run = spawnCli(['run', properties, '--status-interval', '0', '--http', 'off']);
    let copied: Awaited<ReturnType<KafkaKit['readAll']>>;
    try {
      await waitFor(async () => (await backup.topics()).has(remote), { what: `${remote} to be created`, timeoutMs: 60_000 });
      copied = await waitFor(
        async () => {
          const read = await backup.readAll(remote);
          return (read.get(0)?.length ?? 0) >= 3 ? read : undefined;
        },
        { what: `3 records in ${remote}`, timeoutMs: 90_000 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmirrorflow said:\n${run.stderr()}`);
    } finally {
      run.kill('SIGTERM');
    }
    const exit = await run.exited;
    assert.equal(exit.code, 0, exit.stderr);

    const records = copied.get(0)!;
    assert.deepEqual(
      records.map((r) => [r.key?.toString(), r.value?.toString('utf8') ?? null]),
      [
        ['k7', `{"amount":12.5,"part":0,"origin":"dc1","name":"Zoë","topic":"${remote}","order_id":7}`],
        ['k8', `{"amount":3.0,"qty":2,"part":0,"origin":"dc1","name":null,"topic":"${remote}","order_id":8}`],
        ['k9', null],
      ],
    );
  });
});
