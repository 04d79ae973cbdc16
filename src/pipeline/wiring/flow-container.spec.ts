import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, NEVER, Subject, asyncScheduler, concat, defer, lastValueFrom, of, toArray } from '#rxjs';
import { SourceAdmin, TargetAdmin, type ClusterAdmin, type NewTopic, type TopicDescription } from '../../core/ports/cluster-admin';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import { silentLogger } from '../../core/ports/logger';
import { ProgressReader, SourceRecords, type ConsumeOptions, type RecordSource, type TopicReader } from '../../core/ports/record-source';
import { ProgressWriter, ReplicationWriter, type OutboundItem, type OutboundRecord, type RecordWriter } from '../../core/ports/record-writer';
import type { KafkaRecord, SourceBatch } from '../../core/record';
import { parsePipeline } from '../../config';
import { createPluginRegistry } from '../../plugins';
import { FlowStatus } from '../../flow/status/flow-status';
import { ReplicationFlow } from '../../flow/replication/replication-flow';
import { flowContainer, pipelineContainer } from './flow-container';
import { buildRunningFlow } from '../run-flow';

/** Clients that fail on every call: a port the test forgot to rebind shows up as this error. */
const unreachable = (what: string) => (): never => {
  throw new Error(`${what} was not rebound to a fake`);
};
const noClients: KafkaClients = {
  admin: unreachable('an admin'),
  writer: unreachable('a writer'),
  source: unreachable('a source'),
  reader: unreachable('a reader'),
  checkReachable: unreachable('checkReachable'),
  closeRoles: async () => undefined,
  close: async () => undefined,
};

/** An admin over a topic list in memory. */
function fakeAdmin(cluster: string, topics: TopicDescription[]): ClusterAdmin & { readonly created: NewTopic[] } {
  const created: NewTopic[] = [];
  return {
    cluster,
    created,
    listTopics: () => defer(() => of([...topics])),
    describeTopics: (names: readonly string[]) => defer(() => of(topics.filter((t) => names.includes(t.name)))),
    topicIds: () => of(new Map<string, string>()),
    describeTopicConfigs: (names: readonly string[]) => of(new Map(names.map((n) => [n, []]))),
    createTopics: (list: readonly NewTopic[]) =>
      defer(() => {
        created.push(...list);
        for (const t of list) if (!topics.some((known) => known.name === t.name)) topics.push({ name: t.name, partitions: t.partitions });
        return of(list.map((t) => t.name));
      }),
    partitionOffsets: () => of([{ partition: 0, earliest: 0, latest: 3 }]),
  } as unknown as ClusterAdmin & { readonly created: NewTopic[] };
}

/** A writer that acknowledges everything and keeps what it was given. */
function capturingWriter(cluster: string): RecordWriter & { readonly written: OutboundRecord[] } {
  const written: OutboundRecord[] = [];
  return {
    cluster,
    written,
    write: (items: readonly OutboundItem[]) =>
      defer(() => {
        written.push(...(items as OutboundRecord[]));
        return of(Float64Array.from(items, (_, i) => i));
      }),
    close: async () => undefined,
  };
}

const yaml = `
name: wiring
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
flows:
  - source: primary
    target: backup
    topics: [orders]
    offset_syncs: { enabled: false }
    checkpoints: { enabled: false }
    heartbeats: { enabled: false }
    transforms:
      - { type: insert_header, header: origin, value: primary }
`;

