/**
 * The container image definition and the Kubernetes manifests, checked against what they drive:
 * the command lines go through mirrorflow's own CLI parser, probe and scrape paths must be routes
 * of its HTTP server, ports must agree from EXPOSE to the Service, and the ConfigMap's pipeline
 * must load with exactly the environment the Deployment gives it from the Secret.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { describe, test } from 'node:test';
import type { Copy } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { buildProgram } from '../../src/cli/program';
import { ConfigError } from '../../src/core/errors';
import { loadPipeline } from '../../src/pipeline';
import { Metrics, httpRoutes, parseListenAddress } from '../../src/telemetry';
import {
  REPO_ROOT,
  dockerStages,
  dockerfileText,
  kustomizedManifests,
  lastInstruction,
  manifestOfKind,
  type ConfigMapManifest,
  type DeploymentManifest,
  type SecretManifest,
  type ServiceManifest,
} from './deploy-files';

interface ParsedRun {
  readonly file: string;
  readonly flags: Record<string, unknown>;
}

/** `mirrorflow <args>` parsed by the real CLI, with the `run` action replaced by a capture. */
async function parseRun(args: readonly string[]): Promise<ParsedRun> {
  const program = buildProgram().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const run = program.commands.find((c) => c.name() === 'run')!;
  let parsed: ParsedRun | undefined;
  run.action((files: string[], flags: Record<string, unknown>) => {
    assert.equal(files.length, 1, `mirrorflow ${args.join(' ')} names one pipeline file`);
    parsed = { file: files[0]!, flags };
  });
  await program.parseAsync(['node', 'mirrorflow', ...args]);
  assert.ok(parsed, `mirrorflow ${args.join(' ')} is not a run command`);
  return parsed;
}

const routePaths = httpRoutes({ pipeline: 'p', snapshots: () => [], metrics: new Metrics(() => []), workerId: () => '' }).map((r) => r.path);
const manifests = kustomizedManifests();
const deployment = manifestOfKind<DeploymentManifest>(manifests, 'Deployment');
const pod = deployment.spec.template;
const container = pod.spec.containers[0]!;
const runtime = dockerStages().at(-1)!;

describe('container image definition (Dockerfile)', () => {
  test('has nothing the Dockerfile validator of dockerfile-utils reports', () => {
    assert.deepEqual(
      validate(dockerfileText()).map((d) => `line ${d.range.start.line + 1}: ${d.message}`),
      [],
    );
  });

  test('copies from the build context only what .dockerignore lets in, and that is all tsc needs', () => {
    // .dockerignore is an allow list: `*`, then `!path` for what the build may see.
    const lines = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    assert.equal(lines[0], '*');
    const allowed = lines.slice(1).map((l) => {
      assert.ok(l.startsWith('!'), `${l} re-includes a path`);
      return l.slice(1).replace(/\/$/, '');
    });
    const copied = dockerStages()
      .flatMap((stage) => stage.instructions)
      .filter((i): i is Copy => i.getKeyword() === 'COPY' && (i as Copy).getFromFlag() === null)
      .flatMap((i) =>
        i
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue()),
      );
    assert.deepEqual([...copied].sort(), [...allowed].sort());
    const tsconfig = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    for (const dir of tsconfig.include.filter((d) => d !== 'test')) assert.ok(copied.includes(dir), `the build copies ${dir}`);
  });

  test('builds in stages from one Node base image, and runs as a non-root user given by number', () => {
    const stages = dockerStages();
    assert.deepEqual(
      stages.map((s) => s.name),
      ['build', 'package', undefined],
    );
    assert.ok(
      stages.every((s) => s.image === '${NODE_IMAGE}'),
      'every stage starts from NODE_IMAGE',
    );
    assert.match(dockerfileText(), /^ARG NODE_IMAGE=docker\.io\/library\/node:20-slim$/m);
    const [user] = lastInstruction(runtime, 'USER') ?? [];
    assert.match(user ?? '', /^\d+:\d+$/, 'USER is numeric, so Kubernetes can check runAsNonRoot');
    assert.notEqual(Number(user!.split(':')[0]), 0);
  });

  test('runs the packaged CLI, by default `run` on the mounted pipeline with HTTP on every interface', async () => {
    const entrypoint = lastInstruction(runtime, 'ENTRYPOINT');
    // An init as PID 1 (so a SIGTERM during start-up is not ignored), then node on the packed CLI.
    // Read, not imported: an imported package.json would be copied into dist/, where the launcher
    // would take dist/ for the package root and miss config/.
    const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: { mirrorflow: string } };
    assert.deepEqual(entrypoint, ['/usr/bin/tini', '--', 'node', posix.join('/opt/mirrorflow', packageJson.bin.mirrorflow)]);
    const cmd = lastInstruction(runtime, 'CMD')!;
    const { file, flags } = await parseRun(cmd);
    assert.equal(file, '/etc/mirrorflow/pipeline.yaml');
    const listen = parseListenAddress(String(flags['http']));
    assert.deepEqual(listen, { host: '0.0.0.0', port: Number(lastInstruction(runtime, 'EXPOSE')![0]) });
  });
});

