import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isObservable, lastValueFrom, type Observable } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import {
  SchemaRegistryError,
  SchemaRegistryRefusal,
  SchemaRegistryUnavailableError,
  type RegisteredSchema,
  type SchemaRegistryClient,
  type SubjectVersion,
} from '../../core/ports/schema-registry';
import type { DecodedFlowBatch, MirrorRecord } from '../../core/record';
import { OutageStatus } from '../status/outage-status';
import { SchemaIdTranslation, type SchemaIdTranslationOptions } from './schema-id-translation';
import { VirtualClock } from '../virtual-clock';

const silent: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {}, child: () => silent };

const ORDER: RegisteredSchema = { schema: '{"type":"record","name":"Order","fields":[]}', schemaType: 'AVRO', references: [] };

/** A registry in memory: ids in order of registration, starting at `firstId`; every call counted. */
class MemoryRegistry implements SchemaRegistryClient {
  readonly url = 'http://registry.test';
  readonly calls: string[] = [];
  readonly byId = new Map<number, RegisteredSchema>();
  readonly subjects = new Map<string, { schema: RegisteredSchema; id: number }[]>();
  failing = 0;
  private nextId: number;

  constructor(firstId: number) {
    this.nextId = firstId;
  }

  private call(what: string): void {
    this.calls.push(what);
    if (this.failing > 0) {
      this.failing--;
      throw new SchemaRegistryUnavailableError(`${what}: the Schema Registry at ${this.url} cannot be reached (ECONNREFUSED)`);
    }
  }

  add(subject: string, schema: RegisteredSchema): number {
    const same = [...this.byId].find(([, s]) => JSON.stringify(s) === JSON.stringify(schema));
    const id = same?.[0] ?? this.nextId++;
    this.byId.set(id, schema);
    const versions = this.subjects.get(subject) ?? [];
    if (!versions.some((v) => v.id === id)) versions.push({ schema, id });
    this.subjects.set(subject, versions);
    return id;
  }

  async schemaById(id: number): Promise<RegisteredSchema> {
    this.call(`schemaById ${id}`);
    const schema = this.byId.get(id);
    if (schema === undefined)
      throw new SchemaRegistryRefusal(`reading schema id ${id}: the Schema Registry at ${this.url} answered 404 (error code 40403)`, 404, 40403);
    return schema;
  }
  async schemaByVersion(subject: string, version: number): Promise<RegisteredSchema> {
    this.call(`schemaByVersion ${subject} ${version}`);
    const found = this.subjects.get(subject)?.[version - 1];
    if (found === undefined) throw new SchemaRegistryRefusal(`no version ${version} of ${subject}`, 404, 40402);
    return found.schema;
  }
  async register(subject: string, schema: RegisteredSchema): Promise<number> {
    this.call(`register ${subject}`);
    return this.add(subject, schema);
  }
  async versionOf(subject: string, schema: RegisteredSchema): Promise<number> {
    this.call(`versionOf ${subject}`);
    const index = (this.subjects.get(subject) ?? []).findIndex((v) => JSON.stringify(v.schema) === JSON.stringify(schema));
    if (index < 0) throw new SchemaRegistryRefusal(`not under ${subject}`, 404, 40403);
    return index + 1;
  }
  async listSubjects(): Promise<string[]> {
    return [...this.subjects.keys()];
  }
  async listVersions(subject: string): Promise<number[]> {
    return (this.subjects.get(subject) ?? []).map((_, i) => i + 1);
  }
  async subjectVersion(subject: string, version: number): Promise<SubjectVersion> {
    const found = this.subjects.get(subject)?.[version - 1];
    if (found === undefined) throw new SchemaRegistryRefusal(`no version ${version} of ${subject}`, 404, 40402);
    return { ...found.schema, id: found.id, version };
  }
}

function framed(id: number, payload: number[]): Buffer {
  const bytes = Buffer.alloc(5 + payload.length);
  bytes.writeInt32BE(id, 1);
  Buffer.from(payload).copy(bytes, 5);
  return bytes;
}

