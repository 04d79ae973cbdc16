import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { parseConnectorConfigs } from './parse-connector-configs';
import { convertConnectorConfigs } from './convert-mm2-properties';
import type { ParsedPipeline } from './parse-mm2-properties';

const SOURCE = [
  'name = mm2-source',
  'connector.class = org.apache.kafka.connect.mirror.MirrorSourceConnector',
  'tasks.max = 4',
  'topics = orders.*',
  'source.cluster.alias = upstream',
  'target.cluster.alias = downstream',
  'source.cluster.bootstrap.servers = 127.0.0.1:9092',
  'target.cluster.bootstrap.servers = 127.0.0.1:9093',
  'key.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
  'value.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
].join('\n');

const CHECKPOINT_POST = JSON.stringify(
  {
    name: 'mm2-checkpoint',
    config: {
      'connector.class': 'MirrorCheckpointConnector',
      'source.cluster.alias': 'upstream',
      'target.cluster.alias': 'downstream',
      'source.cluster.bootstrap.servers': '127.0.0.1:9092',
      'target.cluster.bootstrap.servers': '127.0.0.1:9093',
      groups: 'billing.*',
      'emit.checkpoints.interval.seconds': 5,
    },
  },
  null,
  2,
);

const HEARTBEAT_PUT = JSON.stringify(
  {
    'connector.class': 'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
    'source.cluster.alias': 'upstream',
    'target.cluster.alias': 'downstream',
    'target.cluster.bootstrap.servers': '127.0.0.1:9093',
  },
  null,
  2,
);

function parse(files: Record<string, string>): ParsedPipeline {
  return parseConnectorConfigs(
    Object.entries(files).map(([file, text]) => ({ file, text })),
    { env: {} },
  );
}

function problems(files: Record<string, string>): string[] {
  try {
    parse(files);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => formatConfigIssue(issue));
    throw error;
  }
  assert.fail('expected problems');
}

const parts = (parsed: ParsedPipeline) =>
  parsed.config.flows.map((f) => [f.name, f.enabled, f.checkpoints.enabled, f.heartbeats.enabled, f.offset_syncs.enabled]);

