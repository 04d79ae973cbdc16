import { open, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalKafkaError } from '../core/errors';
import { isProcessAlive } from './processes';

export interface FileLockOptions {
  /** Give up waiting for another holder after this long. */
  readonly timeoutMs?: number;
  /** A lock older than this is taken over even if its holder cannot be checked (other host). */
  readonly staleMs?: number;
  readonly pollMs?: number;
  /** Called once when we start waiting for another holder. */
  readonly onWait?: (holder: LockHolder) => void;
}

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

/**
 * Runs `task` while holding an exclusive lock file (created with O_EXCL, which is atomic on
 * local file systems). A lock left by a crashed process on this host is recognised by its dead
 * pid and taken over; one from another host only by age.
 */
export async function withFileLock<T>(lockPath: string, task: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  await acquire(lockPath, options);
  try {
    return await task();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  const staleMs = options.staleMs ?? 60 * 60_000;
  const pollMs = options.pollMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
      await handle.writeFile(JSON.stringify(holder));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(lockPath);
    if (holder === undefined || (await isStale(lockPath, holder, staleMs))) {
      // Small race: two waiters may both judge the same lock stale. The loser's O_EXCL create
      // still fails, except in the instant between one's rm and its create; acceptable for a
      // download cache whose final step (rename) is atomic anyway.
      await rm(lockPath, { force: true });
      continue;
    }
    if (!announced) {
      options.onWait?.(holder);
      announced = true;
    }
    if (Date.now() >= deadline) {
      throw new LocalKafkaError(`Timed out after ${timeoutMs} ms waiting for lock ${lockPath} held by pid ${holder.pid} on ${holder.host}.`);
    }
    await sleep(pollMs);
  }
}

/** The holder recorded in the lock; pid 0 when the file is empty or garbled (being written, or torn). */
async function readHolder(lockPath: string): Promise<LockHolder | undefined> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host, since: String(parsed.since) };
    }
  } catch {
    // fall through: unreadable holder
  }
  return { pid: 0, host: '', since: '' };
}

/** A torn lock (crash between create and write) gets this long before it counts as stale. */
const TORN_LOCK_MS = 10_000;

async function isStale(lockPath: string, holder: LockHolder, staleMs: number): Promise<boolean> {
  if (holder.pid !== 0 && holder.host === hostname()) return !isProcessAlive(holder.pid);
  try {
    const info = await stat(lockPath);
    return Date.now() - info.mtimeMs > (holder.pid === 0 ? TORN_LOCK_MS : staleMs);
  } catch {
    return true;
  }
}
