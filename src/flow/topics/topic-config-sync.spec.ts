import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, Subject, asyncScheduler, defer, firstValueFrom, of, throwError } from '#rxjs';
import type { ClusterAdmin, TopicConfigChange, TopicConfigEntry, TopicConfigResult, TopicDescription } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { KafkaTransportError } from '../../core/errors';
import { DefaultConfigPropertyFilter } from '../../policy';
import { ConfigSyncStatus } from './config-sync-status';
import { OutageStatus } from '../status/outage-status';
import { TopicConfigSync } from './topic-config-sync';
import { configEntry as entry } from '../config-entry-fixture';

/**
 * A cluster's admin over topic configs in memory. Changes are applied as a broker does: all of
 * a topic's or none, refusing a topic whose changes name a config in `refuse`.
 */
function fakeAdmin(cluster: string, configs: Record<string, TopicConfigEntry[]>, refuse: ReadonlySet<string> = new Set()) {
  const requests: Map<string, readonly TopicConfigChange[]>[] = [];
  const admin = {
    cluster,
    listTopics: (): Observable<readonly TopicDescription[]> => of(Object.keys(configs).map((name) => ({ name, partitions: 1 }))),
    describeTopicConfigs: (names: readonly string[]) => of(new Map(names.map((n) => [n, configs[n] ?? []]))),
    alterTopicConfigs: (changes: ReadonlyMap<string, readonly TopicConfigChange[]>) =>
      defer(() => {
        requests.push(new Map(changes));
        const results = new Map<string, TopicConfigResult>();
        for (const [topic, list] of changes) {
          const bad = list.find((c) => refuse.has(c.name));
          if (bad !== undefined) {
            results.set(topic, { ok: false, error: 'INVALID_CONFIG', message: `${bad.name} is out of bounds`, retriable: false });
            continue;
          }
          for (const c of list) {
            const rest = configs[topic]!.filter((e) => e.name !== c.name);
            configs[topic] = c.op === 'set' ? [...rest, entry(c.name, c.value)] : [...rest, entry(c.name, 'target-default', 'default')];
          }
          results.set(topic, { ok: true });
        }
        return of(results);
      }),
  } as unknown as ClusterAdmin;
  return { admin, requests, configs };
}

function recordingLogger() {
  const lines: { level: string; message: string; meta: Record<string, unknown> | undefined }[] = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => logger };
  return { logger, lines };
}

function configSync(source: ClusterAdmin, target: ClusterAdmin, logger: Logger = recordingLogger().logger) {
  const status = new ConfigSyncStatus();
  const sync = new TopicConfigSync({
    source: 'primary',
    target: 'backup',
    sourceAdmin: source,
    targetAdmin: target,
    remoteTopic: (t) => `primary.${t}`,
    shouldReplicate: (t) => t !== 'not-replicated',
    filter: new DefaultConfigPropertyFilter({ exclude: ['delete\\.retention\\..*'] }),
    intervalMs: 60_000,
    scheduler: asyncScheduler,
    logger,
    status,
    outages: new OutageStatus(),
  });
  return { sync, status };
}

