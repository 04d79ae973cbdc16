import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadPipelineFile } from './load-pipeline-file';
import { parsePipeline } from './parse-pipeline';

/** The repository's `pipelines/`, seen from `dist/src/config/`. */
const pipelinesDir = resolve(__dirname, '../../../pipelines');
const files = readdirSync(pipelinesDir).filter((name) => /\.ya?ml$/.test(name));

describe('example pipelines in pipelines/', () => {
  it('exist', () => {
    assert.ok(files.includes('primary-to-backup.yaml'));
    assert.ok(files.includes('active-active.yaml'));
  });

  for (const name of files) {
    it(`${name} is valid with only the defaults of its variables`, async () => {
      const path = join(pipelinesDir, name);
      // An empty environment: every variable an example uses must have a default.
      const config = await loadPipelineFile(path, { env: {} });
      assert.ok(config.flows.length > 0);
    });

    it(`${name} points editors at the JSON Schema`, () => {
      const firstLine = readFileSync(join(pipelinesDir, name), 'utf8').split('\n')[0];
      assert.equal(firstLine, '# yaml-language-server: $schema=../config/pipeline.schema.json');
    });
  }

  it('active-active.yaml replicates both ways with kept names, one link with provenance headers', async () => {
    const config = await loadPipelineFile(join(pipelinesDir, 'active-active.yaml'), { env: {} });
    assert.deepEqual(
      config.flows.map((f) => [f.name, f.replication_policy.type, f.provenance.enabled, f.checkpoints.sync_group_offsets.enabled]),
      [
        ['west->east', 'identity', true, true],
        ['east->west', 'identity', true, true],
      ],
    );
  });

  it('primary-to-backup.yaml shows the real defaults', async () => {
    const written = await loadPipelineFile(join(pipelinesDir, 'primary-to-backup.yaml'), { env: {} });
    const minimal = parsePipeline(
      'clusters: { primary: { bootstrap_servers: "127.0.0.1:9092" }, backup: { bootstrap_servers: "127.0.0.1:9093" } }\nflows: [{ source: primary, target: backup }]',
      'primary-to-backup.yaml',
      { env: {} },
    );
    assert.deepEqual(written, minimal);
  });
});