describe('parseConnectorConfigs', () => {
  it('a source connector alone replicates, with offset syncs for a checkpoint connector elsewhere, and no checkpoints or heartbeats', () => {
    const parsed = parse({ 'source.properties': SOURCE });
    assert.deepEqual(parts(parsed), [['upstream->downstream', true, false, false, true]]);
    const flow = parsed.config.flows[0]!;
    assert.deepEqual(flow.topics, ['orders.*']);
    assert.deepEqual(parsed.config.clusters['upstream']?.bootstrap_servers, ['127.0.0.1:9092']);
    assert.deepEqual(parsed.config.clusters['downstream']?.bootstrap_servers, ['127.0.0.1:9093']);
    // tasks.max is the slot count of an exactly-once flow; at least once it has no effect, and says how mirrorflow scales.
    assert.equal(flow.tasks, 4);
    assert.equal(flow.delivery, 'at_least_once');
    assert.deepEqual(
      parsed.warnings.map((issue) => issue.path),
      ['tasks.max'],
    );
    assert.match(parsed.warnings[0]!.message, /outside exactly-once.*more processes with the same file/);
    // tasks.max = 1, in nearly every connector config, asks for nothing one process does not do.
    assert.deepEqual(parse({ 'source.properties': SOURCE.replace('tasks.max = 4', 'tasks.max = 1') }).warnings, []);
  });

  it('source, checkpoint (POST form) and heartbeat (PUT form) connectors of one pair make one flow with every part', () => {
    const parsed = parse({ 'source.properties': SOURCE, 'checkpoint.json': CHECKPOINT_POST, 'heartbeat.json': HEARTBEAT_PUT });
    assert.deepEqual(parts(parsed), [['upstream->downstream', true, true, true, true]]);
    const flow = parsed.config.flows[0]!;
    assert.deepEqual(flow.checkpoints.groups, ['billing.*']);
    assert.equal(flow.checkpoints.interval_ms, 5000);
  });

  it('a heartbeat connector alone emits heartbeats only; the default target alias is "target", as in MM2', () => {
    // MM2's heartbeat connector never connects to the source; mirrorflow still asks every cluster for its servers.
    const heartbeat = [
      'connector.class = MirrorHeartbeatConnector',
      'source.cluster.alias = upstream',
      'source.cluster.bootstrap.servers = 127.0.0.1:9092',
      'target.cluster.bootstrap.servers = 127.0.0.1:9093',
    ];
    const parsed = parse({ 'heartbeat.properties': heartbeat.join('\n') });
    assert.deepEqual(parts(parsed), [['upstream->target', false, false, true, true]]);
  });

  it('converts to YAML whose comments name the file and line of each value', () => {
    const converted = convertConnectorConfigs(
      [
        { file: 'source.properties', text: SOURCE },
        { file: 'heartbeat.json', text: HEARTBEAT_PUT },
      ],
      { env: {} },
    );
    assert.match(converted.yaml, /bootstrap_servers: 127\.0\.0\.1:9092 # source\.cluster\.bootstrap\.servers \(source\.properties line 7\)/);
    assert.match(converted.yaml, /- orders\.\* # topics \(source\.properties line 4\)|topics: .*# topics \(source\.properties line 4\)/);
  });

  it('names the file, line and key of each problem', () => {
    assert.deepEqual(
      problems({
        'source.properties': SOURCE.replace(
          'value.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
          'value.converter = org.apache.kafka.connect.json.JsonConverter',
        ),
        'checkpoint.json': CHECKPOINT_POST.replace('"127.0.0.1:9093"', '"127.0.0.1:9999"'),
      }),
      [
        'checkpoint.json:8:41: target.cluster.bootstrap.servers: differs from source.properties:8 (target.cluster.bootstrap.servers = 127.0.0.1:9093)\n  hint: the connectors of one flow, and of one cluster, share one value of each setting in mirrorflow',
      ],
    );
    assert.deepEqual(
      problems({
        'source.properties': SOURCE.replace(
          'value.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
          'value.converter = com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter',
        ),
      }),
      [
        "source.properties:10:19: value.converter: names Java code, which mirrorflow cannot run: com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter is not a converter mirrorflow has\n  hint: mirrorflow has ByteArrayConverter (bytes, the default), StringConverter, JsonConverter (schemas.enable true or false) and Confluent's AvroConverter, JsonSchemaConverter and ProtobufConverter",
      ],
    );
    assert.deepEqual(problems({ 'bad.json': '{"name": "x", "config": {"connector.class": "MirrorSinkConnector"}}' }), [
      "bad.json:1:45: connector.class: MirrorSinkConnector is not one of MM2's connectors: mirrorflow runs MirrorSourceConnector, MirrorCheckpointConnector and MirrorHeartbeatConnector",
    ]);
    assert.deepEqual(problems({ 'no-alias.properties': 'connector.class = MirrorSourceConnector\ntopics = .*' }), [
      'no-alias.properties: source.cluster.alias: missing required key\n  hint: name the source cluster, e.g. source.cluster.alias = primary',
    ]);
    assert.deepEqual(problems({ 'array.json': '{"connector.class": "MirrorSourceConnector", "topics": ["a"]}' }), [
      'array.json:1:56: topics: must be a string\n  hint: Connect configs hold text values, e.g. "tasks.max": "1"',
    ]);
    const checkpointAlone = problems({ 'checkpoint.json': CHECKPOINT_POST });
    assert.equal(checkpointAlone.length, 1);
    assert.match(
      checkpointAlone[0]!,
      /^checkpoint\.json:4:24: connector\.class: a MirrorCheckpointConnector without the MirrorSourceConnector of upstream->downstream is not supported yet/,
    );
  });

  it('refuses a source and a checkpoint connector that disagree on a key both read, one by leaving it at the default', () => {
    const identity = CHECKPOINT_POST.replace(
      '"groups"',
      '"replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",\n    "groups"',
    );
    assert.deepEqual(problems({ 'source.properties': SOURCE, 'checkpoint.json': identity }), [
      "checkpoint.json:9:33: replication.policy.class: is org.apache.kafka.connect.mirror.IdentityReplicationPolicy here, but source.properties:2 (the MirrorSourceConnector of the same flow) leaves it at MM2's default, org.apache.kafka.connect.mirror.DefaultReplicationPolicy: the remote topics and the checkpoints would name topics differently\n  hint: the connectors of one flow agree on it: write replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy in source.properties too, or remove it here",
    ]);
    const policy = 'replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy';
    assert.equal(parse({ 'source.properties': `${SOURCE}\n${policy}`, 'checkpoint.json': identity }).config.flows[0]!.replication_policy.type, 'identity');
    // MM2's default written out is the default.
    const written = `${SOURCE}\nreplication.policy.class = org.apache.kafka.connect.mirror.DefaultReplicationPolicy`;
    assert.doesNotThrow(() => parse({ 'source.properties': written, 'checkpoint.json': CHECKPOINT_POST }));
    // The checkpoint connector's topics would narrow what the flow copies; the source connector's own topics (SOURCE) do not.
    const narrower = CHECKPOINT_POST.replace('"groups"', '"topics": "orders.eu.*",\n    "groups"');
    assert.match(
      problems({ 'source.properties': SOURCE.replace('topics = orders.*\n', ''), 'checkpoint.json': narrower })[0]!,
      /^checkpoint\.json:9:15: topics: is orders\.eu\.\* here, but source\.properties:2 .* leaves it at MM2's default, \.\*: the flow would copy the topics the checkpoint connector names/,
    );
  });

  it('hints in the syntax of the file: JSON for a JSON config, at the line that names the cluster', () => {
    const json = [
      '{',
      '  "connector.class": "MirrorSourceConnector",',
      '  "source.cluster.alias": "primary",',
      '  "target.cluster.alias": "backup",',
      '  "source.cluster.bootstrap.servers": "${env:PRIMARY}",',
      '  "topics": "${BROKERS}"',
      '}',
    ].join('\n');
    assert.deepEqual(problems({ 'source.json': json }), [
      'source.json:4:3: target.cluster.alias: cluster "backup" has no bootstrap servers\n  hint: add "target.cluster.bootstrap.servers": "host:9092"',
      'source.json:5:39: source.cluster.bootstrap.servers: ${env:PRIMARY} uses config provider "env", which is not declared\n  hint: declare it: "config.providers": "env" and "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider"',
      'source.json:6:13: topics: ${BROKERS} is not a config provider reference\n  hint: a connector config reads environment variables through a provider: "config.providers": "env" and "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider", then ${env:NAME}',
    ]);
    const properties = ['connector.class = MirrorSourceConnector', 'source.cluster.alias = primary', 'source.cluster.bootstrap.servers = h:1'].join('\n');
    assert.deepEqual(problems({ 'source.properties': properties }), [
      'source.properties:1:1: connector.class: cluster "target" has no bootstrap servers\n  hint: add target.cluster.bootstrap.servers = host:9092',
    ]);
  });
});
