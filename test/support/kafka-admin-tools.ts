/**
 * What an operator does to a cluster of several brokers with Kafka's own tools, run from the jars
 * of the launcher: move partitions (`kafka-reassign-partitions`,
 * `org.apache.kafka.tools.reassign.ReassignPartitionsCommand`), elect the preferred leaders
 * (`kafka-leader-election`, `org.apache.kafka.tools.LeaderElectionCommand`), find the active
 * controller (`kafka-metadata-quorum describe --status`, `org.apache.kafka.tools.MetadataQuorumCommand`)
 * and read share groups' coordinators and start offsets (`kafka-share-groups --describe`,
 * `org.apache.kafka.tools.consumer.group.ShareGroupCommand`).
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

const SHARE_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';

/**
 * Per share group of the cluster: the node id of its coordinator, as `kafka-share-groups
 * --describe --all-groups --state` reports it (Kafka's admin client asks FindCoordinator).
 */
export async function shareGroupCoordinators(bootstrap: string): Promise<Map<string, number>> {
  const out = await runKafkaTool(SHARE_GROUP_COMMAND, ['--bootstrap-server', bootstrap, '--describe', '--all-groups', '--state'], 60_000);
  const coordinators = new Map<string, number>();
  // GROUP  COORDINATOR (ID)  STATE  #MEMBERS, a header and a row per group: `g1  127.0.0.1:port  (2)  Empty  0`.
  for (const match of out.matchAll(/^(\S+)\s+\S+\s+\((\d+)\)\s/gm)) coordinators.set(match[1]!, Number(match[2]));
  return coordinators;
}

/**
 * Per share group (`groups`, or every one) and `topic-partition`: its share-partition start
 * offset, as `kafka-share-groups --describe --offsets` reports it; a partition it has none on is
 * left out. Naming the groups asks only their coordinators.
 */
export async function shareGroupStartOffsets(bootstrap: string, groups?: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const which = groups === undefined ? ['--all-groups'] : groups.flatMap((g) => ['--group', g]);
  const out = await runKafkaTool(SHARE_GROUP_COMMAND, ['--bootstrap-server', bootstrap, '--describe', ...which, '--offsets'], 60_000);
  const read = new Map<string, Map<string, number>>();
  // A header per group, GROUP TOPIC PARTITION START-OFFSET LAG (LEADER-EPOCH too with --verbose), then its rows; `-` where there is none.
  let columns: string[] = [];
  for (const line of out.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === 'GROUP') columns = fields;
    const at = (name: string): string | undefined => fields[columns.indexOf(name)];
    const [group, topic, partition, start] = [at('GROUP'), at('TOPIC'), at('PARTITION'), at('START-OFFSET')];
    if (fields[0] === 'GROUP' || group === undefined || topic === undefined || partition === undefined || start === undefined || !/^\d+$/.test(start)) continue;
    const offsets = read.get(group) ?? new Map<string, number>();
    offsets.set(`${topic}-${partition}`, Number(start));
    read.set(group, offsets);
  }
  return read;
}
