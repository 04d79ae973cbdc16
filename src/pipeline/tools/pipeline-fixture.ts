import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * For specs: a pipeline file of one flow, primary -> backup, on clusters no broker answers at
 * (the spec's fakes stand in for them), in a folder deleted after the spec file's tests.
 */
export function primaryToBackupPipeline(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mirrorflow-${name}-spec-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'pipeline.yaml');
  writeFileSync(
    file,
    'name: spec\nclusters:\n  primary: { bootstrap_servers: 127.0.0.1:1 }\n  backup: { bootstrap_servers: 127.0.0.1:2 }\nflows:\n  - { source: primary, target: backup }\n',
  );
  return file;
}
