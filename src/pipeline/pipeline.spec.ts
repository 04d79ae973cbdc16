import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { of } from '#rxjs';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { KafkaClients } from '../core/ports/kafka-clients';
import type { RecordSource, TopicReader } from '../core/ports/record-source';
import type { RecordWriter } from '../core/ports/record-writer';
import { silentLogger } from '../core/ports/logger';
import { parsePipeline } from '../config';
import { createPluginRegistry } from '../plugins';
import { ClusterUnavailableError } from '../core/errors';
import { VirtualClock } from '../flow/virtual-clock';
import { Pipeline } from './pipeline';

/** Clients that answer without a cluster: topics get created, every write is acknowledged. */
function fakeClients(): KafkaClients & { readonly written: string[] } {
  const written: string[] = [];
  const admin = (cluster: string) =>
    ({ cluster, createTopics: (topics: readonly { name: string }[]) => of(topics.map((t) => t.name)) }) as unknown as ClusterAdmin;
  return {
    written,
    admin,
    writer: (cluster) =>
      ({
        cluster,
        write: (items) => {
          for (const item of items) written.push(`${cluster}:${item.topic}`);
          return of(new Float64Array(items.length));
        },
        close: async () => undefined,
      }) as RecordWriter,
    source: (cluster) => ({ cluster }) as unknown as RecordSource,
    reader: (cluster) => ({ cluster }) as unknown as TopicReader,
    checkReachable: async () => undefined,
    closeRoles: async () => undefined,
    close: async () => undefined,
  };
}

const yaml = `
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
flows:
  - { source: primary, target: backup, enabled: false, heartbeats: { interval_ms: 10 } }
  - { source: backup, target: primary, checkpoints: { enabled: false } }
`;

const newPipeline = (text: string, clients: KafkaClients, options: { clock?: VirtualClock; startupTimeoutMs?: number } = {}) =>
  new Pipeline(parsePipeline(text, 'pipeline.yaml'), {
    logger: silentLogger,
    registry: createPluginRegistry({ pluginDirs: [] }),
    clients,
    ...(options.clock === undefined ? {} : { scheduler: options.clock.scheduler }),
    ...(options.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: options.startupTimeoutMs }),
  });

/** Clients whose `cluster` cannot be reached until `reachable()` is called (or refuses us, with `refused`). */
function clientsWithDownCluster(cluster: string, refused = false): { clients: KafkaClients; attempts: () => number; reachable: () => void } {
  const clients = fakeClients();
  let attempts = 0;
  let up = false;
  return {
    clients: {
      ...clients,
      checkReachable: async (alias) => {
        if (alias !== cluster || up) return;
        attempts++;
        throw refused
          ? new ClusterUnavailableError(alias, 'authentication failed (check the username and password)')
          : new ClusterUnavailableError(alias, 'cannot be reached (Connection refused)', { retriable: true });
      },
    },
    attempts: () => attempts,
    reachable: () => (up = true),
  };
}

const settled = <T>(promise: Promise<T>): (() => 'pending' | 'resolved' | 'rejected') => {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  return () => state;
};

describe('Pipeline', () => {
  it('shows a flow that is not enabled as disabled once prepared, and one that is as starting', async () => {
    const pipeline = newPipeline(yaml, fakeClients());
    await pipeline.prepare();
    assert.deepEqual(
      pipeline.statuses.map((s) => `${s.source}->${s.target}=${s.state}`),
      ['primary->backup=disabled', 'backup->primary=starting'],
    );
  });

  it('keeps a flow that is not enabled disabled through its run, while its heartbeats go out', async () => {
    const clients = fakeClients();
    const clock = new VirtualClock();
    const pipeline = newPipeline(yaml.replace(/\n  - \{ source: backup.*\n/, '\n'), clients, { clock });
    await pipeline.prepare();
    const running = pipeline.run();
    await clock.advance(50);
    pipeline.stop();
    await running;
    assert.deepEqual(
      pipeline.statuses.map((s) => s.state),
      ['disabled'],
    );
    assert.ok(clients.written.length > 0, 'heartbeats were written');
    assert.deepEqual(new Set(clients.written), new Set(['backup:heartbeats']));
  });

  it('waits at start for a cluster that cannot be reached, showing the outage on the flows that use it, until it answers', async () => {
    const clock = new VirtualClock();
    const down = clientsWithDownCluster('primary');
    const pipeline = newPipeline(yaml, down.clients, { clock });
    const prepared = pipeline.prepare();
    const state = settled(prepared);
    await clock.advance(60_000);
    assert.equal(state(), 'pending', 'still waiting after a minute');
    assert.ok(down.attempts() >= 6, `asked again and again (${down.attempts()} attempts)`);
    // backup->primary writes to primary; primary->backup (heartbeats only) writes to backup.
    const outages = pipeline.snapshots().map((s) => s.outages.map((o) => `${o.cluster}: ${o.operation}`));
    assert.deepEqual(outages, [[], ['primary: connecting at start']]);
    down.reachable();
    await clock.advance(10_000);
    assert.equal(state(), 'resolved');
    assert.deepEqual(
      pipeline.snapshots().map((s) => s.outages.length),
      [0, 0],
      'the outage ended',
    );
  });

  it('ends the start at once when a cluster refuses the login', async () => {
    const clock = new VirtualClock();
    const refused = clientsWithDownCluster('primary', true);
    const pipeline = newPipeline(yaml, refused.clients, { clock });
    await assert.rejects(pipeline.prepare(), /Cluster "primary": authentication failed/);
    assert.equal(refused.attempts(), 1);
  });

  it('gives up after the startup timeout, saying how long it waited', async () => {
    const clock = new VirtualClock();
    const pipeline = newPipeline(yaml, clientsWithDownCluster('primary').clients, { clock, startupTimeoutMs: 30_000 });
    const prepared = pipeline.prepare();
    const state = settled(prepared);
    await clock.advance(29_000);
    assert.equal(state(), 'pending');
    await clock.advance(2_000);
    await assert.rejects(prepared, (error: unknown) => {
      assert.ok(error instanceof ClusterUnavailableError);
      assert.equal(error.message, 'Cluster "primary": cannot be reached (Connection refused); gave up after 30 s (--startup-timeout)');
      return true;
    });
  });

  it('applies a change asked for while it waits for its clusters once it runs, and refuses one asked for once it stopped', async () => {
    const clock = new VirtualClock();
    const down = clientsWithDownCluster('backup');
    const pipeline = newPipeline(yaml.replace(/\n  - \{ source: backup.*\n/, '\n'), down.clients, { clock });
    const prepared = pipeline.prepare();
    const config = pipeline.config;
    // The REST API and the file watch are up while the pipeline waits for its clusters.
    const reloaded = settled(pipeline.reload(config));
    await clock.advance(5_000);
    assert.equal(reloaded(), 'pending', 'waits for the start');
    assert.equal(pipeline.applying, true);
    down.reachable();
    await clock.advance(10_000);
    await prepared;
    const running = pipeline.run();
    await clock.advance(0);
    assert.equal(reloaded(), 'resolved', 'applied once running');
    pipeline.stop();
    await running;
    await assert.rejects(pipeline.reload(config), { message: 'The pipeline is stopping; the change was not applied.' });
  });

  it('a stop while a cluster is waited for ends the wait', async () => {
    const clock = new VirtualClock();
    const pipeline = newPipeline(yaml, clientsWithDownCluster('primary').clients, { clock });
    const prepared = pipeline.prepare();
    const state = settled(prepared);
    await clock.advance(5_000);
    pipeline.stop();
    await clock.advance(0);
    assert.equal(state(), 'resolved');
  });
});
