/**
 * What the container image holds, made here without a container engine: `npm pack` of the built
 * repository, then the RUN commands of the Dockerfile's `package` stage, run as they are written
 * in a scratch folder standing for /opt/mirrorflow. The result must be the CLI with production
 * dependencies only, able to check the ConfigMap's pipeline and to replicate between the test
 * clusters with the Deployment's command line (its `--http` moved to loopback, as tests must
 * stay there), answer the probes' paths, and stop cleanly on SIGTERM as Kubernetes stops a pod.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { useKits } from '../support/use-kits';
import { REPO_ROOT, dockerStages, kustomizedManifests, manifestOfKind, runCommands, type ConfigMapManifest, type DeploymentManifest } from './deploy-files';

const run = promisify(execFile);

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

/** `node <app>/dist/src/cli/main.js <args>`, output of both streams collected. */
function packedCli(app: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [join(app, 'dist', 'src', 'cli', 'main.js'), ...args], {
    cwd: app,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, output })));
  return { child, exited, output: () => output };
}

let source: KafkaKit;
let target: KafkaKit;
let clusters: { primary: string; backup: string };
useKits(
  (c) => {
    clusters = c;
    return { source: new KafkaKit(c.primary), target: new KafkaKit(c.backup) };
  },
  (kits) => ({ source, target } = kits),
);

const manifests = kustomizedManifests();
const container = manifestOfKind<DeploymentManifest>(manifests, 'Deployment').spec.template.spec.containers[0]!;
const configMap = manifestOfKind<ConfigMapManifest>(manifests, 'ConfigMap');
const packageStage = dockerStages().find((s) => s.name === 'package')!;

let scratch: string;
let app: string;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mirrorflow-packed-'));
  app = join(scratch, 'opt', 'mirrorflow');
  mkdirSync(app, { recursive: true });
  // The build stage's last step and the package stage's COPY: the tarball and the lock file.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', app], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
  copyFileSync(join(REPO_ROOT, 'package-lock.json'), join(app, 'package-lock.json'));
  const commands = runCommands(packageStage);
  assert.ok(commands.length > 0, 'the package stage has RUN commands');
  for (const command of commands) await run('sh', ['-c', command], { cwd: app, maxBuffer: 16 << 20 });
});

after(() => rmSync(scratch, { recursive: true, force: true }));

