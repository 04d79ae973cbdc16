import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecordFailedError, RecordRefusedError } from '../core/errors';
import type { MirrorRecord } from '../core/record';
import { deadLetterRecord } from './dead-letter';

const record: MirrorRecord = {
  source: { topic: 'orders', partition: 3, offset: 42 },
  topic: 'primary.orders',
  partition: 3,
  timestamp: 1_700_000_000_123,
  key: Buffer.from('k'),
  value: Buffer.from('{"card":"4111"}'),
  headers: [
    { key: 'trace', value: Buffer.from('t1') },
    { key: 'trace', value: null },
  ],
};

const headerStrings = (headers: readonly { key: string; value: Buffer | null }[]): [string, string | null][] =>
  headers.map((h) => [h.key, h.value === null ? null : h.value.toString('utf8')]);

describe('deadLetterRecord', () => {
  it('keeps key, value, timestamp and headers, then adds Connect context headers for a transform failure', () => {
    const error = new RecordFailedError(
      record.source,
      { kind: 'transform', plugin: 'mask_json_field', step: 'flows[0].transforms[1]' },
      'SyntaxError thrown; its message is withheld.',
      {
        cause: new SyntaxError('Unexpected token in JSON at "4111"'),
      },
    );
    const dlq = deadLetterRecord({ record, error }, 'mirror-dlq', 0, 'primary->backup');
    assert.equal(dlq.topic, 'mirror-dlq');
    assert.equal(dlq.partition, 0);
    assert.equal(dlq.timestamp, record.timestamp);
    assert.equal(dlq.key, record.key);
    assert.equal(dlq.value, record.value);
    assert.deepEqual(headerStrings(dlq.headers), [
      ['trace', 't1'],
      ['trace', null],
      ['__connect.errors.topic', 'orders'],
      ['__connect.errors.partition', '3'],
      ['__connect.errors.offset', '42'],
      ['__connect.errors.connector.name', 'primary->backup'],
      ['__connect.errors.stage', 'TRANSFORMATION'],
      ['__connect.errors.class.name', 'mask_json_field'],
      ['__connect.errors.exception.class.name', 'SyntaxError'],
      ['__connect.errors.exception.message', 'SyntaxError thrown; its message is withheld.'],
      ['__mirrorflow.errors.transform.step', 'flows[0].transforms[1]'],
    ]);
    assert.ok(!dlq.headers.some((h) => h.value?.toString().includes('4111') && h.key.startsWith('__')), 'no context header quotes the record');
  });

  it('marks a record the target refused as failed in KAFKA_PRODUCE, without a plugin', () => {
    const refusal = new RecordRefusedError('backup', 0, 0, 'a record of about 5064 bytes is larger than primary.orders-3 takes');
    const error = new RecordFailedError(record.source, { kind: 'write' }, refusal.message, { cause: refusal });
    const dlq = deadLetterRecord({ record: { ...record, headers: [] }, error }, 'mirror-dlq', 1, 'primary->backup');
    assert.deepEqual(headerStrings(dlq.headers), [
      ['__connect.errors.topic', 'orders'],
      ['__connect.errors.partition', '3'],
      ['__connect.errors.offset', '42'],
      ['__connect.errors.connector.name', 'primary->backup'],
      ['__connect.errors.stage', 'KAFKA_PRODUCE'],
      ['__connect.errors.exception.class.name', 'RecordRefusedError'],
      ['__connect.errors.exception.message', 'Cluster "backup": a record of about 5064 bytes is larger than primary.orders-3 takes'],
    ]);
  });
});