describe('TopicConfigSync', () => {
  it('changes only the configs that differ on remote topics that exist, and nothing once they match', async () => {
    const source = fakeAdmin('primary', {
      orders: [entry('retention.ms', '3600000'), entry('delete.retention.ms', '1000'), entry('cleanup.policy', 'delete', 'default')],
      'not-replicated': [entry('retention.ms', '1')],
      'no-remote-yet': [entry('retention.ms', '2')],
    });
    const target = fakeAdmin('backup', {
      'primary.orders': [entry('retention.ms', '604800000', 'default'), entry('delete.retention.ms', '2000'), entry('cleanup.policy', 'compact')],
      'primary.not-replicated': [],
    });
    const { sync, status } = configSync(source.admin, target.admin);

    const first = await firstValueFrom(sync.pass());
    assert.deepEqual(first, { topics: 1, applied: 2, refused: [] });
    assert.deepEqual(target.requests, [
      new Map([
        [
          'primary.orders',
          [
            { op: 'delete', name: 'cleanup.policy' },
            { op: 'set', name: 'retention.ms', value: '3600000' },
          ],
        ],
      ]),
    ]);
    // The excluded config keeps the target's own value.
    assert.equal(target.configs['primary.orders']!.find((e) => e.name === 'delete.retention.ms')?.value, '2000');

    const second = await firstValueFrom(sync.pass());
    assert.deepEqual(second, { topics: 1, applied: 0, refused: [] });
    assert.equal(target.requests.length, 1, 'nothing is sent when everything matches');
    assert.equal(status.passes, 2);
    assert.equal(status.changesApplied, 2);
  });

  it('applies the rest of a topic when the target refuses one config, and warns about a refusal once, not every pass', async () => {
    const source = fakeAdmin('primary', { orders: [entry('retention.ms', '1'), entry('max.message.bytes', '999999999'), entry('retention.bytes', '5')] });
    const target = fakeAdmin('backup', { 'primary.orders': [] }, new Set(['max.message.bytes']));
    const { logger, lines } = recordingLogger();
    const { sync, status } = configSync(source.admin, target.admin, logger);

    const pass = await firstValueFrom(sync.pass());
    assert.equal(pass.applied, 2);
    assert.deepEqual(pass.refused, [
      { topic: 'primary.orders', name: 'max.message.bytes', error: 'INVALID_CONFIG', message: 'max.message.bytes is out of bounds' },
    ]);
    assert.deepEqual(Object.fromEntries(target.configs['primary.orders']!.map((e) => [e.name, e.value])), { 'retention.ms': '1', 'retention.bytes': '5' });
    // The topic's changes together, then one by one.
    assert.deepEqual(
      target.requests.map((r) => [...r.values()].map((list) => list.map((c) => c.name))),
      [[['max.message.bytes', 'retention.bytes', 'retention.ms']], [['max.message.bytes']], [['retention.bytes']], [['retention.ms']]],
    );

    await firstValueFrom(sync.pass());
    assert.equal(status.changesRefused, 2, 'counted at each pass');
    assert.deepEqual(status.refused, pass.refused);
    const warnings = lines.filter((l) => l.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.deepEqual(warnings[0]!.meta, {
      cluster: 'backup',
      topic: 'primary.orders',
      change: 'max.message.bytes=999999999',
      error: 'INVALID_CONFIG',
      reason: 'max.message.bytes is out of bounds',
    });
  });

  it('warns again about a refusal that comes back after the topic was in sync meanwhile', async () => {
    const source = fakeAdmin('primary', { orders: [entry('max.message.bytes', '999')] });
    const target = fakeAdmin('backup', { 'primary.orders': [] }, new Set(['max.message.bytes']));
    const { logger, lines } = recordingLogger();
    const { sync } = configSync(source.admin, target.admin, logger);
    const warnings = () => lines.filter((l) => l.level === 'warn').length;

    await firstValueFrom(sync.pass());
    assert.equal(warnings(), 1);
    // Someone sets the value on the target by hand: nothing to change, nothing refused.
    target.configs['primary.orders'] = [entry('max.message.bytes', '999')];
    assert.deepEqual(await firstValueFrom(sync.pass()), { topics: 1, applied: 0, refused: [] });
    // The source changes again and the target refuses it again: that is news.
    source.configs['orders'] = [entry('max.message.bytes', '1000')];
    await firstValueFrom(sync.pass());
    assert.equal(warnings(), 2);
  });

  it('run: a target without IncrementalAlterConfigs is counted and warned about once; replication is not its to stop', async () => {
    const source = fakeAdmin('primary', { orders: [entry('retention.ms', '1')] });
    const target = fakeAdmin('backup', { 'primary.orders': [] });
    const unsupported = new KafkaTransportError('backup', 'the cluster does not support IncrementalAlterConfigs (Kafka 2.3 or newer does)', false);
    (target.admin as { alterTopicConfigs: unknown }).alterTopicConfigs = () => throwError(() => unsupported);
    const { logger, lines } = recordingLogger();
    const { sync, status } = configSync(source.admin, target.admin, logger);
    const stop$ = new Subject<void>();
    const done = firstValueFrom(sync.run(stop$), { defaultValue: undefined });
    assert.equal(status.enabled, true);
    // The first pass runs at once (a timer of 0 ms); it has failed when the error is counted.
    for (let turns = 0; status.errors === 0 && turns < 1000; turns++) await new Promise((resolve) => setImmediate(resolve));
    stop$.next();
    await done;
    assert.equal(status.errors, 1);
    assert.equal(status.enabled, false);
    assert.deepEqual(
      lines.filter((l) => l.level === 'warn').map((l) => [l.message, l.meta?.['error']]),
      [
        [
          'Syncing topic configs failed; will retry at the next interval.',
          'Cluster "backup": the cluster does not support IncrementalAlterConfigs (Kafka 2.3 or newer does)',
        ],
      ],
    );
  });
});
