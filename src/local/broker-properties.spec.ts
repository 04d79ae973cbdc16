import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brokerProperties, LOCAL_BROKER_DEFAULTS, renderProperties, replicationDefaults } from './broker-properties';

test('brokerProperties puts broker and controller on the given loopback ports with a static quorum', () => {
  const props = brokerProperties({ brokerPort: 40001, controllerPort: 40002, dataDir: '/tmp/k/data' });
  assert.equal(props['process.roles'], 'broker,controller');
  assert.equal(props['controller.quorum.voters'], '1@127.0.0.1:40002');
  assert.equal(props['listeners'], 'PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002');
  assert.equal(props['advertised.listeners'], 'PLAINTEXT://127.0.0.1:40001');
  assert.equal(props['log.dirs'], '/tmp/k/data');
});

test('brokerProperties makes every replication factor 1 and refuses to auto-create topics', () => {
  const props = brokerProperties({ brokerPort: 1, controllerPort: 2, dataDir: '/d' });
  for (const key of Object.keys(props).filter((k) => k.endsWith('replication.factor'))) assert.equal(props[key], '1', key);
  assert.equal(props['auto.create.topics.enable'], 'false');
  assert.equal(props['group.initial.rebalance.delay.ms'], '0');
  assert.equal(props['transaction.state.log.min.isr'], '1');
});

const threeVoters = [
  { id: 1, host: '127.0.0.1', controllerPort: 40002 },
  { id: 2, host: '127.0.0.1', controllerPort: 40012 },
  { id: 3, host: '127.0.0.1', controllerPort: 40022 },
];

test('brokerProperties makes a node of a three-node cluster one voter of a static quorum of all three, on its own ports', () => {
  const props = brokerProperties({ brokerPort: 40011, controllerPort: 40012, dataDir: '/d/node-2/data', nodeId: 2, voters: threeVoters });
  assert.equal(props['node.id'], '2');
  assert.equal(props['process.roles'], 'broker,controller');
  assert.equal(props['controller.quorum.voters'], '1@127.0.0.1:40002,2@127.0.0.1:40012,3@127.0.0.1:40022');
  assert.equal(props['listeners'], 'PLAINTEXT://127.0.0.1:40011,CONTROLLER://127.0.0.1:40012');
  assert.equal(props['advertised.listeners'], 'PLAINTEXT://127.0.0.1:40011');
  assert.equal(props['log.dirs'], '/d/node-2/data');
});

test('brokerProperties gives a three-node cluster production settings: RF 3 everywhere, two in-sync replicas, no unclean election', () => {
  const props = brokerProperties({ brokerPort: 40011, controllerPort: 40012, dataDir: '/d', nodeId: 2, voters: threeVoters });
  for (const key of Object.keys(props).filter((k) => k.endsWith('replication.factor'))) assert.equal(props[key], '3', key);
  assert.equal(props['min.insync.replicas'], '2');
  assert.equal(props['transaction.state.log.min.isr'], '2');
  assert.equal(props['share.coordinator.state.topic.min.isr'], '2');
  assert.equal(props['unclean.leader.election.enable'], 'false');
  // The test-speed settings stay.
  assert.equal(props['group.initial.rebalance.delay.ms'], '0');
  assert.equal(props['auto.create.topics.enable'], 'false');
});

test('replicationDefaults: nothing for one node, RF 2 with one in-sync replica for two, RF 3 with two from three nodes on', () => {
  assert.deepEqual(replicationDefaults(1), {});
  assert.equal(replicationDefaults(2)['default.replication.factor'], '2');
  assert.equal(replicationDefaults(2)['min.insync.replicas'], '1');
  assert.equal(replicationDefaults(5)['offsets.topic.replication.factor'], '3');
  assert.equal(replicationDefaults(5)['transaction.state.log.min.isr'], '2');
});

test('brokerProperties lets overrides replace the production settings and hands function overrides the node id', () => {
  const props = brokerProperties({
    brokerPort: 1,
    controllerPort: 2,
    dataDir: '/d',
    nodeId: 3,
    voters: threeVoters,
    overrides: { 'min.insync.replicas': '1', 'broker.rack': ({ nodeId }) => `rack-${nodeId}` },
  });
  assert.equal(props['min.insync.replicas'], '1');
  assert.equal(props['broker.rack'], 'rack-3');
});

test('brokerProperties overrides replace defaults, add keys, and undefined removes a key', () => {
  const props = brokerProperties({
    brokerPort: 1,
    controllerPort: 2,
    dataDir: '/d',
    overrides: { 'auto.create.topics.enable': 'true', 'log.retention.ms': '-1', 'num.io.threads': undefined },
  });
  assert.equal(props['auto.create.topics.enable'], 'true');
  assert.equal(props['log.retention.ms'], '-1');
  assert.equal('num.io.threads' in props, false);
  assert.ok('num.io.threads' in LOCAL_BROKER_DEFAULTS, 'the defaults themselves are not changed');
});

test('brokerProperties computes a function override from the ports the launcher chose', () => {
  const props = brokerProperties({
    brokerPort: 40001,
    controllerPort: 40002,
    dataDir: '/d',
    overrides: {
      listeners: ({ host, brokerPort, controllerPort }) => `PLAINTEXT://${host}:${brokerPort},CONTROLLER://${host}:${controllerPort},EXTRA://${host}:1`,
    },
  });
  assert.equal(props['listeners'], 'PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002,EXTRA://127.0.0.1:1');
});

test('renderProperties writes one key=value per line with a comment header', () => {
  assert.equal(renderProperties({ a: '1', 'b.c': 'x y' }, 'hello'), '# hello\na=1\nb.c=x y\n');
});

test('renderProperties escapes what Java would otherwise misread', () => {
  const text = renderProperties({ 'k=1:2': ' lead', path: 'C:\\kafka\\data', hash: '#x', multi: 'a\nb' });
  assert.equal(text, 'k\\=1\\:2=\\ lead\npath=C:\\\\kafka\\\\data\nhash=\\#x\nmulti=a\\nb\n');
});
