import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectorConfigText, FlowConfig, PipelineConfig } from '../config';
import { MirrorflowError } from '../core/errors';
import { silentLogger } from '../core/ports/logger';
import type { ProgressStore } from '../flow/progress/progress-store';
import type { ConnectorRef } from '../telemetry/connect-api';
import { ConnectRestError } from '../telemetry/connect-writes';
import { ConnectorControl } from './connector-control';
import { loadPipelineTexts } from './load-pipeline';
import type { Pipeline } from './pipeline';
import type { ReloadPlan } from './reload-plan';

const source = (topics: string, extra: Record<string, string> = {}): Record<string, string> => ({
  'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
  'source.cluster.alias': 'primary',
  'target.cluster.alias': 'backup',
  'source.cluster.bootstrap.servers': '127.0.0.1:9092',
  'target.cluster.bootstrap.servers': '127.0.0.1:9093',
  topics,
  ...extra,
});
const heartbeat = { ...source(''), 'connector.class': 'MirrorHeartbeatConnector' };
delete (heartbeat as Record<string, string>)['topics'];

// On disk too: a file change reads the files again.
const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-control-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const files: ConnectorConfigText[] = [
  { file: join(dir, 'source.json'), text: JSON.stringify(source('orders')) },
  { file: join(dir, 'heartbeat.json'), text: JSON.stringify(heartbeat) },
];
for (const f of files) writeFileSync(f.file, f.text);

/** The pipeline's side the control uses: its config, and the configs it is asked to apply. */
class FakePipeline {
  config: PipelineConfig;
  readonly applied: PipelineConfig[] = [];
  readonly restarted: string[] = [];
  applying = false;
  constructor(config: PipelineConfig) {
    this.config = config;
  }
  snapshots(): [] {
    return [];
  }
  reload(next: PipelineConfig): Promise<ReloadPlan> {
    this.applied.push(next);
    this.config = next;
    return Promise.resolve({ added: [], removed: [], changed: [], unchanged: [], notes: [] });
  }
  restart(name: string): Promise<void> {
    this.restarted.push(name);
    return Promise.resolve();
  }
  /** The progress store an edit gets: what it alters, and what is stored. */
  stored: { tp: { topic: string; partition: number }; offset: number }[] = [];
  readonly altered: { flow: string; entries: unknown }[] = [];
  busy: string | undefined;
  editProgress<T>(flow: FlowConfig, edit: (progress: ProgressStore) => Promise<T>): Promise<T> {
    if (this.busy !== undefined) return Promise.reject(new MirrorflowError(this.busy));
    const progress = {
      stored: () => this.stored,
      alter: (entries: unknown) => {
        this.altered.push({ flow: flow.name, entries });
        return Promise.resolve();
      },
    };
    return edit(progress as unknown as ProgressStore);
  }
  readProgress(): Promise<typeof this.stored> {
    return Promise.resolve(this.stored);
  }
}

/** `texts` null: a pipeline YAML or driver file. */
function control(texts: readonly ConnectorConfigText[] | null = files): { control: ConnectorControl; pipeline: FakePipeline } {
  const pipeline = new FakePipeline(loadPipelineTexts(files).config);
  return {
    pipeline,
    control: new ConnectorControl({
      pipeline: pipeline as unknown as Pipeline,
      files: files.map((f) => f.file),
      connectorTexts: texts ?? undefined,
      set: [],
      pluginDirs: [],
      logger: silentLogger,
    }),
  };
}

const ref = (type: ConnectorRef['type']): ConnectorRef => ({ name: `primary->backup.${type}`, type, source: 'primary', target: 'backup' });
const flowOf = (config: PipelineConfig | undefined) => config?.flows.find((f) => f.name === 'primary->backup');

