/**
 * `converter: { value: protobuf }` on real brokers with two real registries (Apicurio from Maven
 * Central, as in schema-registry.test.ts): records written as users' services write them, with
 * Confluent's npm Protobuf serializer and a message type as protoc describes it, through the
 * source registry (which stores the schema as that serializer registers it, a serialized
 * FileDescriptorProto); they go through an insert_field and cast chain; a consumer of the target
 * reads them with Confluent's Protobuf deserializer through the TARGET registry and sees the
 * transformed fields. Records the protobuf converter cannot read (not in the wire format, an id
 * the source registry does not know) go to the dead letters.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { create, createFileRegistry, createMutableRegistry, type DescMessage } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_timestamp,
} from '@bufbuild/protobuf/wkt';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { ProtobufDeserializer, ProtobufSerializer } from '@confluentinc/schemaregistry/dist/serde/protobuf';
import { SerdeType } from '@confluentinc/schemaregistry/dist/serde/serde';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, writePipeline } from '../support/pipeline-harness';
import { replicateToDeadLetters, useSchemaRegistries } from '../support/use-schema-registries';
import { sourceAndTargetKits } from '../support/use-kits';

/**
 * shop/order.proto as protoc describes it (what generated code embeds):
 *
 *     syntax = "proto3";
 *     package shop;
 *     import "google/protobuf/timestamp.proto";
 *     message Order {
 *       int64 id = 1;
 *       string item = 2;
 *       int32 qty = 3;
 *       Status status = 4;
 *       repeated string tags = 5;
 *       google.protobuf.Timestamp at = 6;
 *       enum Status { NEW = 0; PAID = 1; }
 *     }
 */
const ORDER_FILE = create(FileDescriptorProtoSchema, {
  name: 'shop/order.proto',
  package: 'shop',
  syntax: 'proto3',
  dependency: ['google/protobuf/timestamp.proto'],
  messageType: [
    {
      name: 'Order',
      field: [
        { name: 'id', number: 1, label: Label.OPTIONAL, type: Type.INT64, jsonName: 'id' },
        { name: 'item', number: 2, label: Label.OPTIONAL, type: Type.STRING, jsonName: 'item' },
        { name: 'qty', number: 3, label: Label.OPTIONAL, type: Type.INT32, jsonName: 'qty' },
        { name: 'status', number: 4, label: Label.OPTIONAL, type: Type.ENUM, typeName: '.shop.Order.Status', jsonName: 'status' },
        { name: 'tags', number: 5, label: Label.REPEATED, type: Type.STRING, jsonName: 'tags' },
        { name: 'at', number: 6, label: Label.OPTIONAL, type: Type.MESSAGE, typeName: '.google.protobuf.Timestamp', jsonName: 'at' },
      ],
      enumType: [
        {
          name: 'Status',
          value: [
            { name: 'NEW', number: 0 },
            { name: 'PAID', number: 1 },
          ],
        },
      ],
    },
  ],
});
const TYPES = createFileRegistry(ORDER_FILE, (name) => (name === 'google/protobuf/timestamp.proto' ? file_google_protobuf_timestamp : undefined));
const ORDER: DescMessage = TYPES.getMessage('shop.Order')!;
// Now, not a fixed past date: the brokers delete records older than their 7-day retention.
const T0 = Date.now();

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

interface Order {
  readonly id: bigint;
  readonly item: string;
  readonly qty: number;
  readonly status: number;
  readonly tags: string[];
  readonly atMs: number;
}
/** Ids past 2^53, which a JavaScript number cannot hold. */
const order = (i: number): Order => ({
  id: 9_007_199_254_740_993n + BigInt(i),
  item: `item-${i}`,
  qty: i,
  status: i % 3 === 0 ? 1 : 0,
  tags: i % 2 === 0 ? [] : [`t${i}`, 'x'],
  atMs: T0 + i,
});

const registryClient = (url: string): SchemaRegistryClient => new SchemaRegistryClient({ baseURLs: [url] });

/** The serializer of a service writing Orders to `topic` through the registry at `url` (it registers the schema itself). */
function orderWriter(url: string, topic: string): { serialize(o: Order): Promise<Buffer> } {
  const serializer = new ProtobufSerializer(registryClient(url), SerdeType.VALUE, { autoRegisterSchemas: true, registry: createMutableRegistry(ORDER) });
  return {
    serialize: (o) =>
      serializer.serialize(
        topic,
        create(ORDER, {
          id: o.id,
          item: o.item,
          qty: o.qty,
          status: o.status,
          tags: o.tags,
          at: { seconds: BigInt(Math.floor(o.atMs / 1000)), nanos: (o.atMs % 1000) * 1_000_000 },
        }),
      ),
  };
}

const TRANSFORMS = [
  { type: 'insert_field', static_field: 'origin', static_value: 'eu' },
  { type: 'cast', spec: ['qty:string'] },
];

describe('the protobuf converter: field transforms on Protobuf records, read back through the target registry', { timeout: 600_000 }, () => {
  const registries = useSchemaRegistries();

  test('insert_field and cast change Protobuf values; a consumer of the target reads the new fields with the target registry; unreadable records go to the dead letters', async () => {
    const prefix = uniqueName('protobuf');
    const topic = `${prefix}.orders`;
    const remote = `primary.${topic}`;
    const dlq = `${prefix}-dlq`;
    const writer = orderWriter(registries.source.url, topic);
    const orders = Array.from({ length: 30 }, (_, i) => order(i));
    const values: Buffer[] = [];
    for (const o of orders) values.push(await writer.serialize(o));
    // Not in the wire format, and an id the source registry does not know: both fail the protobuf converter.
    values.push(Buffer.from('{"not":"protobuf"}'));
    const unknown = Buffer.from(values[0]!);
    unknown.writeInt32BE(unknown.readInt32BE(1) + 5000, 1);
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
        converter: { value: 'protobuf' },
        transforms: TRANSFORMS,
        schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } },
      },
    });
    assert.equal(copied.length, orders.length);
    const deserializer = new ProtobufDeserializer(registryClient(registries.target.url), SerdeType.VALUE, {});
    const read: unknown[] = [];
    for (const r of copied) {
      const { $typeName, id, item, qty, status, tags, at, origin } = (await deserializer.deserialize(remote, r.value!)) as Record<string, unknown>;
      const { seconds, nanos } = at as { seconds: bigint; nanos: number };
      read.push({ $typeName, id, item, qty, status, tags, atMs: Number(seconds) * 1000 + nanos / 1_000_000, origin });
    }
    assert.deepEqual(
      read,
      orders.map((o) => ({
        // ProtobufData names the Connect struct by the message's name, not its full name, and writes its file so.
        $typeName: 'Order',
        id: o.id,
        item: o.item,
        qty: String(o.qty),
        status: o.status,
        tags: o.tags,
        atMs: o.atMs,
        origin: 'eu',
      })),
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

  test('a flow with a protobuf converter and no schema_registry is refused, naming the key', async () => {
    const { file } = await writePipeline({
      flows: [{ topics: ['x'], converter: { value: 'protobuf' }, transforms: TRANSFORMS }],
    });
    const result = await runCli(['validate', file], 60_000);
    assert.equal(result.code, 78, `exit code; stderr:\n${result.stderr}`);
    assert.match(result.stderr, /:\d+:\d+: flows\[0\]\.converter\.value: the protobuf converter needs the flow's schema_registry/);
  });
});
