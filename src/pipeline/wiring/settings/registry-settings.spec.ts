import { it } from 'node:test';
import assert from 'node:assert/strict';
import { flowWith } from './flow-config-fixture';
import { registrySettings, schemaIdTranslationSettings } from './registry-settings';

it("registry settings: each side's HTTP client, and what the translation does with the records' sides", () => {
  const flow = flowWith(
    "schema_registry: { source: { url: 'http://a:8081', basic_auth: { username: u, password: p } }, target: { url: 'http://b:8081', timeout_ms: 4000 }, on: [key, value], strict: true }",
  );
  const registries = flow.schema_registry!;
  assert.deepEqual(registrySettings(registries.source), {
    url: 'http://a:8081',
    timeoutMs: registries.source.timeout_ms,
    basicAuth: { username: 'u', password: 'p' },
  });
  assert.deepEqual(registrySettings(registries.target), { url: 'http://b:8081', timeoutMs: 4000 });
  assert.deepEqual(schemaIdTranslationSettings(flow, registries), {
    sides: ['key', 'value'],
    strict: true,
    path: 'flow primary->backup',
    errorTolerance: 'none',
  });
});