function record(offset: number, value: Buffer | null, key: Buffer | null = null, topic = 'primary.orders'): MirrorRecord {
  return { source: { topic: 'orders', partition: 0, offset }, topic, partition: 0, timestamp: 1, key, value, headers: [] };
}

function batch(records: MirrorRecord[]): DecodedFlowBatch {
  return { kind: 'records', source: { topic: 'orders', partition: 0 }, records, nextOffset: 100, highWatermark: 100, bytes: 10, sourceRecords: records.length };
}

function setup(overrides: Partial<SchemaIdTranslationOptions> = {}) {
  const clock = new VirtualClock();
  const source = new MemoryRegistry(1);
  const target = new MemoryRegistry(1);
  // The target's registry gave its first ids to other schemas: the same schema gets other ids there.
  target.add('unrelated-value', { ...ORDER, schema: '"string"' });
  target.add('unrelated-value', { ...ORDER, schema: '"long"' });
  const outages = new OutageStatus();
  const translation = new SchemaIdTranslation({
    source,
    target,
    sides: ['value'],
    strict: false,
    path: 'flow primary->backup',
    errorTolerance: 'all',
    outages: {
      source: outages.tracker('primary', 'reading schemas', silent, () => clock.now),
      target: outages.tracker('backup', 'registering schemas', silent, () => clock.now),
    },
    scheduler: clock.scheduler,
    logger: silent,
    ...overrides,
  });
  return { clock, source, target, outages, translation };
}

async function settle(result: DecodedFlowBatch | Observable<DecodedFlowBatch>): Promise<DecodedFlowBatch> {
  return isObservable(result) ? lastValueFrom(result) : result;
}

test("each schema id becomes the target registry's id of the same schema under the target topic's subject; payload and other fields stay", async () => {
  const { source, target, translation } = setup({ sides: ['key', 'value'] });
  const sourceId = source.add('orders-value', ORDER);
  const keyId = source.add('orders-key', { ...ORDER, schema: '"string"' });
  const out = await settle(translation.translate(batch([record(7, framed(sourceId, [4, 0x61, 0x62]), framed(keyId, [2, 0x6b]))])));

  const targetId = target.subjects.get('primary.orders-value')![0]!.id;
  assert.notEqual(targetId, sourceId, 'the registries gave the schema different ids');
  assert.deepEqual([...out.records[0]!.value!], [...framed(targetId, [4, 0x61, 0x62])]);
  assert.deepEqual(target.byId.get(targetId), ORDER);
  // The key's schema is the target's "string" of another subject: registered under the key subject with that id.
  assert.equal(out.records[0]!.key!.readInt32BE(1), 1);
  assert.deepEqual(target.subjects.get('primary.orders-key')?.[0]?.id, 1);
  assert.deepEqual(out.records[0]!.source, { topic: 'orders', partition: 0, offset: 7 });
});

test('the registries are asked once per subject and id: a batch of many records with one id asks once, and a later batch passes without waiting', async () => {
  const { source, target, translation } = setup();
  const id = source.add('orders-value', ORDER);
  const records = Array.from({ length: 500 }, (_, i) => record(i, framed(id, [i % 256])));
  const first = translation.translate(batch(records));
  assert.ok(isObservable(first), 'the first batch waits for the registries');
  await settle(first);
  assert.deepEqual(source.calls, [`schemaById ${id}`]);
  assert.deepEqual(target.calls, ['register primary.orders-value']);

  const second = translation.translate(batch(records));
  assert.ok(!isObservable(second), 'known ids are rewritten at once');
  assert.equal(second.records.length, 500);
  assert.equal(source.calls.length + target.calls.length, 2);

  // Another topic with the same source schema: the source schema is not read again.
  await settle(translation.translate(batch([record(1, framed(id, [1]), null, 'primary.payments')])));
  assert.deepEqual(source.calls, [`schemaById ${id}`]);
  assert.deepEqual(target.calls, ['register primary.orders-value', 'register primary.payments-value']);
});

