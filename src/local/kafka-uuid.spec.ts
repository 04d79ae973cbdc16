import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomKafkaUuid } from './kafka-uuid';

test('randomKafkaUuid looks like kafka-storage random-uuid output: 22 base64url characters, no leading dash', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const id = randomKafkaUuid();
    assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    ids.add(id);
  }
  assert.equal(ids.size, 500);
});
