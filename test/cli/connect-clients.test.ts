/**
 * Connect's REST API as its two best-known clients drive it, request by request in the order
 * their sources send them, against a running `mirrorflow run` on real Kafka:
 *
 * - kcctl (github.com/kcctl/kcctl, its commands' `call()`): most commands ask `GET /` first and
 *   gate on the version (3.6 for offsets), then `get connectors` (expand=status), `describe`,
 *   `get loggers`, `patch loglevel` (worker and cluster scope), `stop`, `get offsets`, `patch
 *   offsets`, `resume`, `restart --tasks`, `restart task`, `delete`, `apply` (POST /connectors).
 * - Strimzi's operator reconciling a KafkaMirrorMaker2 (KafkaConnectApiImpl, AbstractConnectOperator,
 *   KafkaMirrorMaker2AssemblyOperator): its logging (GET /admin/loggers/, then PUT each logger
 *   with scope=cluster, root first), then GET /connectors, and per connector GET …/config (404:
 *   POST /connectors; equal: GET status, then pause/stop/resume to its spec's state; different:
 *   PUT …/config), its offsets annotations (GET, PATCH …/offsets), restart annotations, GET topics.
 *
 * A stopped flow's offsets moved back by PATCH: the run resumes exactly there (the target holds
 * everything once, then again from the patched offset on), and nothing is lost.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { numbered } from '../support/fault-load';
import { httpAddress, scratchDir, spawnPipeline, type ChildPipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

let primary: KafkaKit;
let backup: KafkaKit;
useKits(
  (c) => ({ primary: new KafkaKit(c.primary), backup: new KafkaKit(c.backup) }),
  (k) => ({ primary, backup } = k),
);

interface Answer {
  readonly status: number;
  readonly text: string;
  json<T = unknown>(): T;
}

/** A REST client as kcctl's and Strimzi's are: JSON in, JSON accepted, connector names encoded in the path. */
function client(base: string): (method: string, path: string, body?: unknown) => Promise<Answer> {
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, json: <T>() => JSON.parse(text) as T };
  };
}

const count = (kit: KafkaKit, topic: string): Promise<number> => kit.count(topic).catch(() => 0);
const values = async (kit: KafkaKit, topic: string): Promise<string[]> => (await kit.readAllFlat(topic)).map((r) => r.value!.toString());

