import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { flowWith } from './flow-config-fixture';
import { writesInFlight } from './writes-in-flight';

describe('writesInFlight', () => {
  it('is producer.max_in_flight for an idempotent at-least-once flow', () => {
    assert.equal(writesInFlight(flowWith('producer: { max_in_flight: 3 }')), 3);
  });

  it('is 1 without idempotence, for exactly-once and for preserved offsets, whatever max_in_flight says', () => {
    assert.equal(writesInFlight(flowWith('producer: { max_in_flight: 5, idempotent: false }')), 1);
    assert.equal(writesInFlight(flowWith('producer: { max_in_flight: 5 }, delivery: exactly_once, consumer: { isolation_level: read_committed }')), 1);
    assert.equal(writesInFlight(flowWith('producer: { max_in_flight: 5 }, offsets: preserve')), 1);
  });
});