describe('Kubernetes manifests (config/kubernetes)', () => {
  test('the Deployment runs a `run` command the CLI accepts, on the file the ConfigMap mounts, serving HTTP on the container port', async () => {
    const { file, flags } = await parseRun(container.args);
    const mount = container.volumeMounts.find((m) => file.startsWith(`${m.mountPath}/`));
    assert.ok(mount, `${file} is under a volume mount`);
    const volume = pod.spec.volumes.find((v) => v.name === mount.name)!;
    const configMap = manifestOfKind<ConfigMapManifest>(manifests, 'ConfigMap');
    assert.equal(volume.configMap?.name, configMap.metadata.name);
    assert.ok(posix.basename(file) in configMap.data, `the ConfigMap has a key ${posix.basename(file)}`);

    const listen = parseListenAddress(String(flags['http']))!;
    assert.equal(listen.host, '0.0.0.0', 'probes and Prometheus reach the pod from outside its loopback');
    const port = container.ports.find((p) => p.name === 'http')!;
    assert.equal(listen.port, port.containerPort);
    assert.equal(port.containerPort, Number(lastInstruction(runtime, 'EXPOSE')![0]));
  });

  test('the grace period outlasts the shutdown timeout, so a stop drains and stores progress before SIGKILL', async () => {
    const { flags } = await parseRun(container.args);
    const shutdownTimeoutMs = Number(flags['shutdownTimeout']);
    assert.ok(Number.isFinite(shutdownTimeoutMs) && shutdownTimeoutMs > 0);
    assert.ok(
      pod.spec.terminationGracePeriodSeconds * 1000 >= shutdownTimeoutMs + 5000,
      `terminationGracePeriodSeconds ${pod.spec.terminationGracePeriodSeconds} leaves at least 5 s after --shutdown-timeout ${shutdownTimeoutMs} ms`,
    );
  });

  test('probes ask /healthz and /ready, routes of the HTTP server, on the named container port', () => {
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    assert.equal(container.readinessProbe.httpGet.path, '/ready');
    for (const probe of [container.livenessProbe, container.readinessProbe]) {
      assert.ok(routePaths.includes(probe.httpGet.path), `${probe.httpGet.path} is one of ${routePaths.join(' ')}`);
      assert.ok(
        container.ports.some((p) => p.name === probe.httpGet.port || p.containerPort === probe.httpGet.port),
        `probe port ${probe.httpGet.port}`,
      );
    }
  });

  test('the metrics Service selects the pods and tells Prometheus the port and path of /metrics', () => {
    const service = manifestOfKind<ServiceManifest>(manifests, 'Service');
    for (const [key, value] of Object.entries(service.spec.selector)) assert.equal(pod.metadata.labels[key], value, `pod label ${key}`);
    assert.deepEqual(deployment.spec.selector.matchLabels, service.spec.selector);
    const port = container.ports.find((p) => p.name === 'http')!;
    for (const annotations of [service.metadata.annotations, pod.metadata.annotations ?? {}]) {
      assert.equal(annotations['prometheus.io/scrape'], 'true');
      assert.equal(Number(annotations['prometheus.io/port']), port.containerPort);
      assert.ok(routePaths.includes(annotations['prometheus.io/path']!), 'prometheus.io/path is a route');
      assert.equal(annotations['prometheus.io/path'], '/metrics');
    }
    assert.ok(service.spec.ports.some((p) => p.targetPort === 'http' || p.targetPort === port.containerPort));
  });

  test('the pod runs as the image user, non-root, on a read-only root file system, within limits', () => {
    const [uid, gid] = lastInstruction(runtime, 'USER')![0]!.split(':').map(Number);
    assert.equal(pod.spec.securityContext.runAsNonRoot, true);
    assert.equal(pod.spec.securityContext.runAsUser, uid);
    assert.equal(pod.spec.securityContext.runAsGroup, gid);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.runAsNonRoot, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.ok(container.resources.requests?.['cpu'] && container.resources.requests['memory'], 'requests cpu and memory');
    assert.ok(container.resources.limits?.['memory'], 'a memory limit');
    assert.ok(Number.isInteger(deployment.spec.replicas) && deployment.spec.replicas >= 1);
  });

  test("the ConfigMap's pipeline loads with the credentials the Deployment takes from the Secret, and not without them", async () => {
    const secret = manifestOfKind<SecretManifest>(manifests, 'Secret');
    const secretValues = {
      ...(secret.stringData ?? {}),
      ...Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()])),
    };
    const env: Record<string, string> = {};
    for (const variable of container.env) {
      const ref = variable.valueFrom?.secretKeyRef;
      assert.ok(ref, `${variable.name} comes from a Secret`);
      assert.equal(ref.name, secret.metadata.name);
      assert.ok(ref.key in secretValues, `the Secret has the key ${ref.key}`);
      // A distinct value per variable, to see each one arrive where the pipeline uses it.
      env[variable.name] = `${secretValues[ref.key]}-${variable.name}`;
    }
    const configMap = manifestOfKind<ConfigMapManifest>(manifests, 'ConfigMap');
    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-deploy-'));
    try {
      const file = join(dir, 'pipeline.yaml');
      writeFileSync(file, configMap.data['pipeline.yaml']!);
      const { config } = await loadPipeline(file, { env });
      const passwords = Object.values(config.clusters).map((c) => (c.security.protocol.startsWith('sasl') ? c.security.sasl?.password : undefined));
      assert.deepEqual(
        passwords.sort(),
        Object.values(env).sort(),
        'every credential of the Secret reaches a cluster of the pipeline, and every cluster has one',
      );
      await assert.rejects(loadPipeline(file, { env: {} }), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        for (const name of Object.keys(env)) assert.match(error.message, new RegExp(`\\b${name}\\b`));
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
