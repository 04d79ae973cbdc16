import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { defer, of, throwError } from '#rxjs';
import { OutageStatus } from './outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';
import { KafkaTransportError, type ErrorOptions } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';

interface Line {
  readonly level: string;
  readonly message: string;
  readonly meta: Record<string, unknown>;
}

function recordingLogger(lines: Line[] = []): Logger {
  const at =
    (level: string) =>
    (message: string, meta: Record<string, unknown> = {}) =>
      void lines.push({ level, message, meta });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => recordingLogger(lines) };
}

const down = (cluster = 'backup', options: ErrorOptions = {}): KafkaTransportError =>
  new KafkaTransportError(cluster, 'Writing records failed: Connection error: connect ECONNREFUSED 127.0.0.1:9092', true, options);

test('an outage warns when it starts and then at growing intervals, not per failure, and says when it ended and how long it lasted', () => {
  const lines: Line[] = [];
  let now = 1_000_000;
  const status = new OutageStatus();
  const tracker = status.tracker('backup', 'writing records', recordingLogger(lines), () => now);
  // A failure every second for 50 s.
  for (let t = 0; t <= 50; t++) {
    now = 1_000_000 + t * 1000;
    tracker.failed(down());
  }
  const warnings = lines.filter((l) => l.level === 'warn');
  assert.deepEqual(
    warnings.map((w) => w.meta['outageMs']),
    [0, 5000, 10_000, 20_000, 40_000],
  );
  assert.deepEqual(Object.keys(warnings[0]!.meta).sort(), ['cluster', 'error', 'failures', 'operation', 'outageMs']);
  assert.equal(warnings[0]!.meta['cluster'], 'backup');
  assert.equal(warnings[0]!.meta['operation'], 'writing records');
  assert.deepEqual(
    status.current.map((o) => [o.cluster, o.operation, o.since, o.failures]),
    [['backup', 'writing records', 1_000_000, 51]],
  );

  now += 2000;
  tracker.succeeded();
  assert.deepEqual(status.current, []);
  const info = lines.filter((l) => l.level === 'info');
  assert.equal(info.length, 1);
  assert.deepEqual([info[0]!.meta['cluster'], info[0]!.meta['operation'], info[0]!.meta['outageMs']], ['backup', 'writing records', 52_000]);
  assert.equal(status.recovered, 1);
  tracker.succeeded();
  assert.equal(lines.filter((l) => l.level === 'info').length, 1, 'a success outside an outage says nothing');
});

test("a warning carries the outage's newest reason: a reason its warnings have not carried is warned at once, once", () => {
  const lines: Line[] = [];
  let now = 0;
  const status = new OutageStatus();
  const tracker = status.tracker('backup', 'writing records', recordingLogger(lines), () => now);
  const tls = new KafkaTransportError('backup', 'Writing records failed: TLS handshake with 127.0.0.1:9093 failed: certificate has expired', true);
  // A broker restart: refused while it is down, then its TLS handshake fails; the reasons flap.
  const reasons = [down(), down(), down(), tls, tls, tls, down(), tls, down()];
  for (const [second, error] of reasons.entries()) {
    now = second * 1000;
    tracker.failed(error);
  }
  const warnings = lines.filter((l) => l.level === 'warn');
  assert.deepEqual(
    warnings.map((w) => [w.meta['outageMs'], w.meta['error'], w.meta['reasonChanged']]),
    [
      [0, 'Cluster "backup": Writing records failed: Connection error: connect ECONNREFUSED 127.0.0.1:9092', undefined],
      [3000, 'Cluster "backup": Writing records failed: TLS handshake with 127.0.0.1:9093 failed: certificate has expired', true],
      // The repeat due at 5 s carries the reason of the moment; flapping back to a told one waits for the next repeat.
      [5000, 'Cluster "backup": Writing records failed: TLS handshake with 127.0.0.1:9093 failed: certificate has expired', undefined],
    ],
  );
  assert.equal(status.current[0]!.lastError, 'Cluster "backup": Writing records failed: Connection error: connect ECONNREFUSED 127.0.0.1:9092');
});

test('an outage whose reason changes at every failure tells a few reasons at once, then only at its repeats', () => {
  const lines: Line[] = [];
  const status = new OutageStatus();
  const tracker = status.tracker('backup', 'writing records', recordingLogger(lines), () => 0);
  for (let i = 0; i < 20; i++) tracker.failed(new KafkaTransportError('backup', `Writing records failed: broker ${i} unreachable`, true));
  assert.equal(lines.filter((l) => l.level === 'warn').length, 8);
  assert.equal(lines.filter((l) => l.level === 'debug').length, 12);
});

test('an outage is put on the cluster the error names; an operation that gave up leaves without a recovery line', () => {
  const lines: Line[] = [];
  const status = new OutageStatus();
  const tracker = status.tracker('backup', 'syncing topics', recordingLogger(lines), () => 0);
  tracker.failed(down('primary'));
  assert.deepEqual(
    status.current.map((o) => o.cluster),
    ['primary'],
  );
  tracker.abandoned();
  assert.deepEqual(status.current, []);
  assert.equal(lines.filter((l) => l.level === 'info').length, 0);
});

test('retryThroughOutage retries retriable failures for as long as they last, then reports the end; other failures pass at once', () => {
  const scheduler = new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));
  scheduler.run(({ flush }) => {
    const lines: Line[] = [];
    const status = new OutageStatus();
    const tracker = status.tracker('backup', 'writing records', recordingLogger(lines), () => scheduler.now());
    let attempts = 0;
    // Fails 20 times (far more than any fixed retry count would allow), then works.
    const flaky = defer(() => (++attempts <= 20 ? throwError(() => down()) : of('acked')));
    const got: string[] = [];
    // No jitter (random() = 0.5 spreads a delay by 0): each wait is exactly 10 ms.
    flaky.pipe(retryThroughOutage({ tracker, scheduler, initialDelayMs: 10, maxDelayMs: 10, random: () => 0.5 })).subscribe((value) => got.push(value));
    flush();
    assert.deepEqual(got, ['acked']);
    assert.equal(attempts, 21);
    assert.deepEqual(status.current, []);
    const ended = lines.filter((l) => l.level === 'info');
    assert.equal(ended.length, 1);
    assert.equal(ended[0]!.meta['outageMs'], 20 * 10, 'the end is reported with its length: 20 waits of 10 ms');

    const fatal = new KafkaTransportError('backup', 'Writing records failed: Topic authorization failed', false);
    let failed: unknown;
    throwError(() => fatal)
      .pipe(retryThroughOutage({ tracker, scheduler }))
      .subscribe({ error: (error: unknown) => (failed = error) });
    flush();
    assert.equal(failed, fatal, 'not retried');
    assert.deepEqual(status.current, []);
  });
});