describe('the packed CLI, installed as the image installs it', () => {
  test('holds the compiled CLI and plugins with production dependencies only, and no tests', async () => {
    accessSync(join(app, 'dist', 'src', 'cli', 'main.js'), constants.X_OK);
    assert.ok(existsSync(join(app, 'dist', 'plugins', 'mask_json_field', 'index.js')), 'the repository plugins are packed');
    assert.ok(existsSync(join(app, 'node_modules', 'kafkajs')), 'a production dependency is installed');
    for (const dev of ['typescript', 'eslint', 'dockerfile-utils'])
      assert.ok(!existsSync(join(app, 'node_modules', dev)), `dev dependency ${dev} is not installed`);
    assert.ok(!existsSync(join(app, 'dist', 'test')), 'no test code');
    const specs = (readdirSync(join(app, 'dist'), { recursive: true }) as string[]).filter((f) => f.endsWith('.spec.js'));
    assert.deepEqual(specs, []);
    assert.ok(!readdirSync(app).some((f) => f.endsWith('.tgz')), 'the tarball is removed');

    const help = await packedCli(app, ['--help']).exited;
    assert.equal(help.code, 0, help.output);
    assert.match(help.output, /^\s+run \[options\] <files\.\.\.>/m);
  });

  test('answers --version on the PATH, as the image links it', async () => {
    // The Dockerfile's `ln -s /opt/mirrorflow/dist/src/cli/main.js /usr/local/bin/mirrorflow`.
    const bin = join(scratch, 'usr', 'local', 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(join(app, 'dist', 'src', 'cli', 'main.js'), join(bin, 'mirrorflow'));
    const { stdout } = await run('mirrorflow', ['--version'], { env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` } });
    assert.match(stdout, /^mirrorflow \d+\.\d+\.\d+\n$/);
  });

  test('loads a scaffolded plugin moved to another folder; its own tests find the installed API by name', async () => {
    const made = await packedCli(app, ['plugins', 'new', 'tag_packed', '--dir', join(scratch, 'made')]).exited;
    assert.equal(made.code, 0, made.output);
    // Mounted elsewhere, as docs/deploy.md mounts plugins into the image.
    const mounted = join(scratch, 'etc', 'mirrorflow', 'plugins');
    mkdirSync(mounted, { recursive: true });
    renameSync(join(scratch, 'made', 'tag_packed'), join(mounted, 'tag_packed'));
    const contract = await packedCli(app, ['plugins', 'check', join(mounted, 'tag_packed')]).exited;
    assert.equal(contract.code, 0, contract.output);
    const tested = await packedCli(app, ['test', '--plugin-dir', mounted, join(mounted, 'tag_packed', 'tag_packed.test.yaml')]).exited;
    assert.equal(tested.code, 0, tested.output);
    assert.match(tested.output, /2 tests: 2 passed, 0 failed/);
    // `node --test` outside mirrorflow: NODE_PATH at the folder that holds the installed `mirrorflow`.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const { stdout } = await run(process.execPath, ['--test', join(mounted, 'tag_packed') + '/'], { env: { ...env, NODE_PATH: join(scratch, 'opt') } });
    assert.match(stdout, /# pass 2/);
  });

  test('npm link puts mirrorflow on the PATH of a user without root, in a prefix of their own', async () => {
    const prefix = join(scratch, 'home', '.local');
    // --ignore-scripts: `prepare` would compile the checkout while other test files run from it.
    await run('npm', ['link', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: REPO_ROOT, env: { ...process.env, NPM_CONFIG_PREFIX: prefix } });
    const { stdout } = await run('mirrorflow', ['--version'], { env: { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}` } });
    assert.match(stdout, /^mirrorflow \d+\.\d+\.\d+\n$/);
  });

  test("checks the ConfigMap's pipeline with the Secret's variables set, as the pod would", async () => {
    const file = join(scratch, 'pipeline.yaml');
    writeFileSync(file, configMap.data['pipeline.yaml']!);
    const env = Object.fromEntries(container.env.map((v) => [v.name, 'placeholder']));
    const checked = await packedCli(app, ['validate', file], env).exited;
    assert.equal(checked.code, 0, checked.output);
    const missing = await packedCli(app, ['validate', file], Object.fromEntries(container.env.map((v) => [v.name, undefined]))).exited;
    assert.equal(missing.code, 78, missing.output);
  });

  test("replicates with the Deployment's command line, answers /healthz and /ready, and drains on SIGTERM", async () => {
    const p = uniqueName('packed');
    await source.createTopic(`${p}-orders`, 2);
    const file = join(scratch, `${p}.yaml`);
    writeFileSync(
      file,
      [
        `name: ${p}`,
        'clusters:',
        `  primary: { bootstrap_servers: ['${clusters.primary}'] }`,
        `  backup: { bootstrap_servers: ['${clusters.backup}'] }`,
        'flows:',
        `  - { source: primary, target: backup, topics: ['${p}-.*'] }`,
        '',
      ].join('\n'),
    );
    const args = container.args.map((arg, i) => (i === 1 ? file : container.args[i - 1] === '--http' ? '127.0.0.1:0' : arg));
    const mirror = packedCli(app, args);
    try {
      const line = await waitFor(
        () =>
          mirror
            .output()
            .split('\n')
            .find((l) => l.includes('Serving metrics')),
        {
          what: 'the packed CLI to serve HTTP',
          timeoutMs: 60_000,
        },
      );
      const base = `http://${(JSON.parse(line) as { address: string }).address}`;
      assert.equal((await fetch(`${base}${container.livenessProbe.httpGet.path}`)).status, 200);
      await waitFor(async () => (await fetch(`${base}${container.readinessProbe.httpGet.path}`)).status === 200, {
        what: '/ready to answer 200',
        timeoutMs: 60_000,
      });

      const records = Array.from({ length: 200 }, (_, i) => ({
        partition: i % 2,
        key: Buffer.from(`k${i}`),
        value: Buffer.from(`v${i}`),
        headers: [],
        timestamp: Date.now(),
      }));
      await source.produce(`${p}-orders`, records);
      await waitFor(async () => (await target.topics()).has(`primary.${p}-orders`) && (await target.count(`primary.${p}-orders`)) === 200, {
        what: `200 records on primary.${p}-orders`,
        timeoutMs: 60_000,
      });
      const copied = await target.readAll(`primary.${p}-orders`);
      for (const partition of [0, 1]) {
        assert.deepEqual(
          copied.get(partition)!.map((r) => r.value?.toString()),
          records.filter((r) => r.partition === partition).map((r) => r.value.toString()),
        );
      }
    } finally {
      mirror.child.kill('SIGTERM');
    }
    const stopped = await mirror.exited;
    assert.equal(stopped.code, 0, stopped.output.slice(-2000));
    assert.match(stopped.output, /Stopping: draining/);
  });
});
