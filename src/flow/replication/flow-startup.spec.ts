/**
 * FlowStartup on a timeline (VirtualClock): when partitions may start, what the source consumer
 * follows meanwhile, and how refreshes go on after the start.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, EMPTY, Subject, defer, of, throwError } from '#rxjs';
import { KafkaAuthorizationError, KafkaTransportError } from '../../core/errors';
import { silentLogger } from '../../core/ports/logger';
import { FlowStatus } from '../status/flow-status';
import type { ReplicatedTopic } from '../topics/topic-sync';
import { VirtualClock } from '../virtual-clock';
import { FlowStartup } from './flow-startup';
import { replicationOutages } from './replication-outages';

const ORDERS: readonly ReplicatedTopic[] = [{ source: 'orders', target: 'primary.orders', partitions: 1 }];
const BOTH: readonly ReplicatedTopic[] = [...ORDERS, { source: 'payments', target: 'primary.payments', partitions: 2 }];

interface Options {
  /** Each refresh, by number from 0: what it lists (told before it creates anything), and how it ends. */
  readonly refresh?: (n: number, listed?: (topics: readonly ReplicatedTopic[]) => void) => Observable<readonly ReplicatedTopic[]>;
  readonly refreshTopics?: boolean;
  /** Receives the flow's info lines. */
  readonly info?: (message: string) => void;
}

function harness(options: Options = {}) {
  const clock = new VirtualClock();
  const { scheduler } = clock;
  const status = new FlowStatus('primary', 'backup');
  const loaded = new Subject<void>();
  const refreshes: number[] = [];
  const startup = new FlowStartup({
    settings: { refreshTopics: options.refreshTopics ?? true, refreshIntervalMs: 1_000 },
    topicSync: {
      refresh: (listed) =>
        defer(() => {
          refreshes.push(clock.now);
          return options.refresh?.(refreshes.length - 1, listed) ?? of(ORDERS);
        }),
    },
    progress: { load: () => loaded },
    offsetSyncEmitter: undefined,
    deadLetters: undefined,
    outages: replicationOutages({ source: 'primary', target: 'backup', offsetSyncsCluster: undefined, status, logger: silentLogger, scheduler }),
    scheduler,
    logger: options.info === undefined ? silentLogger : { ...silentLogger, info: (message) => options.info!(message) },
    status,
  });
  const stopping$ = new Subject<void>();
  const followed: { at: number; topics: string[] }[] = [];
  const run = { startedAt: undefined as number | undefined, ready: false, error: undefined as unknown };
  void startup.ready.then(() => (run.ready = true));
  startup.start(stopping$).subscribe({ next: () => (run.startedAt = clock.now) });
  startup
    .topics(stopping$, async () => undefined)
    .subscribe({
      next: (topics) => followed.push({ at: clock.now, topics: topics.map((t) => t.source) }),
      error: (error: unknown) => (run.error = error),
    });
  const finishLoading = (): void => loaded.complete();
  const stop = (): void => stopping$.next();
  return { clock, status, refreshes, followed, run, finishLoading, stop };
}

