/**
 * A chain of schema-aware Connect SMTs in an mm2.properties file, with JsonConverter
 * (schemas.enable=true, the {schema, payload} envelope) for keys and values, as MM2 users write
 * it: orders written to the source by Kafka's own JsonConverter and Java producer (optional
 * fields set and unset, a Timestamp, nested structs, a field with a default, a tombstone,
 * headers) go through Flatten$Value, TimestampConverter$Value, ValueToKey, SetSchemaMetadata$Value
 * and HoistField$Value, after a Filter with a RecordIsTombstone predicate that drops deletes
 * (ValueToKey fails on a null value in Connect). Two of the steps apply to some records only, as
 * `transforms.<alias>.predicate` / `.negate` select them: TimestampConverter to the records without
 * a `trace` header (HasHeaderKey, negated), SetSchemaMetadata to those with an `origin` header.
 * Every record on the target — key, value, headers, byte for byte, and timestamp — is what Kafka
 * Connect's own converters and SMTs make of the same source record, and nothing else is there
 * (test/interop/java/ConnectTransformOracle.java, run on the records read back from the source).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KafkaRecord } from '../../src/core/record';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { spawnCli } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import { JavaPrograms } from '../interop/java-programs';
import { askConnect, type ConnectPart, type OracleStep } from '../interop/connect-transform-oracle';

const T = 'org.apache.kafka.connect.transforms';
const JSON_CONVERTER: ConnectPart = { class: 'org.apache.kafka.connect.json.JsonConverter', 'schemas.enable': 'true' };
/** MM2's header.converter: mirrorflow copies headers as bytes. */
const HEADER_CONVERTER: ConnectPart = { class: 'org.apache.kafka.connect.converters.ByteArrayConverter' };

/** A step's predicate: the alias mm2.properties gives it, and whether the step applies where it does not hold. */
interface Condition {
  readonly predicate: 'isTombstone' | 'hasOrigin' | 'traced';
  readonly negate?: boolean;
}

/** The chain as mm2.properties names it: alias, class, options, and the records it applies to. */
const CHAIN: readonly (readonly [string, string, Readonly<Record<string, string>>, Condition?])[] = [
  ['deletes', `${T}.Filter`, {}, { predicate: 'isTombstone' }],
  ['flat', `${T}.Flatten$Value`, { delimiter: '_' }],
  [
    'when',
    `${T}.TimestampConverter$Value`,
    { field: 'created', 'target.type': 'string', format: "yyyy-MM-dd'T'HH:mm:ss.SSS" },
    { predicate: 'traced', negate: true },
  ],
  ['rekey', `${T}.ValueToKey`, { fields: 'id,customer_name' }],
  ['meta', `${T}.SetSchemaMetadata$Value`, { 'schema.name': 'com.example.FlatOrder', 'schema.version': '2' }, { predicate: 'hasOrigin' }],
  ['wrap', `${T}.HoistField$Value`, { field: 'order' }],
];
const PREDICATES: Readonly<Record<Condition['predicate'], ConnectPart>> = {
  isTombstone: { class: `${T}.predicates.RecordIsTombstone` },
  hasOrigin: { class: `${T}.predicates.HasHeaderKey`, name: 'origin' },
  traced: { class: `${T}.predicates.HasHeaderKey`, name: 'trace' },
};

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let java: JavaPrograms;
let dir: string;

sharedClusterKits('mirrorflow-mm2-schema-chain-', (kits) => ({ clusters, primary, backup, dir } = kits));
before(async () => {
  java = await JavaPrograms.compile('ConnectJsonProducer.java', 'ConnectTransformOracle.java');
});
after(() => java?.dispose());

const text = (bytes: Buffer | null): string | null => (bytes === null ? null : bytes.toString('utf8'));
const headerList = (record: KafkaRecord): [string, string | null][] => record.headers.map((h) => [h.key, h.value === null ? null : h.value.toString('base64')]);

