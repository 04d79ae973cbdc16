/**
 * `converter: { key: json_schema, value: json_schema }` on real brokers with two real registries
 * (Apicurio from Maven Central, as in avro-converter.test.ts): records written as users'
 * services write them, with Confluent's npm JSON Schema serializer through the source registry
 * (validating each value against the schema), go through an insert_field and cast chain on the
 * value and an insert_field on the key; a consumer of the target reads them with Confluent's
 * JSON Schema deserializer through the TARGET registry, validating each against the schema
 * mirrorflow registered there, and sees the transformed fields. Records the json_schema
 * converter cannot read (not in the wire format, an id the source registry does not know) go to
 * the dead letters. An mm2.properties with JsonSchemaConverter and Connect's InsertField and Cast,
 * as MM2 users write it, does the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { JsonDeserializer, JsonSerializer } from '@confluentinc/schemaregistry/dist/serde/json';
import { SerdeType } from '@confluentinc/schemaregistry/dist/serde/serde';
import type { KafkaKit, TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { runCli, spawnCli, writePipeline } from '../support/pipeline-harness';
import { replicateToDeadLetters, useSchemaRegistries } from '../support/use-schema-registries';
import { sharedClusterKits } from '../support/use-kits';

/** A service's value schema, with the `connect.type` a Connect-aware team gives an int32. */
const ORDER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'shop.Order',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    item: { type: 'string' },
    qty: { type: 'integer', 'connect.type': 'int32' },
    note: { oneOf: [{ type: 'null' }, { type: 'string' }] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['id', 'item', 'qty'],
};
const ORDER_KEY = { $schema: 'http://json-schema.org/draft-07/schema#', title: 'shop.OrderKey', type: 'object', properties: { id: { type: 'integer' } } };
// Now, not a fixed past date: the brokers delete records older than their 7-day retention.
const T0 = Date.now();

let clusters: TestClusters;
let source: KafkaKit;
let target: KafkaKit;
let dir: string;
sharedClusterKits('mirrorflow-json-schema-', (kits) => ({ clusters, primary: source, backup: target, dir } = kits));

interface Order {
  readonly id: number;
  readonly item: string;
  readonly qty: number;
  readonly note: string | null;
  readonly tags: readonly string[];
}
const order = (i: number): Order => ({ id: 1000 + i, item: `item-${i}`, qty: i, note: i % 2 === 0 ? null : `n${i}`, tags: i % 3 === 0 ? [] : [`t${i}`] });

const registryClient = (url: string): SchemaRegistryClient => new SchemaRegistryClient({ baseURLs: [url] });
/** Ajv refuses keywords it does not know unless told: `connect.type` and `connect.index` are Connect's. */
const VALIDATING = { validate: true, strict: false } as const;

/** The serializers of a service writing Orders to `topic` through the registry at `url`, its schemas registered first. */
async function orderWriter(url: string, topic: string): Promise<{ valueId: number; key(id: number): Promise<Buffer>; value(o: Order): Promise<Buffer> }> {
  const client = registryClient(url);
  await client.register(`${topic}-key`, { schemaType: 'JSON', schema: JSON.stringify(ORDER_KEY) });
  const valueId = await client.register(`${topic}-value`, { schemaType: 'JSON', schema: JSON.stringify(ORDER) });
  const keys = new JsonSerializer(client, SerdeType.KEY, { useLatestVersion: true, ...VALIDATING });
  const values = new JsonSerializer(client, SerdeType.VALUE, { useLatestVersion: true, ...VALIDATING });
  return { valueId, key: (id) => keys.serialize(topic, { id }), value: (o) => values.serialize(topic, o) };
}

const TRANSFORMS = [
  { type: 'insert_field', static_field: 'origin', static_value: 'eu' },
  { type: 'cast', spec: ['qty:string'] },
  { type: 'insert_field', on: 'key', static_field: 'region', static_value: 'emea' },
];