describe('FlowStartup in virtual time', () => {
  test('the consumer follows the source list at once; partitions start once progress is loaded and the remote topics exist', async () => {
    const created = new Subject<readonly ReplicatedTopic[]>();
    const h = harness({ refresh: (n, listed) => (n === 0 ? defer(() => (listed?.(ORDERS), created)) : of(ORDERS)) });
    await h.clock.advance(0);
    assert.deepEqual(h.followed, [{ at: 0, topics: ['orders'] }], 'listed, nothing created yet');
    h.finishLoading();
    await h.clock.advanceTo(100);
    assert.equal(h.run.ready, false, 'progress is loaded, the remote topic not created yet');
    created.next(ORDERS);
    created.complete();
    await h.clock.advanceTo(200);
    assert.equal(h.run.startedAt, 100, 'at once when the refresh created it');
    assert.equal(h.run.ready, true);
    assert.deepEqual(h.followed, [{ at: 0, topics: ['orders'] }], 'the same list is not followed twice');
  });

  test('refreshes go on every interval from the start; a changed list is followed', async () => {
    const h = harness({ refresh: (n) => of(n < 2 ? ORDERS : BOTH) });
    h.finishLoading();
    await h.clock.advanceTo(2_500);
    assert.deepEqual(h.refreshes, [0, 1_000, 2_000]);
    assert.deepEqual(h.followed, [
      { at: 0, topics: ['orders'] },
      { at: 2_000, topics: ['orders', 'payments'] },
    ]);
    assert.equal(h.status.topics, 2);
  });

  test('a list that matches nothing says so, and when topics created on the source are looked for', async () => {
    for (const refreshTopics of [true, false]) {
      const lines: string[] = [];
      const h = harness({ refreshTopics, refresh: (n) => of(n === 0 ? [] : ORDERS), info: (line) => lines.push(line) });
      h.finishLoading();
      await h.clock.advanceTo(1_500);
      if (refreshTopics) {
        assert.match(
          lines[0]!,
          /^No source topic matches the flow's topics; topics created on the source are looked for every 1 s \(topic_sync\.refresh_interval_ms; in an MM2 file refresh\.topics\.interval\.seconds/,
        );
        assert.deepEqual(lines.slice(1), ['Replicating topics.'], 'then the topic found');
      } else {
        assert.deepEqual(lines, [
          "No source topic matches the flow's topics, and topic refresh is off (topic_sync.refresh_enabled; in an MM2 file refresh.topics.enabled): topics created on the source are found at the next start.",
        ]);
      }
    }
  });

  test('with refresh_enabled false, refreshes end with the first that succeeded', async () => {
    const h = harness({ refreshTopics: false, refresh: (n) => (n === 1 ? throwError(() => new KafkaTransportError('primary', 'down', true)) : of(ORDERS)) });
    await h.clock.advanceTo(5_000);
    assert.deepEqual(h.refreshes, [0]);
  });

  test('a first refresh that failed is made again once loading is done; later failures wait for the next interval as an outage', async () => {
    const down = (): Observable<never> => throwError(() => new KafkaTransportError('primary', 'Connection refused', true));
    const h = harness({ refresh: (n) => (n <= 2 ? down() : of(ORDERS)) });
    await h.clock.advanceTo(500);
    assert.deepEqual(h.refreshes, [0], 'not again while loading');
    assert.equal(h.status.outages.current.length, 0, 'the first failure is not reported: loading meets the outage too');
    h.finishLoading();
    await h.clock.advanceTo(600);
    assert.deepEqual(h.refreshes, [0, 500]);
    assert.deepEqual(
      h.status.outages.current.map((o) => [o.cluster, o.operation]),
      [['primary', 'syncing topics']],
    );
    await h.clock.advanceTo(2_500);
    assert.deepEqual(h.refreshes, [0, 500, 1_000, 2_000]);
    assert.equal(h.run.startedAt, 2_000);
    assert.equal(h.status.outages.current.length, 0, 'the outage ended with the refresh that worked');
  });

  test('a refresh the source refuses for want of an ACL ends the run', async () => {
    const refused = new KafkaAuthorizationError('primary', 'Describing topics', 'TOPIC_AUTHORIZATION_FAILED');
    const h = harness({ refresh: (n) => (n === 0 ? of(ORDERS) : throwError(() => refused)) });
    h.finishLoading();
    await h.clock.advanceTo(1_000);
    assert.equal(h.run.error, refused);
  });

  test('a stop before the remote topics exist: partitions never start and no refresh is made after it', async () => {
    const h = harness({ refresh: () => EMPTY });
    h.finishLoading();
    await h.clock.advanceTo(500);
    h.stop();
    await h.clock.advanceTo(5_000);
    assert.equal(h.run.startedAt, undefined);
    assert.equal(h.run.ready, false);
    assert.deepEqual(h.refreshes, [0]);
  });
});
