/**
 * `mirrorflow schemas copy` against two real registries (test/support/schema-registry.ts:
 * Apicurio Registry from Maven Central). The source holds what users' services registered with
 * Confluent's npm client: three compatible versions of an Avro subject for a topic the flow
 * replicates, and a subject for a topic it does not. The copy connects to no Kafka cluster.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { uniqueName } from '../support/clusters';
import { runCli, writePipeline } from '../support/pipeline-harness';
import { useSchemaRegistries } from '../support/use-schema-registries';

const REGISTRY_PASSWORD = 'registry-pass-c0py51';

/** Version n of a customer record: each adds an optional field, so each is compatible with the ones before. */
function customer(n: number): string {
  const fields: unknown[] = [{ name: 'id', type: 'long' }];
  for (let i = 2; i <= n; i++) fields.push({ name: `extra${i}`, type: ['null', 'string'], default: null });
  return JSON.stringify({ type: 'record', name: 'Customer', namespace: 'crm', fields });
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `GET ${url}: ${await response.clone().text()}`);
  return response.json();
}

const subjectsOf = async (registry: string): Promise<string[]> => (await getJson(`${registry}/subjects`)) as string[];

interface CopyJson {
  readonly flows: readonly {
    readonly subjects: readonly { subject: string; targetSubject: string; versions: { version: number; sourceId: number; targetId?: number }[] }[];
  }[];
}