test('PUT config: the body takes the place of its connector among the others, read as the files are; the same config as a file is the same pipeline', async () => {
  const { control: c, pipeline } = control();
  const result = await c.putConfig('primary->backup.MirrorSourceConnector', { ...source('orders, returns'), name: 'primary->backup.MirrorSourceConnector' });
  assert.deepEqual(result, { created: false, connector: ref('MirrorSourceConnector') });
  const asFile = loadPipelineTexts([{ file: files[0]!.file, text: JSON.stringify(source('orders, returns')) }, files[1]!]).config;
  assert.deepEqual(pipeline.applied.at(-1), asFile, 'equal to the same change made in the file');
  assert.equal(pipeline.applied.at(-1)!.name, 'source', "the running pipeline's name, though the first text now comes from the request");
  assert.equal(c.config(ref('MirrorSourceConnector'))?.['topics'], 'orders, returns', 'GET …/config shows the running config');
  assert.equal(c.config(ref('MirrorHeartbeatConnector'))?.['connector.class'], 'MirrorHeartbeatConnector');
});

test('PUT config refuses, changing nothing: every problem of the config, a class or flow the name does not say, a pipeline not made from connector configs', async () => {
  const { control: c, pipeline } = control();
  const refusal = async (name: string, config: Record<string, string>): Promise<ConnectRestError> => {
    const error = await c.putConfig(name, config).then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ConnectRestError);
    assert.equal(error.status, 400);
    return error;
  };
  const invalid = await refusal(
    'primary->backup.MirrorSourceConnector',
    source('orders', { 'replication.factor': 'many', 'refresh.topics.interval.seconds': 'soon' }),
  );
  assert.match(invalid.message, /^Connector configuration is invalid and contains the following 2 error\(s\):\n/);
  assert.match(invalid.message, /PUT \/connectors\/primary->backup\.MirrorSourceConnector\/config:\d+:\d+: .*replication\.factor/);
  assert.match(
    (await refusal('primary->backup.MirrorCheckpointConnector', source('orders'))).message,
    /is a MirrorCheckpointConnector, but its config's connector\.class is MirrorSourceConnector/,
  );
  assert.match(
    (await refusal('backup->primary.MirrorSourceConnector', source('orders'))).message,
    /replicates backup->primary, but .* make it primary->backup\.MirrorSourceConnector/,
  );
  assert.match((await refusal('mm2-source', source('orders'))).message, /<source>-><target>\.<class> or the bare class/);
  assert.deepEqual(pipeline.applied, []);

  const fromYaml = control(null).control;
  const error = await fromYaml.putConfig('MirrorSourceConnector', source('orders')).catch((e: unknown) => e);
  assert.ok(error instanceof ConnectRestError);
  assert.match(error.message, /not from connector configs: change it in the file/);
});

test('pause turns the part off and remembers it across a file change; resume turns it on; DELETE turns it off for good; restart restarts the flow', async () => {
  const { control: c, pipeline } = control();
  await c.pause(ref('MirrorSourceConnector'));
  assert.equal(flowOf(pipeline.applied.at(-1))?.enabled, false);
  assert.deepEqual(c.paused, [ref('MirrorSourceConnector')]);
  await c.pause(ref('MirrorSourceConnector'));
  assert.equal(pipeline.applied.length, 1, 'pausing again changes nothing');

  // A file change applies the file, the paused part still off.
  await c.applyFile(loadPipelineTexts(files).config, undefined as never);
  assert.equal(flowOf(pipeline.applied.at(-1))?.enabled, false);
  await c.resume(ref('MirrorSourceConnector'));
  assert.equal(flowOf(pipeline.applied.at(-1))?.enabled, true);
  assert.deepEqual(c.paused, []);

  await c.delete(ref('MirrorHeartbeatConnector'));
  assert.equal(flowOf(pipeline.applied.at(-1))?.heartbeats.enabled, false);
  assert.equal(c.config(ref('MirrorHeartbeatConnector')), undefined, 'its config is gone');
  await c.pause(ref('MirrorCheckpointConnector'));
  const after = flowOf(pipeline.applied.at(-1))!;
  assert.deepEqual([after.enabled, after.checkpoints.enabled, after.heartbeats.enabled], [true, false, false], 'the deleted part stays off');

  await c.restart(ref('MirrorSourceConnector'));
  assert.deepEqual(pipeline.restarted, ['primary->backup']);
});

