/**
 * What an operator does to a cluster of several brokers with Kafka's own tools, run from the jars
 * of the launcher: move partitions (`kafka-reassign-partitions`,
 * `org.apache.kafka.tools.reassign.ReassignPartitionsCommand`), elect the preferred leaders
 * (`kafka-leader-election`, `org.apache.kafka.tools.LeaderElectionCommand`) and find the active
 * controller (`kafka-metadata-quorum describe --status`, `org.apache.kafka.tools.MetadataQuorumCommand`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultKafkaVersion, ensureKafkaDistribution, javaCommand } from '../../src/local';
import { waitFor } from './wait-for';

/** Runs a Kafka tool's main class to completion; resolves with its stdout, rejects (quoting its output) on a non-zero exit. */
export async function runKafkaTool(mainClass: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
  const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
  const java = javaCommand(distribution, { mainClass, args, logDir: undefined, profile: 'tool' });
  return new Promise((resolve, reject) => {
    execFile(java.command, [...java.args], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${mainClass} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

/** The node id of the cluster's active controller (the quorum's leader), as `kafka-metadata-quorum describe --status` reports it. */
export async function activeController(bootstrap: string): Promise<number> {
  const out = await runKafkaTool('org.apache.kafka.tools.MetadataQuorumCommand', ['--bootstrap-server', bootstrap, 'describe', '--status'], 60_000);
  const leader = /^LeaderId:\s*(-?\d+)/m.exec(out)?.[1];
  if (leader === undefined) throw new Error(`kafka-metadata-quorum printed no LeaderId:\n${out}`);
  return Number(leader);
}

/** Waits until the quorum has a leader other than `previous` (a new active controller took over). */
export async function newActiveController(bootstrap: string, previous: number, timeoutMs = 120_000): Promise<number> {
  return waitFor(
    async () => {
      const leader = await activeController(bootstrap);
      return leader !== previous && leader >= 0 ? leader : undefined;
    },
    { what: `a new active controller after node ${previous}`, timeoutMs, intervalMs: 2000 },
  );
}

export interface PartitionMove {
  readonly topic: string;
  readonly partition: number;
  /** The new replicas; the first is the partition's preferred leader. */
  readonly replicas: readonly number[];
}

/**
 * `kafka-reassign-partitions --execute` with `moves`, then `--verify` until every move is
 * complete (new replicas caught up, old ones removed).
 */
export async function reassignPartitions(bootstrap: string, moves: readonly PartitionMove[], timeoutMs = 180_000): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mirrorflow-reassign-'));
  try {
    const file = join(dir, 'reassignment.json');
    await writeFile(file, JSON.stringify({ version: 1, partitions: moves.map((m) => ({ topic: m.topic, partition: m.partition, replicas: m.replicas })) }));
    const tool = 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand';
    await runKafkaTool(tool, ['--bootstrap-server', bootstrap, '--reassignment-json-file', file, '--execute']);
    let last = '';
    await waitFor(
      async () => {
        last = await runKafkaTool(tool, ['--bootstrap-server', bootstrap, '--reassignment-json-file', file, '--verify']);
        return !/still in progress|failed/i.test(last);
      },
      { what: `the reassignment of ${moves.length} partitions to complete`, timeoutMs, intervalMs: 2000 },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\nlast --verify:\n${last}`, { cause: error });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `kafka-leader-election --election-type PREFERRED --all-topic-partitions`: every partition led by its first replica again. */
export async function electPreferredLeaders(bootstrap: string): Promise<string> {
  return runKafkaTool('org.apache.kafka.tools.LeaderElectionCommand', [
    '--bootstrap-server',
    bootstrap,
    '--election-type',
    'PREFERRED',
    '--all-topic-partitions',
  ]);
}
