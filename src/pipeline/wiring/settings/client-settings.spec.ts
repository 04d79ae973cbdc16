import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { flowWith } from './flow-config-fixture';
import {
  DEFAULT_MAX_BYTES_PER_PARTITION,
  SHARED_FETCH_BYTES,
  TRANSACTION_TIMEOUT_MS,
  internalWriterOptions,
  replicationWriterOptions,
  sourceConsumerOptions,
  transactionsOptions,
} from './client-settings';

describe('client settings', () => {
  it("the replication consumer takes consumer.*, under the flow's role", () => {
    assert.deepEqual(
      sourceConsumerOptions(flowWith('consumer: { isolation_level: read_committed, max_bytes_per_partition: 2048, max_wait_ms: 250, min_bytes: 16 }')),
      {
        role: 'primary->backup|replication-consumer',
        isolationLevel: 'read_committed',
        maxBytesPerPartition: 2048,
        maxWaitMs: 250,
        minBytes: 16,
        group: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000, rebalanceTimeoutMs: 60000 },
      },
    );
  });

  it('unset, a partition is fetched 1 MiB at a time, and a request of few partitions shares 4 MiB within a quarter of the buffer', () => {
    const unset = sourceConsumerOptions(flowWith('consumer: {}'));
    assert.equal(unset.maxBytesPerPartition, DEFAULT_MAX_BYTES_PER_PARTITION);
    assert.equal(unset.sharedFetchBytes, SHARED_FETCH_BYTES);
    assert.equal(sourceConsumerOptions(flowWith('buffer: { max_bytes: 8388608 }')).sharedFetchBytes, 2097152);
    // A buffer of 4 MiB or less: a quarter of it is no more than 1 MiB, so nothing is shared.
    assert.equal(sourceConsumerOptions(flowWith('buffer: { max_bytes: 4194304 }')).sharedFetchBytes, undefined);
    // Set, every partition asks for exactly that.
    const set = sourceConsumerOptions(flowWith('consumer: { max_bytes_per_partition: 1048576 }'));
    assert.equal(set.maxBytesPerPartition, 1048576);
    assert.equal(set.sharedFetchBytes, undefined);
  });

  it("the flow's group timings and rack reach the consumer", () => {
    const options = sourceConsumerOptions(
      flowWith('consumer: { session_timeout_ms: 30000, heartbeat_interval_ms: 3000, rebalance_timeout_ms: 120000, client_rack: use1-az2 }'),
    );
    assert.deepEqual(options.group, { sessionTimeoutMs: 30000, heartbeatIntervalMs: 3000, rebalanceTimeoutMs: 120000 });
    assert.equal(options.rackId, 'use1-az2');
    assert.equal(sourceConsumerOptions(flowWith('consumer: {}')).rackId, undefined, 'no rack: fetched from the leaders');
  });

  it('the replication producer compresses as configured; the internal writers never do', () => {
    const flow = flowWith('producer: { compression: zstd, max_in_flight: 4 }');
    assert.deepEqual(replicationWriterOptions(flow), { role: 'primary->backup|replication-producer', compression: 'zstd', idempotent: true, maxInFlight: 4 });
    assert.deepEqual(internalWriterOptions(flow, 'progress'), { role: 'primary->backup|progress', compression: 'none', idempotent: true });
  });

  it("an exactly-once flow's transactional ids start with its group, and its transactions time out after 60 s", () => {
    const options = transactionsOptions(
      'house',
      flowWith('delivery: exactly_once, consumer: { isolation_level: read_committed }, producer: { compression: gzip }'),
    );
    assert.deepEqual(options, {
      role: 'primary->backup|transactional-producer',
      compression: 'gzip',
      transactionalIdPrefix: 'mirrorflow.house.primary-backup',
      transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
    });
    assert.equal(TRANSACTION_TIMEOUT_MS, 60_000);
  });
});
