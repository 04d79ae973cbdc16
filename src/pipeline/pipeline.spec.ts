import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { of } from 'rxjs';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { KafkaClients } from '../core/ports/kafka-clients';
import type { RecordSource, TopicReader } from '../core/ports/record-source';
import type { RecordWriter } from '../core/ports/record-writer';
import { silentLogger } from '../core/ports/logger';
import { parsePipeline } from '../config';
import { createPluginRegistry } from '../plugins';
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

const newPipeline = (text: string, clients: KafkaClients) =>
  new Pipeline(parsePipeline(text, 'pipeline.yaml'), { logger: silentLogger, registry: createPluginRegistry({ pluginDirs: [] }), clients });

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
    const pipeline = newPipeline(yaml.replace(/\n  - \{ source: backup.*\n/, '\n'), clients);
    await pipeline.prepare();
    const running = pipeline.run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    pipeline.stop();
    await running;
    assert.deepEqual(
      pipeline.statuses.map((s) => s.state),
      ['disabled'],
    );
    assert.ok(clients.written.length > 0, 'heartbeats were written');
    assert.deepEqual(new Set(clients.written), new Set(['backup:heartbeats']));
  });
});
