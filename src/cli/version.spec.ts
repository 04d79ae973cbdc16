import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { versionText } from './version';

describe('versionText', () => {
  it('reads the name and version of the package.json it is given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-version-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'mirrorflow', version: '9.8.7' }));
      assert.equal(versionText(join(dir, 'package.json')), 'mirrorflow 9.8.7');
      assert.match(versionText(join(dir, 'missing.json')), /^mirrorflow \(version unknown/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
