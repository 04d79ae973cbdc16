import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretValues, collectSecretValues } from '../../core/secrets';
import { schemaRegistrySchema } from './schema-registry';

test('defaults: the value side, TopicNameStrategy subjects, not strict, 10 s per request', () => {
  const parsed = schemaRegistrySchema.parse({ source: { url: 'http://a:8081' }, target: { url: 'https://b:8081/apis/ccompat/v7' } });
  assert.deepEqual(parsed, {
    source: { url: 'http://a:8081', timeout_ms: 10_000 },
    target: { url: 'https://b:8081/apis/ccompat/v7', timeout_ms: 10_000 },
    subjects: 'topic_name',
    on: ['value'],
    strict: false,
  });
});

test('credentials go in basic_auth or bearer_token, one of them, never in the URL', () => {
  const refused = (source: unknown): string[] => {
    const result = schemaRegistrySchema.safeParse({ source, target: { url: 'http://b:8081' } });
    return result.success ? [] : result.error.issues.map((i) => i.message);
  };
  assert.match(refused({ url: 'http://mirror:secret@a:8081' }).join(), /without user info/);
  assert.match(refused({ url: 'registry:8081' }).join(), /http:\/\/ or https:\/\//);
  assert.match(refused({ url: 'http://a:8081', basic_auth: { username: 'u', password: 'p4ss' }, bearer_token: 'tok3n' }).join(), /exclude each other/);
});

test('the password and the bearer token are secrets: masked wherever they would be printed', () => {
  const parsed = schemaRegistrySchema.parse({
    source: { url: 'http://a:8081', basic_auth: { username: 'mirror', password: 'registry-pass' } },
    target: { url: 'http://b:8081', bearer_token: 'registry-token' },
  });
  const secrets = new SecretValues();
  collectSecretValues(parsed, secrets);
  assert.equal(secrets.mask('mirror registry-pass registry-token'), 'mirror [redacted] [redacted]');
});
