import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isObservable, lastValueFrom, type Observable } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import { SchemaRegistryRefusal, type RegisteredSchema, type SchemaRegistryClient } from '../../core/ports/schema-registry';
import type { DecodedSourceBatch, SourceBatch } from '../../core/record';
import type { RegistryConverter } from '../../plugins';
import { OutageStatus } from '../status/outage-status';
import { RegistrySchemaFetch } from './registry-schema-fetch';
import { VirtualClock } from '../virtual-clock';

const silent: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {}, child: () => silent };

/** A converter that only remembers what it was given. */
function recordingConverter(name: string): RegistryConverter & { readonly given: Map<number, string> } {
  const given = new Map<number, string>();
  return {
    name,
    schemaType: 'JSON',
    given,
    knows: (id) => given.has(id),
    addSchema: (id, schema) => given.set(id, schema.schema),
    refuse: (id, reason) => given.set(id, `refused: ${reason}`),
    read: () => null,
    write: () => null,
    writtenSchema: () => undefined,
  };
}

function registry(schemas: ReadonlyMap<number, string>): SchemaRegistryClient & { readonly calls: number[] } {
  const calls: number[] = [];
  const schemaById = async (id: number): Promise<RegisteredSchema> => {
    calls.push(id);
    const schema = schemas.get(id);
    if (schema === undefined) throw new SchemaRegistryRefusal(`schema id ${id} is not known (40403)`, 404, 40403);
    return { schema, schemaType: 'JSON', references: [] };
  };
  const unused = () => Promise.reject(new Error('not asked'));
  return {
    url: 'http://registry.test',
    calls,
    schemaById,
    schemaByVersion: unused,
    register: unused,
    versionOf: unused,
    listSubjects: unused,
    listVersions: unused,
    subjectVersion: unused,
  };
}

function framed(id: number): Buffer {
  const bytes = Buffer.alloc(6);
  bytes.writeInt32BE(id, 1);
  return bytes;
}

function batch(sides: readonly (readonly [Buffer | null, Buffer | null])[], topic = 'orders'): DecodedSourceBatch {
  const records = sides.map(([key, value], offset) => ({ topic, partition: 0, offset, timestamp: 1, key, value, headers: [] }));
  return { kind: 'records', topic, partition: 0, records, nextOffset: records.length, highWatermark: records.length, bytes: 10 };
}

function fetcher(source: SchemaRegistryClient, converters: ConstructorParameters<typeof RegistrySchemaFetch>[0]['converters']) {
  const clock = new VirtualClock();
  return new RegistrySchemaFetch({
    source,
    converters,
    passes: (topic) => topic === 'heartbeats',
    outage: new OutageStatus().tracker('primary', 'reading schemas', silent, () => clock.now),
    scheduler: clock.scheduler,
    logger: silent,
  });
}

async function settle(prepared: SourceBatch | Observable<SourceBatch>): Promise<SourceBatch> {
  return isObservable(prepared) ? lastValueFrom(prepared) : prepared;
}

test("each side's converter gets the writer schemas of its new ids, an id two converters miss asked once; a warm batch passes synchronously", async () => {
  const source = registry(
    new Map([
      [1, '{"type":"string"}'],
      [2, '{"type":"object"}'],
    ]),
  );
  const keys = recordingConverter('avro');
  const values = recordingConverter('json_schema');
  const fetch = fetcher(source, { key: keys, value: values });
  const first = batch([
    [framed(1), framed(2)],
    [framed(1), framed(1)],
    [null, Buffer.from('not in the wire format')],
  ]);
  assert.equal(await settle(fetch.prepare(first)), first);
  assert.deepEqual(source.calls, [1, 2]);
  assert.deepEqual([...keys.given], [[1, '{"type":"string"}']]);
  assert.deepEqual(
    [...values.given].sort(([a], [b]) => a - b),
    [
      [1, '{"type":"string"}'],
      [2, '{"type":"object"}'],
    ],
  );
  assert.equal(fetch.prepare(first), first, 'every id known: no promise, no request');
  assert.deepEqual(source.calls, [1, 2]);
});

test('an id the source registry refuses is remembered by the converter, so it is asked once; heartbeats are never looked into', async () => {
  const source = registry(new Map());
  const values = recordingConverter('json_schema');
  const fetch = fetcher(source, { value: values });
  await settle(fetch.prepare(batch([[null, framed(9)]])));
  assert.match(values.given.get(9)!, /^refused: schema id 9 is not known/);
  assert.ok(!isObservable(fetch.prepare(batch([[null, framed(9)]]))));
  assert.ok(!isObservable(fetch.prepare(batch([[null, framed(1)]], 'heartbeats'))));
  assert.deepEqual(source.calls, [9]);
});
