/**
 * A transform plugin installed as an npm package beside the pipeline file (its folder's
 * node_modules) and named in `plugins:` is used by `mirrorflow run` against real brokers: the
 * records arrive with their values masked by it, keys, headers (a null value among them),
 * timestamps and a tombstone as they were.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { stringify } from '#yaml';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { spawnPipeline, writePipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';
import { installPluginPackages, MASK_PACKAGE } from './npm-plugin-package';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const T0 = 1_700_000_000_000;

describe('a plugin from an npm package', () => {
  test('run loads it from node_modules beside the pipeline file and the target gets what it wrote', async () => {
    const prefix = uniqueName('npm-plugin');
    const topic = `${prefix}.cards`;
    const written: TestRecord[] = [
      { partition: 0, key: Buffer.from('k1'), value: Buffer.from('card 4111-1111'), headers: [{ key: 'trace', value: null }], timestamp: T0 },
      { partition: 0, key: Buffer.from('k2'), value: Buffer.from('no digits'), headers: [], timestamp: T0 + 1 },
      { partition: 0, key: Buffer.from('k3'), value: null, headers: [{ key: 'a', value: Buffer.from('1') }], timestamp: T0 + 2 },
    ];
    await source.createTopic(topic, 1);
    await source.produce(topic, written);

    const pipeline = await writePipeline({ flows: [{ topics: [`${prefix}\\..*`], transforms: [{ type: 'mask_digits', mask: '*' }] }] });
    installPluginPackages(pipeline.dir);
    writeFileSync(pipeline.file, stringify({ ...pipeline.document, plugins: [MASK_PACKAGE] }));
    const run = spawnPipeline(pipeline.file);

    const remote = `primary.${topic}`;
    const copied = await waitFor(
      async () => {
        const records = (await target.readAll(remote).catch(() => new Map())).get(0) ?? [];
        return records.length >= written.length ? records : undefined;
      },
      { what: `${written.length} records on ${remote}`, timeoutMs: 90_000 },
    );
    run.kill('SIGTERM');
    const result = await run.exited;
    assert.equal(result.code, 0, result.stderr);

    const expected = written.map((r) => ({ ...r, value: r.value === null ? null : Buffer.from(r.value.toString('utf8').replace(/[0-9]/g, '*')) }));
    assert.deepEqual(snapshot(copied), snapshot(expected));
  });
});
