/**
 * Connect SMTs in an mm2.properties file, written as MM2 users write them (per flow, full class
 * names, a predicate per Filter), replicate as MM2 would: a RegexRouter renames the remote topic
 * (it sees MM2's remote name, `<source>.<topic>`), a Filter on a HasHeaderKey predicate drops
 * records with the header, a negated one drops records without another, and what passes arrives
 * byte for byte, in order, under the renamed topic — which topic sync created with the source
 * topic's partitions and configs. A field-level SMT on a flow that copies values as bytes ends the
 * run with exit 78 and a message naming the transform, the line and the converter it needs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { spawnCli } from '../support/pipeline-harness';

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let dir: string;

sharedClusterKits('mirrorflow-mm2-smts-', (kits) => ({ clusters, primary, backup, dir } = kits));

/** An MM2 driver file for the test clusters; `smts` are the flow's transform lines. */
function mm2File(p: string, smts: readonly string[]): string {
  const flow = `src-${p}->dst-${p}`;
  return [
    `clusters = src-${p}, dst-${p}`,
    `src-${p}.bootstrap.servers = ${clusters.primary}`,
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
    ...smts.map((line) => `${flow}.${line}`),
  ].join('\n');
}

const h = (key: string, value: Buffer | string | null) => ({ key, value: typeof value === 'string' ? Buffer.from(value) : value });

describe('Connect SMTs from mm2.properties', () => {
  test('RegexRouter + Filter on HasHeaderKey (and a negated one): the right records, renamed topic, bytes and order kept', async () => {
    const p = uniqueName('smt');
    const topic = `${p}-orders`;
    const renamed = `dr.${topic}`;
    const properties = join(dir, `${p}.properties`);
    writeFileSync(
      properties,
      mm2File(p, [
        'transforms = route, dropInternal, keepTenants',
        'predicates = isInternal, hasTenant',
        'transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter',
        'transforms.route.regex = [^.]+\\\\.(.*)',
        'transforms.route.replacement = dr.$1',
        'transforms.dropInternal.type = org.apache.kafka.connect.transforms.Filter',
        'transforms.dropInternal.predicate = isInternal',
        'transforms.keepTenants.type = org.apache.kafka.connect.transforms.Filter',
        'transforms.keepTenants.predicate = hasTenant',
        'transforms.keepTenants.negate = true',
        'predicates.isInternal.type = org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
        'predicates.isInternal.name = internal',
        'predicates.hasTenant.type = org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
        'predicates.hasTenant.name = tenant',
      ]),
    );
    await primary.createTopic(topic, 3, { 'retention.ms': '3600000', 'cleanup.policy': 'delete' });
    // Timestamps within the topic's retention: older ones are deleted by the broker's next
    // retention check (every 10 s on the test clusters), on the source before they are read and
    // on the renamed topic, which gets the same retention.ms, before they are checked.
    const t0 = Date.now() - 60_000;
    // Binary values and keys, null keys, a tombstone, empty values, null and repeated headers.
    const records: TestRecord[] = Array.from({ length: 90 }, (_, i) => {
      const headers = [
        ...(i % 3 !== 0 ? [h('tenant', `t${i % 4}`)] : []),
        ...(i % 5 === 0 ? [h('internal', null)] : []),
        h('bin', Buffer.from([0, 255, i])),
        ...(i % 2 === 0 ? [h('bin', Buffer.alloc(0)), h('nullable', null)] : []),
      ];
      return {
        partition: i % 3,
        key: i % 7 === 0 ? null : Buffer.from([i, 0, 0xfe, 0x80]),
        value: i === 10 || i === 11 ? null : i % 9 === 0 ? Buffer.alloc(0) : Buffer.from(`value-${i}-\u00e9\u0000`, 'utf8'),
        headers,
        timestamp: t0 + i,
      };
    });
    await primary.produce(topic, records);
    // A last record per partition that passes: once it is there, everything before it was handled.
    const markers: TestRecord[] = [0, 1, 2].map((partition) => ({
      partition,
      key: Buffer.from('end'),
      value: Buffer.from(`end-${partition}`),
      headers: [h('tenant', 'end')],
      timestamp: t0 + 1_000,
    }));
    await primary.produce(topic, markers);

    const run = spawnCli(['run', properties, '--status-interval', '0', '--http', 'off']);
    try {
      // Read only once topic sync created it: a read of a missing topic could have the broker auto-create it.
      await waitFor(async () => (await backup.topics()).has(renamed), { what: `${renamed} to be created`, timeoutMs: 60_000 });
      await waitFor(
        async () => {
          const byPartition = await backup.readAll(renamed);
          return [0, 1, 2].every((partition) => byPartition.get(partition)?.at(-1)?.value?.toString() === `end-${partition}`);
        },
        { what: `the last record of every partition in ${renamed}`, timeoutMs: 90_000 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmirrorflow said:\n${run.stderr()}`);
    } finally {
      run.kill('SIGTERM');
    }
    const exit = await run.exited;
    assert.equal(exit.code, 0, exit.stderr);

    const passes = (r: TestRecord) => r.headers.some((x) => x.key === 'tenant') && !r.headers.some((x) => x.key === 'internal');
    const copied = await backup.readAll(renamed);
    for (const partition of [0, 1, 2]) {
      const expected = [...records, ...markers].filter((r) => r.partition === partition && passes(r));
      assert.deepEqual(snapshot(copied.get(partition) ?? []), snapshot(expected), `partition ${partition}`);
    }
    assert.ok(
      [...copied.values()].flat().some((r) => r.value === null),
      'the tombstone with a tenant header is replicated',
    );

    // The renamed topic was created like the remote topic would have been; the policy's name was not.
    const topics = await backup.topics();
    assert.equal(topics.get(renamed), 3);
    assert.equal(topics.has(`src-${p}.${topic}`), false, 'no empty topic under the policy name');
    assert.equal((await backup.topicConfigs(renamed)).get('retention.ms')?.value, '3600000');
  });

  test('a field-level SMT without a converter ends the run with exit 78, naming the transform, the line and the converter to set', async () => {
    const p = uniqueName('smtbad');
    const properties = join(dir, `${p}.properties`);
    writeFileSync(
      properties,
      mm2File(p, [
        'transforms = addField',
        'transforms.addField.type = org.apache.kafka.connect.transforms.InsertField$Value',
        'transforms.addField.static.field = origin',
        'transforms.addField.static.value = dc1',
      ]),
    );
    const run = spawnCli(['run', properties, '--status-interval', '0', '--http', 'off']);
    const exit = await run.exited;
    assert.equal(exit.code, 78, exit.stderr);
    assert.match(
      exit.stderr,
      /\.properties:16:\d+: \S+\.transforms\.addField\.type: Transform "insert_field" \(Connect's InsertField\) reads fields of the record's value, which the flow copies as bytes: it needs a converter/,
    );
    assert.match(
      exit.stderr,
      /value\.converter = org\.apache\.kafka\.connect\.json\.JsonConverter \(with value\.converter\.schemas\.enable = false for plain JSON\)/,
    );
  });
});