function jsonLogs(child: ChildPipeline): Record<string, unknown>[] {
  return child
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function connectorConfig(type: string, topic: string): Promise<Record<string, string>> {
  const clusters = await testClusters();
  return {
    'connector.class': `org.apache.kafka.connect.mirror.${type}`,
    'tasks.max': '1',
    'source.cluster.alias': 'primary',
    'source.cluster.bootstrap.servers': clusters.primary,
    'source.cluster.security.protocol': 'PLAINTEXT',
    'target.cluster.alias': 'backup',
    'target.cluster.bootstrap.servers': clusters.backup,
    'target.cluster.security.protocol': 'PLAINTEXT',
    topics: topic,
    'replication.factor': '1',
    'offset-syncs.topic.replication.factor': '1',
    'checkpoints.topic.replication.factor': '1',
    'heartbeats.topic.replication.factor': '1',
    'sync.topic.acls.enabled': 'false',
    'refresh.topics.interval.seconds': '1',
    'emit.heartbeats.interval.seconds': '1',
  };
}

const enc = encodeURIComponent;

describe("Connect's REST clients drive a running pipeline (http.connect_api: read_write)", () => {
  test("kcctl's requests, in its order: a stopped flow's offsets patched back, resumed from there, nothing lost", async () => {
    const p = uniqueName('kcctl');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    await primary.createTopic(topic, 1);
    await primary.produce(topic, numbered('o', 0, 300, [0]));
    const name = 'primary->backup.MirrorSourceConnector';
    const file = join(scratchDir(), `${p}-source.json`);
    writeFileSync(file, JSON.stringify({ name, config: await connectorConfig('MirrorSourceConnector', topic) }, null, 2));
    const child = spawnPipeline(file, { args: ['--connect-api', 'read_write', '--log-format', 'json'] });
    try {
      const call = client(await httpAddress(child));
      await waitFor(async () => (await count(backup, remote)) >= 300, { what: `300 records in ${remote}`, timeoutMs: 60_000 });

      // kcctl info: GET / — kcctl gates its commands on this version (3.6 for offsets).
      const info = (await call('GET', '/')).json<{ version: string; commit: string; kafka_cluster_id: null }>();
      const [major, minor] = info.version.split('.').map(Number) as [number, number];
      assert.ok(major > 3 || (major === 3 && minor >= 6), `kcctl needs 3.6 for offsets; got ${info.version}`);
      assert.match(info.commit, /^mirrorflow-/);

      // kcctl get connectors: GET /, GET /connectors?expand=status.
      const listed = (await call('GET', '/connectors?expand=status')).json<Record<string, { status: { connector: { state: string } } }>>();
      assert.equal(listed[name]?.status.connector.state, 'RUNNING');

      // kcctl describe connector: GET /connectors/{c}, …/status, …/config, …/tasks, …/topics.
      for (const path of ['', '/status', '/config', '/tasks']) assert.equal((await call('GET', `/connectors/${enc(name)}${path}`)).status, 200, path);
      assert.deepEqual((await call('GET', `/connectors/${enc(name)}/topics`)).json(), { [name]: { topics: [remote] } });

      // kcctl get loggers; patch loglevel kafkajs DEBUG: the Kafka client's debug lines appear.
      const loggers = (await call('GET', '/admin/loggers')).json<Record<string, { level: string }>>();
      assert.deepEqual([loggers['root']?.level, loggers['mirrorflow']?.level, loggers['kafkajs']?.level], ['INFO', 'INFO', 'INFO']);
      const kafkajsDebug = (): number => jsonLogs(child).filter((l) => l['level'] === 'debug' && l['component'] === 'kafkajs').length;
      assert.equal(kafkajsDebug(), 0, 'at info, no debug line');
      const debug = await call('PUT', '/admin/loggers/kafkajs', { level: 'DEBUG' });
      assert.deepEqual([debug.status, debug.json()], [200, ['kafkajs']]);
      await waitFor(() => kafkajsDebug() > 0, { what: "the Kafka client's debug lines", timeoutMs: 30_000 });
      // kcctl patch loglevel --scope cluster: 204, and the level is back.
      assert.equal((await call('PUT', '/admin/loggers/kafkajs?scope=cluster', { level: 'WARN' })).status, 204);
      assert.deepEqual((await call('GET', '/admin/loggers/kafkajs')).json<{ level: string }>().level, 'WARN');

      // kcctl stop: 204, STOPPED without tasks; offsets cannot change while it runs.
      const running = await call('DELETE', `/connectors/${enc(name)}/offsets`);
      assert.equal(running.status, 400);
      assert.match(running.json<{ message: string }>().message, /^Connectors must be in the STOPPED state/);
      assert.equal((await call('PUT', `/connectors/${enc(name)}/stop`)).status, 204);
      assert.deepEqual((await call('GET', `/connectors/${enc(name)}/status`)).json<{ connector: { state: string }; tasks: [] }>().tasks, []);

      // kcctl get offsets: the stored progress, the last replicated offset.
      const partition = { cluster: 'primary', partition: 0, topic };
      // (The progress topic of this source is shared with the other tests' flows: this topic's entry.)
      const offsets = async (): Promise<unknown[]> =>
        (await call('GET', `/connectors/${enc(name)}/offsets`))
          .json<{ offsets: { partition: { topic: string } }[] }>()
          .offsets.filter((o) => o.partition.topic === topic);
      assert.deepEqual(await offsets(), [{ partition, offset: { offset: 299 } }]);

      // While stopped, more records come; none is replicated.
      await primary.produce(topic, numbered('o', 300, 100, [0]));
      assert.equal(await count(backup, remote), 300);

      // kcctl patch offsets --source-partition … --source-offset '{"offset": 199}'.
      const patched = await call('PATCH', `/connectors/${enc(name)}/offsets`, { offsets: [{ partition, offset: { offset: 199 } }] });
      assert.deepEqual([patched.status, patched.json()], [200, { message: 'The offsets for this connector have been altered successfully' }]);
      assert.deepEqual(await offsets(), [{ partition, offset: { offset: 199 } }]);

      // kcctl resume: the flow starts at 200, the patched offset + 1, and reads on to the end.
      assert.equal((await call('PUT', `/connectors/${enc(name)}/resume`)).status, 202);
      await waitFor(async () => (await count(backup, remote)) >= 500, { what: `500 records in ${remote}`, timeoutMs: 60_000 });
      const source = await values(primary, topic);
      assert.deepEqual(
        await values(backup, remote),
        [...source.slice(0, 300), ...source.slice(200, 400)],
        'all 400 once, then 200-399 again: resumed at the patched offset',
      );

      // kcctl restart connector --tasks all (202, RESTARTING); restart task c/0 (204).
      const restarted = await call('POST', `/connectors/${enc(name)}/restart?includeTasks=true&onlyFailed=false`);
      assert.equal(restarted.status, 202);
      assert.deepEqual(
        restarted.json<{ tasks: { state: string }[] }>().tasks.map((t) => t.state),
        ['RESTARTING'],
      );
      await waitFor(async () => (await call('GET', `/connectors/${enc(name)}/status`)).json<{ connector: { state: string } }>().connector.state === 'RUNNING', {
        what: 'the connector running again',
        timeoutMs: 30_000,
      });
      assert.equal((await call('POST', `/connectors/${enc(name)}/tasks/0/restart`)).status, 204);

      // kcctl delete connector, then kcctl apply -f (named: GET /connectors, POST /connectors):
      // it comes back from its stored progress, and what came meanwhile is copied once.
      assert.equal((await call('DELETE', `/connectors/${enc(name)}`)).status, 204);
      assert.deepEqual((await call('GET', '/connectors')).json(), []);
      await primary.produce(topic, numbered('o', 400, 50, [0]));
      const applied = await call('POST', '/connectors', { name, config: await connectorConfig('MirrorSourceConnector', topic) });
      assert.equal(applied.status, 201, applied.text);
      await waitFor(async () => (await count(backup, remote)) >= 550, { what: `550 records in ${remote}`, timeoutMs: 60_000 });
      const all = await values(primary, topic);
      assert.deepEqual((await values(backup, remote)).slice(500), all.slice(400), 'the 50 records written meanwhile, once each');

      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test("Strimzi's KafkaMirrorMaker2 reconciliation: loggers, connectors created by POST, stop, offsets annotation, resume, config change, restarts", async () => {
    const p = uniqueName('strimzi');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    await primary.createTopic(topic, 1);
    await primary.produce(topic, numbered('s', 0, 100, [0]));
    // The "Connect cluster" starts with the heartbeat connector only; Strimzi creates the others.
    const desired = {
      'primary->backup.MirrorSourceConnector': await connectorConfig('MirrorSourceConnector', topic),
      'primary->backup.MirrorCheckpointConnector': {
        ...(await connectorConfig('MirrorCheckpointConnector', topic)),
        groups: `${p}-.*`,
        'emit.checkpoints.interval.seconds': '1',
      },
      'primary->backup.MirrorHeartbeatConnector': await connectorConfig('MirrorHeartbeatConnector', topic),
    };
    const source = 'primary->backup.MirrorSourceConnector';
    const file = join(scratchDir(), `${p}-heartbeat.json`);
    writeFileSync(
      file,
      JSON.stringify({ name: 'primary->backup.MirrorHeartbeatConnector', config: desired['primary->backup.MirrorHeartbeatConnector'] }, null, 2),
    );
    const child = spawnPipeline(file, { args: ['--connect-api', 'read_write', '--log-format', 'json'] });
    try {
      const call = client(await httpAddress(child));
      const strimziName = (n: string): string => n.replace('->', '%2D%3E'); // KafkaConnectApiImpl.encodeURLString

      // Logging (log4j1 Connect): GET /admin/loggers/, then PUT every logger, root first, scope=cluster.
      assert.equal((await call('GET', '/admin/loggers/')).status, 200);
      for (const [logger, level] of [
        ['root', 'INFO'],
        ['org.I0Itec.zkclient', 'ERROR'],
        ['org.apache.zookeeper', 'ERROR'],
        ['org.reflections', 'ERROR'],
      ] as const) {
        const res = await call('PUT', `/admin/loggers/${logger}?scope=cluster`, { level });
        assert.ok([200, 204].includes(res.status), `${logger}: ${res.status} ${res.text}`);
      }

      // reconcileConnectors: GET /connectors, then each desired connector.
      assert.deepEqual((await call('GET', '/connectors')).json(), ['primary->backup.MirrorHeartbeatConnector']);
      const reconcile = async (name: keyof typeof desired, state: 'running' | 'stopped' = 'running'): Promise<string> => {
        const config = await call('GET', `/connectors/${strimziName(name)}/config`);
        if (config.status === 404) {
          const created = await call('POST', '/connectors', { name, config: desired[name] });
          assert.equal(created.status, 201, created.text);
        } else if (
          JSON.stringify(Object.entries(config.json<Record<string, string>>()).sort()) !== JSON.stringify(Object.entries({ ...desired[name], name }).sort())
        ) {
          const put = await call('PUT', `/connectors/${strimziName(name)}/config`, { ...desired[name], name });
          assert.equal(put.status, 200, put.text);
        }
        const status = (await call('GET', `/connectors/${strimziName(name)}/status`)).json<{ connector: { state: string } }>().connector.state;
        if (status === 'RUNNING' && state === 'stopped') assert.equal((await call('PUT', `/connectors/${strimziName(name)}/stop`)).status, 204);
        if (status === 'STOPPED' && state === 'running') assert.equal((await call('PUT', `/connectors/${strimziName(name)}/resume`)).status, 202);
        assert.equal((await call('GET', `/connectors/${strimziName(name)}/topics`)).status, 200);
        return (await call('GET', `/connectors/${strimziName(name)}/status`)).json<{ connector: { state: string } }>().connector.state;
      };
      for (const name of Object.keys(desired) as (keyof typeof desired)[]) await reconcile(name);
      await waitFor(async () => (await count(backup, remote)) >= 100, { what: `100 records in ${remote}`, timeoutMs: 60_000 });
      assert.deepEqual((await call('GET', '/connectors')).json<string[]>().sort(), Object.keys(desired).sort());
      const configNow = (await call('GET', `/connectors/${strimziName(source)}/config`)).json();
      assert.deepEqual(configNow, { ...desired[source], name: source }, 'the config Strimzi compares with is the one it gave: no reconfiguration next time');

      // spec.state: stopped; then the connector-offsets annotation: list (GET), alter (PATCH).
      assert.equal(await reconcile(source, 'stopped'), 'STOPPED');
      const partition = { cluster: 'primary', partition: 0, topic };
      // (The progress topic of this source is shared with the other tests' flows: this topic's entry.)
      const stored = (await call('GET', `/connectors/${strimziName(source)}/offsets`)).json<{ offsets: { partition: { topic: string } }[] }>();
      assert.deepEqual(
        stored.offsets.filter((o) => o.partition.topic === topic),
        [{ partition, offset: { offset: 99 } }],
      );
      const altered = await call('PATCH', `/connectors/${strimziName(source)}/offsets`, { offsets: [{ partition, offset: { offset: 49 } }] });
      assert.equal(altered.status, 200, altered.text);

      // spec.state: running again: it resumes at 50 (starting first: UNASSIGNED, then RUNNING).
      assert.notEqual(await reconcile(source), 'STOPPED');
      await waitFor(async () => (await reconcile(source)) === 'RUNNING', { what: `${source} running again`, timeoutMs: 30_000 });
      await waitFor(async () => (await count(backup, remote)) >= 150, { what: `150 records in ${remote}`, timeoutMs: 60_000 });
      const sourceValues = await values(primary, topic);
      assert.deepEqual(await values(backup, remote), [...sourceValues, ...sourceValues.slice(50)]);

      // A changed spec (the source connector's own config): PUT …/config (200); then the restart annotations.
      desired[source] = { ...desired[source], 'sync.topic.configs.enabled': 'false' };
      await reconcile(source);
      assert.deepEqual((await call('GET', `/connectors/${strimziName(source)}/config`)).json(), { ...desired[source], name: source });
      await waitFor(async () => (await reconcile(source)) === 'RUNNING', { what: `${source} running again`, timeoutMs: 30_000 });
      const restart = await call('POST', `/connectors/${strimziName(source)}/restart?includeTasks=true&onlyFailed=true`);
      assert.equal(restart.status, 202, 'nothing failed: nothing restarts, and the answer says so');
      assert.equal(restart.json<{ connector: { state: string } }>().connector.state, 'RUNNING');
      assert.equal((await call('POST', `/connectors/${strimziName(source)}/tasks/0/restart`)).status, 204);
      await waitFor(async () => (await reconcile(source)) === 'RUNNING', { what: `${source} running after the task restart`, timeoutMs: 30_000 });
      await primary.produce(topic, numbered('s', 100, 20, [0]));
      await waitFor(async () => (await count(backup, remote)) >= 170, { what: `170 records in ${remote}`, timeoutMs: 60_000 });
      assert.deepEqual((await values(backup, remote)).slice(150), (await values(primary, topic)).slice(100), 'records after the restarts, once each');

      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