describe('the json_schema converter: field transforms on JSON Schema records, read back through the target registry', { timeout: 600_000 }, () => {
  const registries = useSchemaRegistries();

  test('insert_field and cast change JSON Schema values and keys; a consumer of the target reads and validates them with the target registry; unreadable records go to the dead letters', async () => {
    const prefix = uniqueName('jsonschema');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const dlq = `${prefix}-dlq`;
    const writer = await orderWriter(registries.source.url, topic);
    const orders = Array.from({ length: 30 }, (_, i) => order(i));
    const written: TestRecord[] = [];
    for (const [i, o] of orders.entries()) {
      written.push({ partition: 0, key: await writer.key(o.id), value: await writer.value(o), headers: [], timestamp: T0 + i });
    }
    // Not in the wire format, and an id the source registry does not know: both fail the json_schema converter.
    const unknown = Buffer.from(written[0]!.value!);
    unknown.writeInt32BE(writer.valueId + 5000, 1);
    const bad = [Buffer.from('{"id":1,"item":"plain JSON"}'), unknown];
    for (const [i, value] of bad.entries()) {
      written.push({ partition: 0, key: await writer.key(2000 + i), value, headers: [], timestamp: T0 + orders.length + i });
    }
    const copied = await replicateToDeadLetters({
      source,
      target,
      prefix,
      topic,
      written,
      dlq,
      copies: orders.length,
      deadLetters: bad.length,
      flow: {
        converter: { key: 'json_schema', value: 'json_schema' },
        transforms: TRANSFORMS,
        schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url }, on: ['key', 'value'] },
      },
    });
    assert.equal(copied.length, orders.length);
    const targetClient = registryClient(registries.target.url);
    const values = new JsonDeserializer(targetClient, SerdeType.VALUE, VALIDATING);
    const keys = new JsonDeserializer(targetClient, SerdeType.KEY, VALIDATING);
    const read: unknown[] = [];
    const readKeys: unknown[] = [];
    for (const r of copied) {
      read.push(await values.deserialize(remote, r.value!));
      readKeys.push(await keys.deserialize(remote, r.key!));
    }
    assert.deepEqual(
      read,
      orders.map((o) => ({ id: o.id, item: o.item, qty: String(o.qty), note: o.note, tags: o.tags, origin: 'eu' })),
    );
    assert.deepEqual(
      readKeys,
      orders.map((o) => ({ id: o.id, region: 'emea' })),
    );
    const valueSchema = await targetClient.getLatestSchemaMetadata(`${remote}-value`);
    assert.equal(valueSchema.schemaType, 'JSON', 'registered as a JSON Schema under the target topic’s subject');
    const registered = JSON.parse(valueSchema.schema!) as { title: string; properties: Record<string, { type?: string }> };
    assert.equal(registered.title, 'shop.Order');
    assert.equal(registered.properties['qty']!.type, 'string', 'the cast field has its new type in the schema');
    assert.equal((await targetClient.getLatestSchemaMetadata(`${remote}-key`)).schemaType, 'JSON');
    const dead = await target.readAllFlat(dlq);
    assert.deepEqual(
      dead.map((r) => r.value),
      bad,
    );
  });

  test('mm2.properties with JsonSchemaConverter and InsertField$Value + Cast$Value: the target holds what Connect would write, registered in the one registry', async () => {
    const p = uniqueName('jsmm2');
    const topic = `${p}-orders`;
    const from = `src-${p}`;
    const flow = `${from}->dst-${p}`;
    const remote = `${from}.${topic}`;
    const url = registries.source.url;
    const writer = await orderWriter(url, topic);
    const orders = [order(1), order(2)];
    await source.createTopic(topic, 1);
    await source.produce(
      topic,
      await Promise.all(
        orders.map(async (o, i) => ({ partition: 0, key: Buffer.from(`k${o.id}`), value: await writer.value(o), headers: [], timestamp: T0 + i })),
      ),
    );
    const properties = join(dir, `${p}.properties`);
    writeFileSync(
      properties,
      [
        `clusters = ${from}, dst-${p}`,
        `${from}.bootstrap.servers = ${clusters.primary}`,
        `dst-${p}.bootstrap.servers = ${clusters.backup}`,
        `${flow}.enabled = true`,
        `${flow}.topics = ${p}-.*`,
        'emit.heartbeats.enabled = false',
        // MM2 replicates every heartbeats topic whatever the filter; their records (MM2's own
        // format) are no JSON Schema records for InsertField to read, in MM2 as here.
        'heartbeats.replication.enabled = false',
        'emit.checkpoints.enabled = false',
        'sync.topic.acls.enabled = false',
        'replication.factor = 1',
        'offset.storage.replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        '',
        'value.converter = io.confluent.connect.json.JsonSchemaConverter',
        `value.converter.schema.registry.url = ${url}`,
        `${flow}.transforms = origin, types`,
        `${flow}.transforms.origin.type = org.apache.kafka.connect.transforms.InsertField$Value`,
        `${flow}.transforms.origin.static.field = origin`,
        `${flow}.transforms.origin.static.value = dc1`,
        `${flow}.transforms.types.type = org.apache.kafka.connect.transforms.Cast$Value`,
        `${flow}.transforms.types.spec = qty:string`,
      ].join('\n'),
    );
    const run = spawnCli(['run', properties, '--status-interval', '0', '--http', 'off']);
    let copied: Awaited<ReturnType<KafkaKit['readAllFlat']>>;
    try {
      copied = await waitFor(
        async () => {
          const read = (await target.topics()).has(remote) ? await target.readAllFlat(remote) : [];
          return read.length >= orders.length ? read : undefined;
        },
        { what: `${orders.length} records in ${remote}`, timeoutMs: 120_000 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmirrorflow said:\n${run.stderr()}`);
    } finally {
      run.kill('SIGTERM');
    }
    const exit = await run.exited;
    assert.equal(exit.code, 0, exit.stderr);
    const values = new JsonDeserializer(registryClient(url), SerdeType.VALUE, VALIDATING);
    const read: unknown[] = [];
    for (const r of copied) read.push(await values.deserialize(remote, r.value!));
    assert.deepEqual(
      read,
      orders.map((o) => ({ id: o.id, item: o.item, qty: String(o.qty), note: o.note, tags: o.tags, origin: 'dc1' })),
    );
    assert.deepEqual(
      copied.map((r) => r.key?.toString()),
      orders.map((o) => `k${o.id}`),
      'keys keep their bytes (ByteArrayConverter, the default)',
    );
  });

  test('a flow with a json_schema converter and no schema_registry is refused, naming the key', async () => {
    const { file } = await writePipeline({
      flows: [{ topics: ['x'], converter: { key: 'json_schema' }, transforms: [{ type: 'insert_field', on: 'key', static_field: 'a', static_value: 'b' }] }],
    });
    const result = await runCli(['validate', file], 60_000);
    assert.equal(result.code, 78, `exit code; stderr:\n${result.stderr}`);
    assert.match(result.stderr, /:\d+:\d+: flows\[0\]\.converter\.key: the json_schema converter needs the flow's schema_registry/);
  });
});