test('an unknown id is a record error: dead-lettered with tolerance all, naming the id and the subject', async () => {
  const { source, translation } = setup();
  const id = source.add('orders-value', ORDER);
  const out = await settle(translation.translate(batch([record(1, framed(id, [1])), record(2, framed(999, [2])), record(3, framed(id, [3]))])));
  assert.deepEqual(
    out.records.map((r) => r.source.offset),
    [1, 3],
  );
  assert.equal(out.deadLetters?.length, 1);
  const failure = out.deadLetters![0]!;
  assert.equal(failure.record.source.offset, 2);
  assert.match(
    failure.error.message,
    /offset 2 failed in transform "schema_registry" \(flow primary->backup\): schema id 999 of its value could not be moved to subject "primary\.orders-value": .*404 \(error code 40403\)/,
  );
});

test('a refused id is kept: later batches with it fail at once without asking the registry, until the refusal is a minute old', async () => {
  const { clock, source, translation } = setup();
  const id = source.add('orders-value', ORDER);
  const bad = (offset: number) => record(offset, framed(999, [offset]));
  const first = await settle(translation.translate(batch([bad(1), record(2, framed(id, [2])), bad(3)])));
  assert.deepEqual(
    first.deadLetters?.map((f) => f.record.source.offset),
    [1, 3],
  );
  assert.deepEqual(source.calls, ['schemaById 999', `schemaById ${id}`]);

  for (let i = 0; i < 5; i++) {
    await clock.advance(10_000);
    const later = translation.translate(batch([bad(10 + i), record(20 + i, framed(id, [i]))]));
    assert.ok(!isObservable(later), 'a refused id does not wait for a registry');
    assert.deepEqual(
      later.records.map((r) => r.source.offset),
      [20 + i],
    );
    assert.match(
      later.deadLetters![0]!.error.message,
      /schema id 999 of its value could not be moved to subject "primary\.orders-value": .*404 \(error code 40403\)/,
    );
  }
  assert.equal(source.calls.filter((c) => c === 'schemaById 999').length, 1, 'asked once in 50 s');

  // A minute after the refusal the source registry is asked again, and now knows the schema.
  await clock.advance(10_000);
  source.byId.set(999, ORDER);
  const after = await settle(translation.translate(batch([bad(30)])));
  assert.equal(source.calls.filter((c) => c === 'schemaById 999').length, 2);
  assert.deepEqual(
    after.records.map((r) => r.source.offset),
    [30],
  );
  assert.equal(after.deadLetters, undefined);
});

test('refusals are kept for the latest 1024 subject and id pairs only', async () => {
  const { source, translation } = setup();
  const ids = Array.from({ length: 1025 }, (_, i) => 5000 + i);
  await settle(translation.translate(batch(ids.map((id, i) => record(i, framed(id, [1]))))));
  assert.equal(source.calls.length, 1025);
  // The newest is still kept; the oldest was let go, and is asked again.
  assert.ok(!isObservable(translation.translate(batch([record(1, framed(ids.at(-1)!, [1]))]))));
  await settle(translation.translate(batch([record(1, framed(ids[0]!, [1]))])));
  assert.equal(source.calls.length, 1026);
  assert.equal(source.calls.at(-1), `schemaById ${ids[0]}`);
});

test('with tolerance none the batch ends just before the record with an unknown id, which fails the flow', async () => {
  const { source, translation } = setup({ errorTolerance: 'none' });
  const id = source.add('orders-value', ORDER);
  const out = await settle(translation.translate(batch([record(10, framed(id, [1])), record(11, framed(404, [2])), record(12, framed(id, [3]))])));
  assert.deepEqual(
    out.records.map((r) => r.source.offset),
    [10],
  );
  assert.equal(out.nextOffset, 11);
  assert.equal(out.sourceRecords, 1);
  assert.match(out.failure?.message ?? '', /offset 11 .*schema id 404/);
});

