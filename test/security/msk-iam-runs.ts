/**
 * What the MSK IAM test files share: a pipeline from the broker's PLAINTEXT listener to its IAM
 * one, a run of it as a child process until the remote topic holds every record, and the check
 * that no output holds a secret or a token.
 */
import assert from 'node:assert/strict';
import { stringify } from '#yaml';
import { uniqueName } from '../support/clusters';
import { snapshot, type TestRecord } from '../support/kafka-kit';
import { spawnCli, writePipelineText, type CliResult } from '../support/pipeline-harness';
import { waitFor } from '../support/wait-for';
import type { MskIamCluster } from './msk-iam-broker';

/** base64url of `https://kafka.`: how every MSK IAM token starts. */
const TOKEN_PREFIX = Buffer.from('https://kafka.').toString('base64url').slice(0, 16);

/** No output of `result` holds one of `secrets`, a token or a signed URL. */
export function assertNoMskSecrets(result: { stdout: string; stderr: string }, secrets: readonly string[]): void {
  const output = result.stdout + result.stderr;
  for (const secret of secrets) assert.ok(!output.includes(secret), 'no secret key or session token is printed');
  assert.ok(!output.includes(TOKEN_PREFIX), 'no token is printed');
  assert.ok(!/X-Amz-Signature/i.test(output), 'no signed URL is printed');
}

/** A YAML pipeline `plain -> msk` of `topic`, signing with `aws_msk_iam` and the `sasl` keys given. */
export function mskIamPipeline(msk: MskIamCluster, name: string, topic: string, sasl: Record<string, unknown> = {}): string {
  const document = {
    name: uniqueName(name),
    clusters: {
      plain: { bootstrap_servers: [msk.clusters.bootstrap('msk')] },
      msk: { bootstrap_servers: [msk.iamBootstrap()], security: { protocol: 'sasl_plaintext', sasl: { mechanism: 'aws_msk_iam', ...sasl } } },
    },
    flows: [
      {
        source: 'plain',
        target: 'msk',
        topics: [topic],
        replicate_heartbeats: false,
        topic_sync: { refresh_interval_ms: 1000, replication_factor: 1 },
        progress: { flush_interval_ms: 500 },
        consumer: { max_wait_ms: 100 },
      },
    ],
    logging: { level: 'debug', format: 'json' },
  };
  return writePipelineText(stringify(document), `${document.name}.yaml`);
}

/** Runs `file` (debug logs) with `env` until the remote topic holds every record, stops it, and checks the copy. */
export async function replicateThroughIam(
  msk: MskIamCluster,
  run: { file: string; env: NodeJS.ProcessEnv },
  topic: string,
  records: readonly TestRecord[],
): Promise<CliResult> {
  const kit = msk.clusters.kit('msk');
  const child = spawnCli(['run', run.file, '--status-interval', '0', '--log-level', 'debug'], { env: run.env });
  let early: CliResult | undefined;
  void child.exited.then((r) => (early = r));
  await waitFor(
    async () => {
      if (early !== undefined) throw new Error(`the run ended (exit ${early.code}):\n${early.stderr.slice(-3000)}`);
      return (await kit.count(`plain.${topic}`).catch(() => 0)) >= records.length;
    },
    { what: `${records.length} records written through the IAM listener`, timeoutMs: 60_000 },
  );
  child.kill('SIGTERM');
  const result = await child.exited;
  assert.equal(result.code, 0, `a stopped run exits 0; stderr:\n${result.stderr.slice(-3000)}`);
  // Read through the PLAINTEXT listener: what mirrorflow wrote through the IAM one.
  assert.deepEqual(snapshot(await kit.readAllFlat(`plain.${topic}`)), snapshot([...records].sort((a, b) => a.partition - b.partition)));
  return result;
}