test("a flow's container, built from the real modules with its ports rebound to fakes, replicates records through the real graph without the container", async () => {
  const config = parsePipeline(yaml, 'pipeline.yaml');
  const flowConfig = config.flows[0]!;
  const pipeline = pipelineContainer(config, {
    logger: silentLogger,
    clients: noClients,
    scheduler: asyncScheduler,
    registry: createPluginRegistry({ pluginDirs: [] }),
  });
  const container = flowContainer(pipeline, flowConfig, silentLogger);

  const records: KafkaRecord[] = [0, 1, 2].map((offset) => ({
    topic: 'orders',
    partition: 0,
    offset,
    timestamp: 1000 + offset,
    key: Buffer.from(`k${offset}`),
    value: Buffer.from(`v${offset}`),
    headers: [],
  }));
  const consumed: ConsumeOptions[] = [];
  const source: RecordSource = {
    cluster: 'primary',
    consume: (options): Observable<SourceBatch> => {
      consumed.push(options);
      return concat(of<SourceBatch>({ kind: 'records', topic: 'orders', partition: 0, records, nextOffset: 3, highWatermark: 3, bytes: 30 }), NEVER);
    },
  };
  const sourceAdmin = fakeAdmin('primary', [{ name: 'orders', partitions: 1 }]);
  const targetAdmin = fakeAdmin('backup', []);
  const replicated = capturingWriter('backup');
  const progress = capturingWriter('backup');
  const progressReader = { cluster: 'backup', readToEnd: () => of() } as unknown as TopicReader;

  container.rebind(SourceRecords).toConstantValue(source);
  container.rebind(SourceAdmin).toConstantValue(sourceAdmin);
  container.rebind(TargetAdmin).toConstantValue(targetAdmin);
  container.rebind(ReplicationWriter).toConstantValue(replicated);
  container.rebind(ProgressWriter).toConstantValue(progress);
  container.rebind(ProgressReader).toConstantValue(progressReader);

  const flow = container.get(ReplicationFlow);
  const status = container.get(FlowStatus);
  assert.equal(container.get(ReplicationFlow), flow, 'the flow is a singleton of its container');
  // Everything a part needs is resolved here, once: with both containers emptied, the running
  // graph can only use what it was given (no part looks anything up at run time).
  container.unbindAll();
  pipeline.unbindAll();

  // Stopped once the flow counted every record written (status.recordWrite, after the target acknowledged).
  const recordWrite = status.recordWrite.bind(status);
  const allWritten = new Promise<void>((resolve) => {
    status.recordWrite = (batches, now) => {
      recordWrite(batches, now);
      if (status.recordsReplicated >= records.length) resolve();
    };
  });
  const stop$ = new Subject<void>();
  const ended = lastValueFrom(flow.run(stop$).pipe(toArray()));
  await allWritten;
  stop$.next();
  await ended;

  // The policy renames, the configured transform runs, the fake writer gets the records.
  assert.deepEqual(
    replicated.written.map((r) => [r.topic, r.partition, r.key?.toString(), r.value?.toString(), r.headers.map((h) => `${h.key}=${h.value?.toString()}`)]),
    [
      ['primary.orders', 0, 'k0', 'v0', ['origin=primary']],
      ['primary.orders', 0, 'k1', 'v1', ['origin=primary']],
      ['primary.orders', 0, 'k2', 'v2', ['origin=primary']],
    ],
  );
  assert.equal(status.recordsReplicated, 3);
  // The settings come from the flow's config: its group, its topics; the target topic made by topic sync.
  assert.equal(consumed[0]?.groupId, 'mirrorflow.wiring.primary-backup');
  assert.deepEqual(consumed[0]?.topics, ['orders']);
  assert.deepEqual(
    targetAdmin.created.map((t) => t.name),
    ['mm2-offsets.primary.internal', 'primary.orders'],
  );
  // Progress stored on shutdown through the rebound progress writer, in Connect's key format.
  assert.ok(
    progress.written.some((r) => r.topic === 'mm2-offsets.primary.internal'),
    'progress was written',
  );
});

test('a flow is built at once: its jobs, status and election parts are resolved then, nothing later', () => {
  const config = parsePipeline(
    `
name: wiring
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
flows:
  - { source: primary, target: backup, topics: [orders] }
  - { source: backup, target: primary, enabled: false }
`,
    'pipeline.yaml',
  );
  // Clients that make inert stand-ins: building a flow makes its clients, and connects none.
  const made: string[] = [];
  const stub = (kind: string) => (cluster: string) => (made.push(`${kind}:${cluster}`), { cluster }) as never;
  const clients: KafkaClients = { ...noClients, admin: stub('admin'), writer: stub('writer'), source: stub('source'), reader: stub('reader') };
  const pipeline = pipelineContainer(config, { logger: silentLogger, clients, scheduler: asyncScheduler, registry: createPluginRegistry({ pluginDirs: [] }) });
  const [replicating, heartbeatsOnly] = config.flows.map((flow) => buildRunningFlow(pipeline, config.name, flow, silentLogger));
  for (const flow of [replicating!, heartbeatsOnly!]) flow.container.unbindAll();
  pipeline.unbindAll();

  assert.ok(replicating!.replication instanceof ReplicationFlow);
  assert.ok(replicating!.checkpoints !== undefined && replicating!.heartbeats !== undefined);
  assert.equal(replicating!.election.topic, 'heartbeats');
  assert.equal(replicating!.election.scheduler, asyncScheduler);
  assert.equal(heartbeatsOnly!.replication, undefined, 'a flow that is not enabled only emits heartbeats');
  assert.ok(heartbeatsOnly!.heartbeats !== undefined);
  assert.equal(heartbeatsOnly!.checkpoints, undefined);
  assert.equal(heartbeatsOnly!.status.state, 'disabled');
  assert.ok(made.includes('source:primary'), 'the parts were made with their clients when the flow was built');
});