describe('schemas copy: a flow’s subjects and all their versions in the target registry', { timeout: 600_000 }, () => {
  const registries = useSchemaRegistries();

  test('every version lands in order under the remote topic’s subject, only the flow’s subjects, idempotently; --dry-run writes nothing', async () => {
    const prefix = uniqueName('sc');
    const topic = `${prefix}.customers`;
    const subject = `${topic}-value`;
    const targetSubject = `primary.${topic}-value`;
    const other = `${prefix}-other.events-value`;
    const source = new SchemaRegistryClient({ baseURLs: [registries.source.url] });
    const sourceIds: number[] = [];
    for (let n = 1; n <= 3; n++) sourceIds.push(await source.register(subject, { schemaType: 'AVRO', schema: customer(n) }));
    await source.register(other, { schemaType: 'AVRO', schema: JSON.stringify({ type: 'enum', name: 'Kind', symbols: ['A', 'B'] }) });
    // The target gave its first ids to other schemas: its ids differ from the source's.
    const target = new SchemaRegistryClient({ baseURLs: [registries.target.url] });
    for (let i = 0; i < 2; i++)
      await target.register(`${prefix}-unrelated`, { schemaType: 'AVRO', schema: JSON.stringify({ type: 'fixed', name: `F${i}`, size: 4 }) });

    const { file } = await writePipeline({
      flows: [{ topics: [`${prefix}\\..*`], schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } } }],
    });

    const dry = await runCli(['schemas', 'copy', file, '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stderr);
    const planned = JSON.parse(dry.stdout) as CopyJson;
    assert.deepEqual(
      planned.flows[0]!.subjects.map((s) => [s.subject, s.targetSubject, s.versions.map((v) => [v.version, v.sourceId])]),
      [[subject, targetSubject, sourceIds.map((id, i) => [i + 1, id])]],
    );
    assert.ok(!(await subjectsOf(registries.target.url)).includes(targetSubject), '--dry-run registered nothing');

    const copy = await runCli(['schemas', 'copy', file]);
    assert.equal(copy.code, 0, copy.stderr);
    assert.match(copy.stdout, new RegExp(`${subject} -> ${targetSubject}: 3 of 3 version\\(s\\) copied`));

    const versions = (await getJson(`${registries.target.url}/subjects/${encodeURIComponent(targetSubject)}/versions`)) as number[];
    assert.deepEqual(versions, [1, 2, 3]);
    const targetIds: number[] = [];
    for (const v of versions) {
      const got = (await getJson(`${registries.target.url}/subjects/${encodeURIComponent(targetSubject)}/versions/${v}`)) as { schema: string; id: number };
      assert.deepEqual(JSON.parse(got.schema), JSON.parse(customer(v)), `version ${v} is the source's version ${v}`);
      targetIds.push(got.id);
    }
    assert.notDeepEqual(targetIds, sourceIds, 'the target has its own ids');
    const targetSubjects = await subjectsOf(registries.target.url);
    assert.ok(!targetSubjects.some((s) => s.includes('-other.events')), `the other topic's subject was not copied: ${targetSubjects.join(', ')}`);

    const again = await runCli(['schemas', 'copy', file, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const second = JSON.parse(again.stdout) as CopyJson;
    assert.deepEqual(
      second.flows[0]!.subjects[0]!.versions.map((v) => [v.sourceId, v.targetId]),
      sourceIds.map((id, i) => [id, targetIds[i]]),
      'source id -> target id per version',
    );
    assert.deepEqual(
      await getJson(`${registries.target.url}/subjects/${encodeURIComponent(targetSubject)}/versions`),
      [1, 2, 3],
      'a second copy adds no version',
    );
  });

  test('a version the target refuses as incompatible is reported naming subject and version, the rest copied, exit 65', async () => {
    const prefix = uniqueName('sc');
    const topic = `${prefix}.accounts`;
    const subject = `${topic}-value`;
    const targetSubject = `primary.${topic}-value`;
    const record = (fields: unknown[]): string => JSON.stringify({ type: 'record', name: 'Account', namespace: 'crm', fields });
    // The target subject exists already with BACKWARD compatibility: a required new field is refused, an optional one is not.
    const target = new SchemaRegistryClient({ baseURLs: [registries.target.url] });
    await target.register(targetSubject, { schemaType: 'AVRO', schema: record([{ name: 'id', type: 'long' }]) });
    const config = await fetch(`${registries.target.url}/config/${encodeURIComponent(targetSubject)}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    assert.equal(config.status, 200, await config.text());
    const source = new SchemaRegistryClient({ baseURLs: [registries.source.url] });
    await source.register(subject, {
      schemaType: 'AVRO',
      schema: record([
        { name: 'id', type: 'long' },
        { name: 'owner', type: 'string' },
      ]),
    });
    const optional = record([
      { name: 'id', type: 'long' },
      { name: 'owner', type: ['null', 'string'], default: null },
    ]);
    await source.register(subject, { schemaType: 'AVRO', schema: optional });

    const { file } = await writePipeline({
      flows: [{ topics: [`${prefix}\\..*`], schema_registry: { source: { url: registries.source.url }, target: { url: registries.target.url } } }],
    });
    const result = await runCli(['schemas', 'copy', file]);
    assert.equal(result.code, 65, result.stderr);
    assert.match(result.stdout, new RegExp(`${subject} -> ${targetSubject}: 1 of 2 version\\(s\\) copied`));
    assert.match(result.stdout, /version 1: id \d+ REFUSED: .*409/);
    assert.match(result.stderr, /refused 1 version\(s\)/);
    const versions = (await getJson(`${registries.target.url}/subjects/${encodeURIComponent(targetSubject)}/versions`)) as number[];
    assert.equal(versions.length, 2, 'the compatible version was copied after the refused one');
    const latest = (await getJson(`${registries.target.url}/subjects/${encodeURIComponent(targetSubject)}/versions/latest`)) as { schema: string };
    assert.deepEqual(JSON.parse(latest.schema), JSON.parse(optional));
  });

  test('an unreachable registry: a clear message, exit 69, and the password in neither output', async () => {
    const { file } = await writePipeline({
      flows: [
        {
          topics: ['.*'],
          schema_registry: {
            source: { url: 'http://127.0.0.1:9/apis/ccompat/v7', basic_auth: { username: 'mirror', password: REGISTRY_PASSWORD } },
            target: { url: registries.target.url },
          },
        },
      ],
    });
    const result = await runCli(['schemas', 'copy', file]);
    assert.equal(result.code, 69, result.stderr);
    assert.match(result.stderr, /listing the subjects: the Schema Registry at http:\/\/127\.0\.0\.1:9\/apis\/ccompat\/v7 cannot be reached/);
    assert.doesNotMatch(result.stdout + result.stderr, new RegExp(REGISTRY_PASSWORD));
  });
});
