/**
 * `schema_registry` on real brokers with two real registries (test/support/schema-registry.ts:
 * Apicurio Registry from Maven Central, one per cluster, each with its own ids). Records are
 * written as users' services write them, with Confluent's npm Avro serializer through the source
 * registry; a consumer of the target reads them through the TARGET registry and must get the same
 * objects. The target registry gave its first ids to other schemas, so the ids differ.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { AvroDeserializer, AvroSerializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import { SerdeType } from '@confluentinc/schemaregistry/dist/serde/serde';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, startPipeline, writePipeline } from '../support/pipeline-harness';
import { useSchemaRegistries } from '../support/use-schema-registries';
import { TcpProxy } from '../support/tcp-proxy';
import { sourceAndTargetKits } from '../support/use-kits';
import type { KafkaRecord } from '../../src/core/record';

const ADDRESS = { type: 'record', name: 'Address', namespace: 'shop', fields: [{ name: 'city', type: 'string' }] };
const ORDER = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'item', type: 'string' },
    { name: 'ship_to', type: 'shop.Address' },
  ],
};
// Now, not a fixed past date: the brokers delete records older than their 7-day retention.
const T0 = Date.now();
const REGISTRY_PASSWORD = 'registry-pass-7f3a9c';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const registryClient = (url: string): SchemaRegistryClient => new SchemaRegistryClient({ baseURLs: [url] });

interface Order {
  readonly id: number;
  readonly item: string;
  readonly ship_to: { readonly city: string };
}
const order = (i: number): Order => ({ id: i, item: `item-${i}`, ship_to: { city: `city-${i % 3}` } });

/**
 * The Order schema registered in `url` under `<topic>-value`, referring to Address under its own
 * subject, after `unrelated` other schemas; the serializer of a service that writes to `topic`.
 */
async function orderWriter(url: string, topic: string, unrelated: number): Promise<{ id: number; serialize(o: Order): Promise<Buffer> }> {
  const client = registryClient(url);
  for (let i = 0; i < unrelated; i++) {
    await client.register(`${topic}-unrelated`, { schemaType: 'AVRO', schema: JSON.stringify({ type: 'enum', name: `E${i}`, symbols: ['A'] }) });
  }
  await client.register('shop.Address', { schemaType: 'AVRO', schema: JSON.stringify(ADDRESS) });
  const id = await client.register(`${topic}-value`, {
    schemaType: 'AVRO',
    schema: JSON.stringify(ORDER),
    references: [{ name: 'shop.Address', subject: 'shop.Address', version: 1 }],
  });
  const serializer = new AvroSerializer(client, SerdeType.VALUE, { useLatestVersion: true });
  return { id, serialize: (o) => serializer.serialize(topic, o) };
}

/** What a consumer of the target reads: each value through the target registry. */
async function readThroughTarget(url: string, topic: string, records: readonly KafkaRecord[]): Promise<(Order | null)[]> {
  const deserializer = new AvroDeserializer(registryClient(url), SerdeType.VALUE, {});
  const out: (Order | null)[] = [];
  for (const r of records) out.push(r.value === null ? null : ({ ...((await deserializer.deserialize(topic, r.value)) as Order) } as Order));
  return out;
}

const plain = (o: Order | null): unknown => (o === null ? null : { ...o, ship_to: { ...o.ship_to } });

