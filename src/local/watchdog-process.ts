/**
 * Entry point of the watchdog: a tiny process that outlives its owner to clean up after it.
 *
 * The owner (a test process, the test runner, a demo) starts brokers and tells the watchdog
 * about each one on the watchdog's stdin, one JSON object per line:
 *   {"op":"watch","pid":123,"dir":"/tmp/mirrorflow-kafka-primary-x"}
 *   {"op":"release","pid":123}
 * When the owner is gone, for any reason including SIGKILL, the kernel closes that pipe; the
 * watchdog then stops every broker still watched (SIGTERM, SIGKILL after a grace period) and
 * deletes its work dir. A poll of the owner pid backs up the pipe in case a stray descendant
 * kept the pipe's write end open. Node built-ins only: it must start fast and never fail to load.
 */
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isProcessAlive, isProcessOurs, terminateProcess } from './processes';

export interface WatchMessage {
  readonly op: 'watch' | 'release';
  readonly pid: number;
  readonly dir?: string;
}

const GRACE_MS = 8_000;
const OWNER_POLL_MS = 1_000;

function main(): void {
  const ownerPid = Number(process.argv[2]);
  const watched = new Map<number, string>();
  let cleaning = false;

  // Detached from the owner's terminal already; ignore signals aimed at the owner's group.
  for (const name of ['SIGINT', 'SIGHUP'] as const) process.on(name, () => undefined);

  const cleanUp = async (): Promise<void> => {
    if (cleaning) return;
    cleaning = true;
    // Every broker stopped before any work dir is deleted: the nodes of a cluster share its dir,
    // and deleting it while a node still shuts down (writing its log) fails with ENOTEMPTY, which
    // left the dir, and a node being stopped, behind.
    const stopped = await Promise.allSettled(
      [...watched].map(async ([pid, dir]) => {
        // The broker's command line names its work dir; anything else holding the pid is not ours.
        if (isProcessOurs(pid, dir)) await terminateProcess(pid, { graceMs: GRACE_MS, group: true });
      }),
    );
    let failed = stopped.some((s) => s.status === 'rejected');
    for (const dir of new Set(watched.values())) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
      } catch {
        failed = true;
      }
    }
    process.exit(failed ? 1 : 0);
  };

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let message: WatchMessage;
    try {
      message = JSON.parse(line) as WatchMessage;
    } catch {
      return;
    }
    if (message.op === 'watch' && message.dir !== undefined) watched.set(message.pid, message.dir);
    if (message.op === 'release') watched.delete(message.pid);
  });
  // A watchdog that cannot clean up has nobody to tell: its exit code is all it can say.
  const cleanUpOrFail = (): void => void cleanUp().catch(() => process.exit(1));
  lines.on('close', cleanUpOrFail);

  if (Number.isInteger(ownerPid) && ownerPid > 0) {
    setInterval(() => {
      if (!isProcessAlive(ownerPid)) cleanUpOrFail();
    }, OWNER_POLL_MS);
  }
}

if (require.main === module) main();
