import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { convertMm2Properties } from './convert-mm2-properties';
import { readPipelineFile } from '../load-pipeline-file';

/** The repository's `pipelines/`, seen from `dist/src/config/mm2/`. */
const pipelinesDir = resolve(__dirname, '../../../../pipelines');
const files = readdirSync(pipelinesDir).filter((name) => name.endsWith('.properties'));

describe('example mm2.properties files in pipelines/', () => {
  it('exist', () => assert.ok(files.includes('mm2.properties')));

  for (const name of files) {
    it(`${name} runs as MM2 would, warned only of the Connect topics mirrorflow has no use for, and converts to the same pipeline`, async () => {
      const path = join(pipelinesDir, name);
      const { config, warnings } = await readPipelineFile(path, { env: {} });
      // Kafka's example sizes Connect's status and config topics, which mirrorflow does not keep: said at their lines.
      assert.deepEqual(
        warnings.map((w) => w.path),
        ['status.storage.replication.factor', 'config.storage.replication.factor'],
      );
      assert.ok(config.flows.some((f) => f.enabled));
      convertMm2Properties(readFileSync(path, 'utf8'), path, { env: {}, check: true });
    });
  }

  it('mm2.properties replicates primary to backup, and emits heartbeats back', async () => {
    const { config } = await readPipelineFile(join(pipelinesDir, 'mm2.properties'), { env: {} });
    assert.deepEqual(
      config.flows.map((f) => [f.name, f.enabled, f.heartbeats.enabled, f.topic_sync.replication_factor]),
      [
        ['primary->backup', true, true, 1],
        ['backup->primary', false, true, 1],
      ],
    );
  });
});