describe('schema_registry: schema ids moved to the target registry', { timeout: 600_000 }, () => {
  const registries = useSchemaRegistries();

  test("Avro records written through the source registry are read back through the target's as the same objects; an unknown id goes to the dead letters", async () => {
    const prefix = uniqueName('sr');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const dlq = `${prefix}-dlq`;
    const writer = await orderWriter(registries.source.url, topic, 0);
    const orders = Array.from({ length: 40 }, (_, i) => order(i));
    const values: (Buffer | null)[] = [];
    for (const o of orders) values.push(await writer.serialize(o));
    // A tombstone passes as it is; so does a value that is not in the wire format.
    values.push(null, Buffer.from('{"not":"avro"}'));
    // A value whose id the source registry does not know: a record error.
    values.push(Buffer.concat([Buffer.from([0, 0, 0x06, 0x7a, 0xe2]), (await writer.serialize(order(99))).subarray(5)]));
    const written: TestRecord[] = values.map((value, i) => ({ partition: 0, key: Buffer.from(`k${i}`), value, headers: [], timestamp: T0 + i }));
    await source.createTopic(topic, 1);
    await source.produce(topic, written);
    // The target registry's ids are taken by other schemas: the same schemas get other ids there.
    await orderWriter(registries.target.url, `${prefix}.elsewhere`, 5);

    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${prefix}\\..*`],
          schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } },
          errors: { tolerance: 'all', deadletterqueue: { topic_name: dlq, replication_factor: 1 } },
        },
      ],
    });
    const run = await startPipeline(file);
    try {
      await run.until(async () => (await target.count(remote)) >= written.length - 1 && (await target.count(dlq)) >= 1, {
        what: `${written.length - 1} records in ${remote} and 1 in ${dlq}`,
        timeoutMs: 120_000,
      });
    } finally {
      await run.stop();
    }

    const copied = await target.readAllFlat(remote);
    const targetId = copied[0]!.value!.readInt32BE(1);
    assert.notEqual(targetId, writer.id, 'the target registry has the schema under another id');
    assert.deepEqual(
      copied.slice(0, orders.length).map((r) => r.value!.readInt32BE(1)),
      orders.map(() => targetId),
    );
    assert.deepEqual(
      copied.slice(0, orders.length).map((r) => r.value!.subarray(5)),
      values.slice(0, orders.length).map((v) => v!.subarray(5)),
      'the payload is copied as it was',
    );
    assert.deepEqual((await readThroughTarget(registries.target.url, remote, copied.slice(0, orders.length))).map(plain), orders.map(plain));
    assert.deepEqual(
      copied.slice(orders.length).map((r) => r.value),
      [null, Buffer.from('{"not":"avro"}')],
    );
    assert.deepEqual(
      copied.map((r) => r.key?.toString()),
      written.slice(0, -1).map((r) => r.key?.toString()),
    );

    const targetClient = registryClient(registries.target.url);
    assert.ok((await targetClient.getAllSubjects()).includes(`${remote}-value`), 'registered under the target topic’s subject');
    const dead = await target.readAllFlat(dlq);
    assert.deepEqual(
      dead.map((r) => r.key?.toString()),
      [`k${written.length - 1}`],
    );
  });

  test('with errors.tolerance none, an unknown id ends the run with exit 65 naming the record; the records before it are copied', async () => {
    const prefix = uniqueName('sr-none');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const writer = await orderWriter(registries.source.url, topic, 0);
    const values = [await writer.serialize(order(1)), await writer.serialize(order(2)), await writer.serialize(order(3))];
    const unknownId = writer.id + 1000;
    values.push(Buffer.concat([Buffer.from([0]), Buffer.alloc(4), values[0]!.subarray(5)]));
    values[3]!.writeInt32BE(unknownId, 1);
    values.push(await writer.serialize(order(5)));
    await source.createTopic(topic, 1);
    await source.produce(
      topic,
      values.map((value, i) => ({ partition: 0, key: null, value, headers: [], timestamp: T0 + i })),
    );
    const { file } = await writePipeline({
      flows: [{ topics: [`${prefix}\\..*`], schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } } }],
    });
    const result = await runCli(['run', file], 180_000);
    assert.equal(result.code, 65, `exit code; stderr:\n${result.stderr}`);
    assert.match(
      result.stderr,
      new RegExp(
        `topic "${topic}" partition 0 offset 3 failed in transform "schema_registry" \\(flow primary->backup\\): schema id ${unknownId} of its value could not be moved to subject "${remote}-value"`,
      ),
    );
    const copied = await target.readAllFlat(remote);
    assert.deepEqual((await readThroughTarget(registries.target.url, remote, copied)).map(plain), [order(1), order(2), order(3)].map(plain));
  });

  test('an unreachable source registry is an outage: nothing is copied or lost meanwhile, and everything follows once it answers; its password is never logged', async () => {
    const prefix = uniqueName('sr-down');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const writer = await orderWriter(registries.source.url, topic, 0);
    const orders = Array.from({ length: 20 }, (_, i) => order(i));
    const written: TestRecord[] = [];
    for (const [i, o] of orders.entries()) written.push({ partition: 0, key: null, value: await writer.serialize(o), headers: [], timestamp: T0 + i });
    await source.createTopic(topic, 1);
    await source.produce(topic, written);

    const registryPort = Number(new URL(registries.source.url).port);
    const proxy = await TcpProxy.start({ targetPort: registryPort });
    proxy.cut('refuse');
    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${prefix}\\..*`],
          schema_registry: {
            source: {
              url: registries.source.url.replace(`:${registryPort}/`, `:${proxy.address.split(':')[1]}/`),
              basic_auth: { username: 'mirror', password: REGISTRY_PASSWORD },
            },
            target: { url: registries.target.url },
          },
        },
      ],
    });
    const run = await startPipeline(file);
    try {
      const outage = await run.until(() => run.statuses()[0]?.outages.current.find((o) => o.operation === 'reading schemas from its schema registry'), {
        what: 'an outage of the source registry on the flow status',
        timeoutMs: 120_000,
      });
      assert.equal(outage.cluster, 'primary');
      assert.match(outage.lastError, /Schema Registry at http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7 cannot be reached/);
      assert.equal(await target.count(remote).catch(() => 0), 0, 'nothing is written without its id');
      proxy.restore();
      await run.until(async () => (await target.count(remote)) >= written.length, { what: `${written.length} records in ${remote}`, timeoutMs: 120_000 });
    } finally {
      await run.stop();
      await proxy.close();
    }
    const copied = await target.readAllFlat(remote);
    assert.deepEqual((await readThroughTarget(registries.target.url, remote, copied)).map(plain), orders.map(plain));
    assert.ok(
      run.logs.some((l) => l.level === 'warn' && l.meta['cluster'] === 'primary'),
      'the outage was reported',
    );
    assert.doesNotMatch(JSON.stringify(run.logs), new RegExp(REGISTRY_PASSWORD), 'the registry password is in no log line');
  });
});
