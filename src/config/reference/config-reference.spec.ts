import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { configReference, configurationDocPath, configurationPage } from './config-reference';
import { MM2_KEYS } from '../mm2/mm2-keys';

describe('configuration reference', () => {
  it('in docs/configuration.md matches the code (regenerate: npm run docs)', () => {
    assert.equal(readFileSync(configurationDocPath, 'utf8'), configurationPage());
  });

  it('lists every pipeline key with its default, and every MM2 key', () => {
    const reference = configReference();
    assert.ok(reference.startsWith('## Pipeline file') && reference.includes('\n## mm2.properties keys\n'));
    assert.match(reference, /\| `flows\[\]\.topic_sync\.refresh_interval_ms` \| integer \| `30000` \| How often new topics/);
    assert.match(reference, /\| `clusters\.<alias>\.bootstrap_servers` \| string or list of string \| required \|/);
    assert.match(reference, /\| `flows\[\]\.replication_policy\.separator \(type: identity\)` \|/);
    for (const spec of MM2_KEYS) assert.ok(reference.includes(`| \`${spec.key}\` |`), spec.key);
  });
});
