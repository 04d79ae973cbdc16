/**
 * `converter: { value: avro }` on real brokers with two real registries (Apicurio from Maven
 * Central, as in schema-registry.test.ts): records written as users' services write them, with
 * Confluent's npm Avro serializer through the source registry, go through an insert_field, cast
 * and replace_field chain; a consumer of the target reads them through the TARGET registry, as
 * Confluent's deserializer does, and sees the transformed fields. Records the avro converter
 * cannot read (not in the wire format, an id the source registry does not know) go to the dead
 * letters naming topic, partition and offset.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { AvroDeserializer, AvroSerializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import { SerdeType } from '@confluentinc/schemaregistry/dist/serde/serde';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, writePipeline } from '../support/pipeline-harness';
import { replicateToDeadLetters, useSchemaRegistries } from '../support/use-schema-registries';
import { sourceAndTargetKits } from '../support/use-kits';

const ORDER = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'item', type: 'string' },
    { name: 'qty', type: 'int' },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
  ],
};
// Now, not a fixed past date: the brokers delete records older than their 7-day retention.
const T0 = Date.now();

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

interface Order {
  readonly id: number;
  readonly item: string;
  readonly qty: number;
  readonly note: string | null;
  readonly status: 'NEW' | 'PAID';
}
const order = (i: number): Order => ({ id: 1000 + i, item: `item-${i}`, qty: i, note: i % 2 === 0 ? null : `n${i}`, status: i % 3 === 0 ? 'PAID' : 'NEW' });

const registryClient = (url: string): SchemaRegistryClient => new SchemaRegistryClient({ baseURLs: [url] });

/** The serializer of a service writing Orders to `topic` through the registry at `url`. */
async function orderWriter(url: string, topic: string): Promise<{ id: number; serialize(o: Order): Promise<Buffer> }> {
  const client = registryClient(url);
  const id = await client.register(`${topic}-value`, { schemaType: 'AVRO', schema: JSON.stringify(ORDER) });
  const serializer = new AvroSerializer(client, SerdeType.VALUE, { useLatestVersion: true });
  return { id, serialize: (o) => serializer.serialize(topic, o) };
}

const TRANSFORMS = [
  { type: 'insert_field', static_field: 'origin', static_value: 'eu' },
  { type: 'cast', spec: ['qty:string'] },
  { type: 'replace_field', renames: ['item:product'] },
];

describe('the avro converter: field transforms on Avro records, read back through the target registry', { timeout: 600_000 }, () => {
  const registries = useSchemaRegistries();

  test('insert_field, cast and replace_field change Avro values; a consumer of the target reads the new fields with the target registry; unreadable records go to the dead letters', async () => {
    const prefix = uniqueName('avro');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const dlq = `${prefix}-dlq`;
    const writer = await orderWriter(registries.source.url, topic);
    const orders = Array.from({ length: 30 }, (_, i) => order(i));
    const values: Buffer[] = [];
    for (const o of orders) values.push(await writer.serialize(o));
    // Not in the wire format, and an id the source registry does not know: both fail the avro converter.
    values.push(Buffer.from('{"not":"avro"}'));
    const unknown = Buffer.from(values[0]!);
    unknown.writeInt32BE(writer.id + 5000, 1);
    values.push(unknown);
    const written: TestRecord[] = values.map((value, i) => ({ partition: 0, key: Buffer.from(`k${i}`), value, headers: [], timestamp: T0 + i }));
    const copied = await replicateToDeadLetters({
      source,
      target,
      prefix,
      topic,
      written,
      dlq,
      copies: orders.length,
      deadLetters: 2,
      flow: {
        converter: { value: 'avro' },
        transforms: TRANSFORMS,
        schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } },
      },
    });
    assert.equal(copied.length, orders.length);
    const deserializer = new AvroDeserializer(registryClient(registries.target.url), SerdeType.VALUE, {});
    const read: unknown[] = [];
    for (const r of copied) read.push({ ...((await deserializer.deserialize(remote, r.value!)) as object) });
    assert.deepEqual(
      read,
      orders.map((o) => ({ id: o.id, product: o.item, qty: String(o.qty), note: o.note, status: o.status, origin: 'eu' })),
    );
    assert.deepEqual(
      copied.map((r) => r.key?.toString()),
      orders.map((_, i) => `k${i}`),
    );
    const subjects = await registryClient(registries.target.url).getAllSubjects();
    assert.ok(subjects.includes(`${remote}-value`), 'the written schema is registered under the target topic’s subject');
    const dead = await target.readAllFlat(dlq);
    assert.deepEqual(
      dead.map((r) => r.key?.toString()),
      [`k${orders.length}`, `k${orders.length + 1}`],
    );
  });

  test('with errors.tolerance none, a value the avro converter cannot read ends the run with exit 65 naming topic, partition and offset', async () => {
    const prefix = uniqueName('avro-none');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const writer = await orderWriter(registries.source.url, topic);
    const values = [await writer.serialize(order(1)), await writer.serialize(order(2)), Buffer.from('plain text'), await writer.serialize(order(4))];
    await source.createTopic(topic, 1);
    await source.produce(
      topic,
      values.map((value, i) => ({ partition: 0, key: null, value, headers: [], timestamp: T0 + i })),
    );
    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${prefix}\\..*`],
          converter: { value: 'avro' },
          transforms: TRANSFORMS,
          schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } },
        },
      ],
    });
    const result = await runCli(['run', file], 180_000);
    assert.equal(result.code, 65, `exit code; stderr:\n${result.stderr}`);
    assert.match(result.stderr, new RegExp(`topic "${topic}" partition 0 offset 2 failed in transform "insert_field".*not in Confluent's wire format`));
    const copied = await target.readAllFlat(remote);
    const deserializer = new AvroDeserializer(registryClient(registries.target.url), SerdeType.VALUE, {});
    const products: unknown[] = [];
    for (const r of copied) products.push(((await deserializer.deserialize(remote, r.value!)) as { product: string }).product);
    assert.deepEqual(products, ['item-1', 'item-2']);
  });

  test('a flow with an avro converter and no schema_registry is refused, naming the key', async () => {
    const { file } = await writePipeline({
      flows: [{ topics: ['x'], converter: { value: 'avro' }, transforms: TRANSFORMS }],
    });
    const result = await runCli(['validate', file], 60_000);
    assert.equal(result.code, 78, `exit code; stderr:\n${result.stderr}`);
    assert.match(result.stderr, /:\d+:\d+: flows\[0\]\.converter\.value: the avro converter needs the flow's schema_registry/);
  });
});