describe('a chain of schema-aware Connect SMTs with JsonConverter (schemas.enable=true) from mm2.properties', () => {
  test('Flatten, TimestampConverter, ValueToKey, SetSchemaMetadata, HoistField, two of them under predicates: the target holds what Connect writes, byte for byte', async () => {
    const p = uniqueName('schain');
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
        'key.converter = org.apache.kafka.connect.json.JsonConverter',
        'key.converter.schemas.enable = true',
        'value.converter = org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable = true',
        '',
        `${flow}.transforms = ${CHAIN.map(([alias]) => alias).join(', ')}`,
        ...CHAIN.flatMap(([alias, type, options, condition]) => [
          `${flow}.transforms.${alias}.type = ${type}`,
          ...Object.entries(options).map(([key, value]) => `${flow}.transforms.${alias}.${key} = ${value}`),
          ...(condition === undefined ? [] : [`${flow}.transforms.${alias}.predicate = ${condition.predicate}`]),
          ...(condition?.negate === true ? [`${flow}.transforms.${alias}.negate = true`] : []),
        ]),
        `${flow}.predicates = ${Object.keys(PREDICATES).join(', ')}`,
        ...Object.entries(PREDICATES).flatMap(([alias, { class: type, ...options }]) => [
          `${flow}.predicates.${alias}.type = ${type}`,
          ...Object.entries(options).map(([key, value]) => `${flow}.predicates.${alias}.${key} = ${value}`),
        ]),
      ].join('\n'),
    );
    await primary.createTopic(topic, 1);
    const wrote = await java.run('ConnectJsonProducer', [clusters.primary, topic]);
    assert.match(wrote, /^WROTE 5$/m);
    const sourceRecords = (await primary.readAll(topic)).get(0)!;
    assert.equal(sourceRecords.length, 5);

    const run = spawnCli(['run', properties, '--status-interval', '0', '--http', 'off']);
    let copied: KafkaRecord[];
    try {
      await waitFor(async () => (await backup.topics()).has(remote), { what: `${remote} to be created`, timeoutMs: 60_000 });
      copied = await waitFor(
        async () => {
          const read = (await backup.readAll(remote)).get(0) ?? [];
          // The last source record is not the tombstone: once it is there (keys change, timestamps stay), so is all else.
          return read.some((r) => r.timestamp === sourceRecords.at(-1)!.timestamp) ? read : undefined;
        },
        { what: `the last of the ${sourceRecords.length} records in ${remote}`, timeoutMs: 90_000 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmirrorflow said:\n${run.stderr()}`);
    } finally {
      run.kill('SIGTERM');
    }
    const exit = await run.exited;
    assert.equal(exit.code, 0, exit.stderr);

    // What Connect makes of each source record, as MM2's source task hands it over: the remote
    // topic, the source partition and offset, the timestamp, the headers as bytes.
    const steps: OracleStep[] = CHAIN.map(([, type, options, condition]) => ({
      transform: { class: type, ...options },
      ...(condition !== undefined && { predicate: PREDICATES[condition.predicate], negate: condition.negate === true }),
    }));
    const answers = await askConnect(
      java,
      sourceRecords.map((r) => ({
        topic: remote,
        partition: r.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        key: text(r.key),
        value: text(r.value),
        headers: headerList(r),
        keyConverter: JSON_CONVERTER,
        valueConverter: JSON_CONVERTER,
        headerConverter: HEADER_CONVERTER,
        steps,
      })),
    );
    assert.ok(!answers.some((answer) => 'error' in answer), `Connect's chain failed: ${JSON.stringify(answers)}`);
    const expected = answers.flatMap((answer, index) =>
      'key' in answer ? [{ key: answer.key, value: answer.value, headers: answer.headers, timestamp: sourceRecords[index]!.timestamp }] : [],
    );
    assert.deepEqual(
      copied.map((r) => ({ key: text(r.key), value: text(r.value), headers: headerList(r), timestamp: r.timestamp })),
      expected,
    );
    // The text comparison is byte-exact only if both sides are the bytes of that text.
    copied.forEach((r, index) => {
      assert.ok(r.value === null || r.value.equals(Buffer.from(expected[index]!.value!, 'utf8')), `value ${index} bytes`);
      assert.ok(r.key === null || r.key.equals(Buffer.from(expected[index]!.key!, 'utf8')), `key ${index} bytes`);
    });

    // What a user reading the target sees: the chain did its work, each conditional step only on
    // the records its predicate selects (and the tombstone was dropped).
    type Envelope = { schema: { fields: { field: string; name?: string; version?: number }[] }; payload: { order: { created: unknown } } };
    const values = expected.map((record) => JSON.parse(record.value!) as Envelope);
    assert.deepEqual(
      values.map((v) => v.schema.fields.map((f) => f.field)),
      [['order'], ['order'], ['order'], ['order']],
    );
    assert.deepEqual(
      values.map(({ schema }) => schema.fields[0]!.name === 'com.example.FlatOrder' && schema.fields[0]!.version === 2),
      [true, false, false, true],
      'SetSchemaMetadata applies to the records with an origin header only',
    );
    assert.deepEqual(
      values.map(({ payload }) => (payload.order.created === null ? null : typeof payload.order.created)),
      ['number', null, 'string', 'string'],
      'TimestampConverter applies to the records without a trace header only (the second has no created time)',
    );
    assert.match(String(values[2]!.payload.order.created), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    assert.match(expected[0]!.key!, /"payload":\{"id":1,"customer_name":"Zoë"\}/);
    assert.equal(sourceRecords[3]!.value, null);
    assert.deepEqual(answers[3], { dropped: true });
    assert.equal(expected.length, 4);
  });
});
