import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { isBrokerReady, isProcessAlive, readLocalPassword, type DetachedClusterStatus } from '../../src/local';
import { KafkaKit } from '../support/kafka-kit';

const run = promisify(execFile);
const cli = resolve(__dirname, '..', '..', 'src', 'cli', 'main.js');
const stateDir = mkdtempSync(join(tmpdir(), 'mirrorflow-local-command-test-'));

function mirrorflow(...args: string[]) {
  return run(process.execPath, [cli, ...args, '--state-dir', stateDir], { timeout: 180_000 });
}

after(async () => {
  // Whatever the test did, leave no broker behind.
  await mirrorflow('local', 'down').catch(() => undefined);
  rmSync(stateDir, { recursive: true, force: true });
});

test('local up starts clusters that outlive the command; status reports them; down stops them', async () => {
  const up = await mirrorflow('local', 'up', 'east', '--json');
  const addresses = JSON.parse(up.stdout) as Record<string, string>;
  assert.deepEqual(Object.keys(addresses), ['east']);
  assert.match(up.stderr, /^east: Kafka is ready\.$/m);
  for (const address of Object.values(addresses)) {
    const [host, port] = address.split(':');
    assert.equal(await isBrokerReady(host!, Number(port)), true, `${address} answers after the command exited`);
  }

  const again = await mirrorflow('local', 'up', 'east');
  assert.match(again.stdout, /east\s+\S+\s+Kafka [\d.]+\s+pid \d+\s+already running/);

  const status = JSON.parse((await mirrorflow('local', 'status', '--json')).stdout) as DetachedClusterStatus[];
  assert.deepEqual(
    status.map((cluster) => [cluster.alias, cluster.bootstrapServers, cluster.answering]),
    [['east', addresses['east'], true]],
  );

  const down = await mirrorflow('local', 'down');
  assert.match(down.stdout, /east stopped/);
  for (const cluster of status) {
    assert.equal(isProcessAlive(cluster.pid), false, `broker ${cluster.alias} still runs`);
    assert.equal(existsSync(cluster.dir), false, `${cluster.dir} still exists`);
  }
  assert.match((await mirrorflow('local', 'status')).stdout, /No local clusters are running/);
});

test('local up --brokers 3 starts a cluster of three nodes; status shows every node; down stops them all', async () => {
  const up = await mirrorflow('local', 'up', 'trio', '--brokers', '3', '--json');
  const addresses = JSON.parse(up.stdout) as Record<string, string>;
  const brokers = addresses['trio']!.split(',');
  assert.equal(brokers.length, 3, `every node's address: ${addresses['trio']}`);
  for (const id of [1, 2, 3]) assert.match(up.stderr, new RegExp(`^trio node ${id}: Kafka is ready\\.$`, 'm'), 'each node says it is ready, as itself');
  for (const address of brokers) {
    const [host, port] = address.split(':');
    assert.equal(await isBrokerReady(host!, Number(port)), true, `${address} answers after the command exited`);
  }

  const [status] = JSON.parse((await mirrorflow('local', 'status', '--json')).stdout) as DetachedClusterStatus[];
  assert.equal(status!.bootstrapServers, addresses['trio']);
  assert.deepEqual(
    status!.nodes.map((node) => [node.id, node.bootstrapServers, node.answering]),
    brokers.map((address, i) => [i + 1, address, true]),
  );
  const text = (await mirrorflow('local', 'status')).stdout;
  assert.match(text, /trio\s+all\s+\S+\s+[\d.]+\s+3 of 3 up/);
  for (const node of status!.nodes) assert.match(text, new RegExp(`trio\\s+${node.id}\\s+${node.bootstrapServers}\\s+[\\d.]+\\s+${node.pid}\\s+up`));

  const down = await mirrorflow('local', 'down', 'trio');
  assert.match(down.stdout, /trio stopped/);
  for (const node of status!.nodes) assert.equal(isProcessAlive(node.pid), false, `node ${node.id} still runs`);
  assert.equal(existsSync(status!.dir), false);
});

test('local up with an unusable alias fails with exit code 69 and says why', async () => {
  await assert.rejects(mirrorflow('local', 'up', 'bad.alias'), (error: { code?: number; stderr?: string }) => {
    assert.equal(error.code, 69);
    assert.match(error.stderr ?? '', /"bad\.alias" is not a usable cluster alias/);
    return true;
  });
  await assert.rejects(mirrorflow('local', 'up', 'many', '--brokers', '12'), (error: { code?: number; stderr?: string }) => {
    assert.equal(error.code, 69);
    assert.match(error.stderr ?? '', /A local cluster has 1 to 9 brokers; 12 was asked for/);
    return true;
  });
});

test('local up --secure starts a cluster with secured listeners; status says what a client needs and never a password', async () => {
  const up = await mirrorflow('local', 'up', 'vault', '--secure', '--user', 'bob');
  const [status] = JSON.parse((await mirrorflow('local', 'status', '--json')).stdout) as DetachedClusterStatus[];
  const security = status!.security!;
  const passwords = [await readLocalPassword(security, 'admin'), await readLocalPassword(security, 'bob')];
  const text = (await mirrorflow('local', 'status')).stdout;
  for (const output of [up.stdout, text]) {
    assert.ok(output.includes(`SASL_SSL  ${security.saslSslBootstrap}  mechanisms SCRAM-SHA-512, SCRAM-SHA-256, PLAIN`), output);
    assert.ok(output.includes(`SSL       ${security.sslBootstrap}  client certificate required`), output);
    assert.ok(output.includes(`CA file: ${security.caFile}`), output);
    assert.ok(output.includes(`users: admin (super user), bob; passwords in ${security.passwordsFile}`), output);
    for (const password of passwords) assert.ok(!output.includes(password), 'a password was printed');
  }
  assert.ok(!JSON.stringify(status).includes(passwords[0]!) && !JSON.stringify(status).includes(passwords[1]!), 'a password in the JSON status');

  // What status printed is enough to log in: the super user over SCRAM-SHA-512 with the CA file.
  const kit = new KafkaKit(security.saslSslBootstrap, {
    protocol: 'sasl_ssl',
    sasl: { mechanism: 'scram-sha-512', username: 'admin', password: passwords[0]! },
    ssl: { caFile: security.caFile, verifyHostname: true, rejectUnauthorized: true },
  });
  try {
    await kit.createTopic('secured-topic');
    assert.ok((await kit.topics()).has('secured-topic'));
  } finally {
    await kit.close();
  }
  await mirrorflow('local', 'down', 'vault');
});
