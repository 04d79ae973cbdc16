import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BUSY_WAIT_MS } from '../../../flow/operators/write-batches';
import { flowWith } from './flow-config-fixture';
import { batchPolicy, forwardedBatches, replicationFlowSettings } from './replication-settings';
import { sourceConsumerOptions } from './client-settings';

describe('replicationFlowSettings', () => {
  it("turns the flow's keys into the replication flow's settings", () => {
    const settings = replicationFlowSettings(
      'house',
      flowWith(
        'start: latest, consumer: { auto_offset_reset: latest }, topic_sync: { refresh_enabled: false, refresh_interval_ms: 7000 }, progress: { flush_interval_ms: 3000 }, buffer: { max_bytes: 1048576 }',
      ),
    );
    assert.equal(settings.source, 'primary');
    assert.equal(settings.target, 'backup');
    assert.equal(settings.groupId, 'mirrorflow.house.primary-backup');
    assert.equal(settings.start, 'latest');
    assert.equal(settings.autoOffsetReset, 'latest');
    assert.equal(settings.refreshTopics, false);
    assert.equal(settings.refreshIntervalMs, 7000);
    assert.equal(settings.flushIntervalMs, 3000);
    assert.equal(settings.maxInFlightBytes, 1048576);
    assert.equal(settings.errorTolerance, 'none');
    assert.equal(settings.exactlyOnce, undefined);
    assert.equal(settings.drainTimeoutMs, 30_000, 'half the default rebalance timeout');
    assert.equal(replicationFlowSettings('house', flowWith('consumer: { rebalance_timeout_ms: 300000 }')).drainTimeoutMs, 150_000);
  });

  it('gives an exactly-once flow its slot count, and a flow that tolerates failures its tolerance', () => {
    const eos = replicationFlowSettings('house', flowWith('delivery: exactly_once, tasks: 4, consumer: { isolation_level: read_committed }'));
    assert.deepEqual(eos.exactlyOnce, { slots: 4 });
    const tolerant = replicationFlowSettings('house', flowWith('errors: { tolerance: all, deadletterqueue: { topic_name: dlq } }'));
    assert.equal(tolerant.errorTolerance, 'all');
  });
});

describe('batchPolicy', () => {
  it('is batching.* with the producer request limit per partition', () => {
    assert.deepEqual(
      batchPolicy(flowWith('batching: { max_records: 500, max_bytes: 2000000, max_wait_ms: 25 }, producer: { max_request_bytes: 900000, max_in_flight: 3 }')),
      {
        maxRecords: 500,
        maxBytes: 2000000,
        maxWaitMs: 25,
        waitWhenIdle: true,
        maxPartitionBytes: 900000,
        maxInFlight: 3,
      },
    );
  });

  it("by default, writes what one fetch of a partition brings in one produce round, as large as a broker's default takes", () => {
    const flow = flowWith();
    const policy = batchPolicy(flow);
    // Fewer bytes than a fetch brings split every fetch in two requests (the benchmark's `large`
    // workload: 1.8x the records/s with one); more than the broker's default `message.max.bytes`
    // (1048588) would have a joined batch refused as too large.
    assert.ok(policy.maxPartitionBytes >= sourceConsumerOptions(flow).maxBytesPerPartition);
    assert.ok(policy.maxPartitionBytes <= 1048588);
  });

  it('without batching.max_wait_ms, sends to an idle target at once and waits briefly only while a write is out', () => {
    const policy = batchPolicy(flowWith());
    assert.equal(policy.waitWhenIdle, false);
    assert.equal(policy.maxWaitMs, BUSY_WAIT_MS);
  });
});

describe('forwardedBatches', () => {
  it('forwards whole batches of a flow nobody looks into, those compressed as the target compresses', () => {
    assert.deepEqual(
      forwardedBatches(flowWith('batching: { forward_compressed_min_bytes: 1024 }, producer: { max_request_bytes: 900000, compression: lz4 }')),
      {
        minCompressedBytes: 1024,
        maxBytes: 900000,
        compression: 'lz4',
      },
    );
    assert.equal(forwardedBatches(flowWith())?.compression, undefined, 'an uncompressing target takes batches compressed any way');
  });

  it('forwards nothing with transforms, with batching.forward_batches false, with a schema registry, or with provenance headers', () => {
    assert.equal(forwardedBatches(flowWith('transforms: [{ type: insert_header, header: origin, value: primary }]')), undefined);
    assert.equal(forwardedBatches(flowWith('batching: { forward_batches: false }')), undefined);
    assert.equal(
      forwardedBatches(flowWith("schema_registry: { source: { url: 'http://a:8081' }, target: { url: 'http://b:8081' } }")),
      undefined,
      'the schema ids are rewritten',
    );
    assert.equal(forwardedBatches(flowWith('provenance: { enabled: true }')), undefined, 'each record is read for its header and gets one');
    assert.notEqual(forwardedBatches(flowWith('provenance: { enabled: false }')), undefined, 'without the header the raw path stays');
  });
});