test('stop turns the part off as pause does, shown STOPPED; pause and resume move it out of STOPPED; a file change keeps it stopped', async () => {
  const { control: c, pipeline } = control();
  await c.stop(ref('MirrorSourceConnector'));
  assert.equal(flowOf(pipeline.applied.at(-1))?.enabled, false);
  assert.deepEqual([c.stopped, c.paused], [[ref('MirrorSourceConnector')], []]);
  await c.applyFile(loadPipelineTexts(files).config, undefined as never);
  assert.equal(flowOf(pipeline.applied.at(-1))?.enabled, false, 'still stopped after the file change');
  await c.pause(ref('MirrorSourceConnector'));
  assert.deepEqual([c.stopped, c.paused], [[], [ref('MirrorSourceConnector')]]);
  await c.stop(ref('MirrorSourceConnector'));
  await c.resume(ref('MirrorSourceConnector'));
  assert.deepEqual([c.stopped, c.paused], [[], []]);
  assert.equal(flowOf(pipeline.applied.at(-1))?.enabled, true);
});

test('create: a new connector, paused or stopped before it ever runs when its initial state says so; one that runs is 409', async () => {
  const { control: c, pipeline } = control([files[1]!]);
  const name = 'primary->backup.MirrorSourceConnector';
  const created = await c.create(name, { ...source('orders'), name }, 'STOPPED');
  assert.deepEqual(created, ref('MirrorSourceConnector'));
  assert.deepEqual(c.stopped, [ref('MirrorSourceConnector')]);
  assert.equal(pipeline.applied.length, 1);
  assert.equal(flowOf(pipeline.applied[0])?.enabled, false, 'the first configuration applied has it off already');
  assert.equal(c.config(ref('MirrorSourceConnector'))?.['topics'], 'orders');
  const again = await c.create(name, { ...source('orders'), name }, 'RUNNING').catch((e: unknown) => e);
  assert.ok(again instanceof ConnectRestError);
  assert.deepEqual([again.status, again.message], [409, `Connector ${name} already exists`]);
});

test("offsets: only a stopped connector's, of its own source cluster, written through its flow's progress; reset removes every stored one; a flow still replicating elsewhere is 409", async () => {
  const { control: c, pipeline } = control();
  const source0 = { cluster: 'primary', topic: 'orders', partition: 0, offset: 5 };
  const notStopped = await c.alterOffsets(ref('MirrorSourceConnector'), [source0]).catch((e: unknown) => e);
  assert.ok(notStopped instanceof ConnectRestError);
  assert.equal(notStopped.status, 400);
  assert.match(notStopped.message, /must be in the STOPPED state/);

  await c.stop(ref('MirrorSourceConnector'));
  const otherCluster = await c.alterOffsets(ref('MirrorSourceConnector'), [{ ...source0, cluster: 'backup' }]).catch((e: unknown) => e);
  assert.ok(otherCluster instanceof ConnectRestError);
  assert.match(otherCluster.message, /names cluster backup, but primary->backup\.MirrorSourceConnector replicates from primary/);

  await c.alterOffsets(ref('MirrorSourceConnector'), [source0, { ...source0, partition: 1, offset: null }]);
  pipeline.stored = [{ tp: { topic: 'orders', partition: 3 }, offset: 9 }];
  await c.resetOffsets(ref('MirrorSourceConnector'));
  assert.deepEqual(pipeline.altered, [
    {
      flow: 'primary->backup',
      entries: [
        { tp: { topic: 'orders', partition: 0 }, offset: 5 },
        { tp: { topic: 'orders', partition: 1 }, offset: null },
      ],
    },
    { flow: 'primary->backup', entries: [{ tp: { topic: 'orders', partition: 3 }, offset: null }] },
  ]);
  assert.deepEqual(await c.storedOffsets(ref('MirrorSourceConnector')), [{ topic: 'orders', partition: 3, offset: 9 }]);

  pipeline.busy = 'The flow primary->backup still replicates in another process.';
  const busy = await c.resetOffsets(ref('MirrorSourceConnector')).catch((e: unknown) => e);
  assert.ok(busy instanceof ConnectRestError);
  assert.deepEqual([busy.status, busy.message], [409, 'The offsets were not changed: The flow primary->backup still replicates in another process.']);
});