test('sides that are null or not in the wire format pass unchanged; with strict, one not in the format fails', async () => {
  const plain = record(1, Buffer.from('{"id":1}'));
  const tombstone = record(2, null);
  const lax = setup();
  const out = await settle(lax.translation.translate(batch([plain, tombstone])));
  assert.deepEqual(out.records, [plain, tombstone]);
  assert.equal(lax.source.calls.length, 0);

  const strict = setup({ strict: true });
  const failed = await settle(strict.translation.translate(batch([plain, tombstone])));
  assert.deepEqual(failed.records, [tombstone]);
  assert.match(failed.deadLetters![0]!.error.message, /its value is not in the Confluent wire format .*schema_registry\.strict is on/);
});

test('schemas a schema refers to are registered in the target first, and the reference names the version the target gave them', async () => {
  const { source, target, translation } = setup();
  const address: RegisteredSchema = { schema: '{"type":"record","name":"Address","fields":[]}', schemaType: 'AVRO', references: [] };
  source.add('unused', { ...ORDER, schema: '"int"' });
  source.add('shop.Address', { ...address, schema: '{"type":"record","name":"Address","fields":[],"doc":"v1"}' });
  source.add('shop.Address', address); // version 2 in the source
  const withRef: RegisteredSchema = { ...ORDER, references: [{ name: 'shop.Address', subject: 'shop.Address', version: 2 }] };
  const id = source.add('orders-value', withRef);

  const out = await settle(translation.translate(batch([record(1, framed(id, [1]))])));
  assert.deepEqual(target.calls, ['register shop.Address', 'versionOf shop.Address', 'register primary.orders-value']);
  const targetId = out.records[0]!.value!.readInt32BE(1);
  assert.deepEqual(target.byId.get(targetId)?.references, [{ name: 'shop.Address', subject: 'shop.Address', version: 1 }], 'version 1 in the target');
  assert.deepEqual(target.subjects.get('shop.Address')?.[0]?.schema, address);
});

test('an unreachable registry is an outage: retried with backoff and reported until it answers, and nothing is dropped', async () => {
  const { clock, source, outages, translation } = setup();
  const id = source.add('orders-value', ORDER);
  source.failing = 3;
  const result: { batch?: DecodedFlowBatch } = {};
  void settle(translation.translate(batch([record(1, framed(id, [1]))]))).then((b) => (result.batch = b));
  await clock.advance(1_000);
  assert.ok(result.batch === undefined, 'still waiting for the registry');
  assert.deepEqual(
    outages.current.map((o) => [o.cluster, o.operation]),
    [['primary', 'reading schemas']],
  );
  assert.match(outages.current[0]!.lastError, /cannot be reached \(ECONNREFUSED\)/);
  await clock.advance(10_000);
  const done = result.batch as DecodedFlowBatch | undefined;
  assert.equal(done?.records.length, 1);
  assert.equal(done.deadLetters, undefined);
  assert.deepEqual(outages.current, []);
});

test('a registry that refuses the credentials stops the flow rather than failing each record', async () => {
  const { source, target, translation } = setup();
  const id = source.add('orders-value', ORDER);
  target.register = () => Promise.reject(new SchemaRegistryError('the Schema Registry at http://registry.test answered 401; check its credentials'));
  await assert.rejects(settle(translation.translate(batch([record(1, framed(id, [1]))]))), SchemaRegistryError);
});

test('a side the avro converter wrote (a local id) has the schema it was written with registered under the target subject, the source registry never asked; a refusal fails the record', async () => {
  const WRITTEN = '{"type":"record","name":"Order","fields":[{"name":"origin","type":"string"}]}';
  const { source, target, translation } = setup({ writers: { value: avroWriter((localId) => (localId === -1 ? WRITTEN : undefined)) } });
  const out = await settle(translation.translate(batch([record(1, framed(-1, [4, 0x65, 0x75])), record(2, framed(-1, [4, 0x65, 0x75]))])));
  const targetId = target.subjects.get('primary.orders-value')![0]!.id;
  assert.deepEqual(target.byId.get(targetId), { schema: WRITTEN, schemaType: 'AVRO', references: [] });
  assert.deepEqual(
    out.records.map((r) => [...r.value!]),
    [[...framed(targetId, [4, 0x65, 0x75])], [...framed(targetId, [4, 0x65, 0x75])]],
  );
  assert.deepEqual(source.calls, []);
  assert.deepEqual(target.calls, ['register primary.orders-value']);
  // Warm: the next batch passes synchronously.
  assert.ok(!isObservable(translation.translate(batch([record(3, framed(-1, [0]))]))));

  const refusing = setup({ writers: { value: avroWriter(() => WRITTEN) } });
  refusing.target.register = async () => {
    throw new SchemaRegistryRefusal('registering a schema under subject "primary.orders-value": answered 409 (error code 409)', 409, 409);
  };
  const failed = await settle(refusing.translation.translate(batch([record(5, framed(-2, [0]))])));
  assert.equal(failed.records.length, 0);
  assert.match(
    failed.deadLetters![0]!.error.message,
    /offset 5 .*the Avro schema the avro converter wrote its value with could not be registered under subject "primary\.orders-value": .*409/,
  );
});

