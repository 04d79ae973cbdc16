/**
 * The Schema Registry the tests run (test/support/schema-registry.ts: Apicurio Registry from
 * Maven Central) answers Confluent's own npm client as a Confluent registry does: a schema
 * registered under a subject gets an id, records serialized with it carry that id in Confluent's
 * wire format, and a deserializer with a client of its own reads them back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { AvroDeserializer, AvroSerializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import { SerdeType } from '@confluentinc/schemaregistry/dist/serde/serde';
import { startSchemaRegistry, type SchemaRegistry } from '../support/schema-registry';

const ORDER = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'item', type: 'string' },
  ],
};

describe('the tests’ Schema Registry (Apicurio Registry from Maven Central)', { timeout: 600_000 }, () => {
  let registry: SchemaRegistry | undefined;
  before(async () => {
    registry = await startSchemaRegistry();
  });
  after(async () => {
    await registry?.stop();
  });

  it("registers schemas and serves them to Confluent's npm serializer and deserializer", async () => {
    const url = registry!.url;
    const client = new SchemaRegistryClient({ baseURLs: [url] });
    const id = await client.register('orders-value', { schemaType: 'AVRO', schema: JSON.stringify(ORDER) });
    const serializer = new AvroSerializer(client, SerdeType.VALUE, { useLatestVersion: true });
    const bytes = await serializer.serialize('orders', { id: 7, item: 'tea' });
    assert.equal(bytes[0], 0, 'the magic byte');
    assert.equal(bytes.readInt32BE(1), id, 'the id the registry gave the schema');

    const reader = new AvroDeserializer(new SchemaRegistryClient({ baseURLs: [url] }), SerdeType.VALUE, {});
    assert.deepEqual({ ...(await reader.deserialize('orders', bytes)) }, { id: 7, item: 'tea' });
    assert.deepEqual(await client.getAllSubjects(), ['orders-value']);
  });
});
