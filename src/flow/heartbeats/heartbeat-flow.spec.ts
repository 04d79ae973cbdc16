import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { type SchedulerLike, defer, map, of, throwError, timer } from '#rxjs';
import { HeartbeatFlow } from './heartbeat-flow';
import { HeartbeatStatus } from './heartbeat-status';
import { OutageStatus } from '../status/outage-status';
import { silentLogger } from '../../core/ports/logger';
import type { ClusterAdmin, NewTopic } from '../../core/ports/cluster-admin';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';

const newScheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

function harness(scheduler: SchedulerLike, frame: () => number, options: { writeFrames?: number; failing?: ReadonlySet<number> } = {}) {
  const created: NewTopic[] = [];
  const writes: { at: number; records: readonly OutboundRecord[] }[] = [];
  const targetAdmin = {
    cluster: 'us-east',
    createTopics: (topics: readonly NewTopic[]) =>
      defer(() => {
        created.push(...topics);
        return of(topics.map((t) => t.name));
      }),
  } as unknown as ClusterAdmin;
  let n = 0;
  const writer: RecordWriter = {
    cluster: 'us-east',
    write: (records) =>
      defer(() => {
        if (options.failing?.has(n++)) return throwError(() => new Error('not enough replicas'));
        writes.push({ at: frame(), records: records as readonly OutboundRecord[] }); // these flows write records only
        return timer(options.writeFrames ?? 1, scheduler).pipe(map(() => new Float64Array(records.length)));
      }),
    close: async () => undefined,
  };
  const status = new HeartbeatStatus();
  const flow = new HeartbeatFlow({
    settings: { source: 'us-west', target: 'us-east', intervalMs: 10, topic: 'heartbeats', replicationFactor: 3 },
    targetAdmin,
    writer,
    scheduler,
    logger: silentLogger,
    status,
    outages: new OutageStatus(),
  });
  return { flow, status, created, writes };
}

test('heartbeats: creates the compacted one-partition topic, then one byte-identical record per interval from the injected scheduler', () => {
  const scheduler = newScheduler();
  // Start the virtual clock at the spec's example time, so the bytes are the spec's.
  const T = 1_700_000_000_000 - 10;
  // The flow's clock reads T + frame; its timers run on the virtual scheduler.
  const clock: SchedulerLike = { now: () => T + scheduler.now(), schedule: scheduler.schedule.bind(scheduler) };
  scheduler.run(({ cold, expectObservable, flush }) => {
    const h = harness(clock, () => scheduler.now());
    expectObservable(h.flow.run(cold('35ms s'))).toBe('35ms |');
    flush();
    assert.deepEqual(h.created, [{ name: 'heartbeats', partitions: 1, replicationFactor: 3, configs: { 'cleanup.policy': 'compact' } }]);
    assert.deepEqual(
      h.writes.map((w) => w.at),
      [10, 20, 30],
    );
    const first = h.writes[0]!.records[0]!;
    assert.equal(first.topic, 'heartbeats');
    assert.equal(first.partition, 0);
    assert.equal(first.timestamp, 1_700_000_000_000);
    assert.deepEqual(first.headers, []);
    // MM2's Heartbeat encoding: key (us-west, us-east), value (version 0, 1700000000000).
    assert.equal(first.key!.toString('hex'), '0007' + Buffer.from('us-west').toString('hex') + '0007' + Buffer.from('us-east').toString('hex'));
    assert.equal(first.value!.toString('hex'), '00000000018bcfe56800');
    assert.equal(h.status.written, 3);
    assert.equal(h.status.lastAt, T + 30);
    assert.equal(h.status.state, 'stopped');
  });
});

test('heartbeats: a slow write is not overlapped by the next tick; a failed one is counted and the next tick tries again; a stop lets the write under way finish', () => {
  const scheduler = newScheduler();
  scheduler.run(({ cold, expectObservable, flush }) => {
    const h = harness(scheduler, () => scheduler.now(), { writeFrames: 15, failing: new Set([2]) });
    // Writes at 10 (busy until 25: tick 20 dropped), 30 (until 45: 40 dropped), 50 fails, 60 (under way at the stop at 65, done at 75).
    expectObservable(h.flow.run(cold('65ms s'))).toBe('75ms |');
    flush();
    assert.deepEqual(
      h.writes.map((w) => w.at),
      [10, 30, 60],
    );
    assert.equal(h.status.errors, 1);
    assert.equal(h.status.written, 3, 'the write under way at the stop is finished, so a successor never writes before it');
  });
});