function avroWriter(writtenSchema: (localId: number) => string | undefined): NonNullable<SchemaIdTranslationOptions['writers']>['value'] {
  return { name: 'avro', schemaType: 'AVRO', writtenSchema };
}

test('a registry converter registers what it wrote as its own schema type, per side: the key and the value of one topic may use different converters with the same local id', async () => {
  const KEY = '{"type":"string"}';
  const VALUE = '{"type":"object","properties":{"qty":{"type":"integer"}}}';
  const { source, target, translation } = setup({
    sides: ['key', 'value'],
    writers: {
      key: avroWriter((localId) => (localId === -1 ? KEY : undefined)),
      value: { name: 'json_schema', schemaType: 'JSON', writtenSchema: (localId) => (localId === -1 ? VALUE : undefined) },
    },
  });
  const out = await settle(translation.translate(batch([{ ...record(1, framed(-1, [0x7b, 0x7d])), key: framed(-1, [2, 0x61]) }])));
  const keyId = target.subjects.get('primary.orders-key')![0]!.id;
  const valueId = target.subjects.get('primary.orders-value')![0]!.id;
  assert.deepEqual(target.byId.get(keyId), { schema: KEY, schemaType: 'AVRO', references: [] });
  assert.deepEqual(target.byId.get(valueId), { schema: VALUE, schemaType: 'JSON', references: [] });
  assert.deepEqual([...out.records[0]!.key!], [...framed(keyId, [2, 0x61])]);
  assert.deepEqual([...out.records[0]!.value!], [...framed(valueId, [0x7b, 0x7d])]);
  assert.deepEqual(source.calls, []);

  const refusing = setup({ writers: { value: { name: 'json_schema', schemaType: 'JSON', writtenSchema: () => VALUE } } });
  refusing.target.register = async () => {
    throw new SchemaRegistryRefusal('registering a schema under subject "primary.orders-value": answered 422 (error code 42201)', 422, 42201);
  };
  const failed = await settle(refusing.translation.translate(batch([record(5, framed(-1, [0x7b, 0x7d]))])));
  assert.match(failed.deadLetters![0]!.error.message, /the JSON schema the json_schema converter wrote its value with could not be registered/);
});

test("MM2's heartbeats pass untouched, the registries never asked: their value (version 0, then a timestamp) only looks like schema id 1", async () => {
  const { source, target, translation } = setup({ strict: true, passes: (topic) => topic === 'heartbeats' });
  source.add('orders-value', ORDER); // id 1 is known: a heartbeat must not be "translated" as if it were one
  const heartbeat = Buffer.alloc(10);
  heartbeat.writeBigInt64BE(1_764_633_600_000n, 2); // version int16 0, then the timestamp: bytes 1-4 read as id 1
  assert.equal(heartbeat.readInt32BE(1), 1);
  const beat = {
    ...batch([{ ...record(3, heartbeat), source: { topic: 'heartbeats', partition: 0, offset: 3 }, topic: 'primary.heartbeats' }]),
    source: { topic: 'heartbeats', partition: 0 },
  };
  const out = await settle(translation.translate(beat));
  assert.equal(out, beat);
  assert.deepEqual([...out.records[0]!.value!], [...heartbeat]);
  assert.deepEqual([source.calls, target.calls], [[], []]);
});
