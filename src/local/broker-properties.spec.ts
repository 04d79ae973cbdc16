import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brokerProperties, LOCAL_BROKER_DEFAULTS, renderProperties } from './broker-properties';

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
