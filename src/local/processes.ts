import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * True while `pid` runs. A zombie (exited, not yet reaped) counts as gone: once its parent died,
 * a reparented broker may stay a zombie for a while under an init that reaps slowly, and for
 * our purpose (is a broker still holding ports and files?) it is gone.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const state = linuxProcessState(pid);
  return state !== 'Z' && state !== 'X';
}

/** The state letter from /proc/<pid>/stat (Linux only; undefined elsewhere or when gone). */
function linuxProcessState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/**
 * The command line of `pid` joined with spaces, on Linux; undefined where /proc is missing.
 * Used to check that a pid from a state file still belongs to our broker before signalling it,
 * since pids are reused.
 */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** True when `pid` runs and, where the platform lets us check, its command line mentions `marker`. */
export function isProcessOurs(pid: number, marker: string): boolean {
  if (!isProcessAlive(pid)) return false;
  const commandLine = processCommandLine(pid);
  return commandLine === undefined || commandLine.includes(marker);
}

/** Polls until `pid` is gone or `timeoutMs` passes; returns whether it is gone. */
export async function waitForProcessExit(pid: number, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isProcessAlive(pid)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

export interface TerminateOptions {
  /** How long SIGTERM gets before SIGKILL. */
  readonly graceMs?: number;
  /** Signal the whole process group (the process was started detached, as its group leader). */
  readonly group?: boolean;
}

/** SIGTERM, wait up to `graceMs`, then SIGKILL. Resolves once the process is gone. */
export async function terminateProcess(pid: number, options: TerminateOptions = {}): Promise<'exited' | 'killed'> {
  const graceMs = options.graceMs ?? 15_000;
  signal(pid, 'SIGTERM', options.group ?? false);
  if (await waitForProcessExit(pid, graceMs)) return 'exited';
  signal(pid, 'SIGKILL', options.group ?? false);
  await waitForProcessExit(pid, 10_000);
  return 'killed';
}

/** Sends a signal, ignoring "no such process" (it exited on its own meanwhile). */
export function signal(pid: number, name: NodeJS.Signals, group = false): void {
  try {
    process.kill(group ? -pid : pid, name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return;
    // A group may be gone while the leader lingers as a zombie; fall back to the pid itself.
    if (group) signal(pid, name, false);
    else throw error;
  }
}
