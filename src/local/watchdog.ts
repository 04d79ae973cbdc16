import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { WatchMessage } from './watchdog-process';

/**
 * The owner's side of the watchdog (see watchdog-process.ts): one watchdog per owning process,
 * started on first use. Neither the watchdog nor its pipe keeps the owner's event loop alive.
 */
export interface Watchdog {
  watch(pid: number, dir: string): void;
  release(pid: number): void;
}

let shared: Watchdog | undefined;

/** The watchdog of this process, started on first call. */
export function processWatchdog(): Watchdog {
  shared ??= startWatchdog();
  return shared;
}

function startWatchdog(): Watchdog {
  const script = join(__dirname, 'watchdog-process.js');
  if (!existsSync(script)) {
    // Running from sources through a TS loader: there is no compiled watchdog to start. Brokers
    // are still stopped by stop() and at exit, just not after a SIGKILL of this process.
    return { watch() {}, release() {} };
  }
  // detached: its own process group and session, so Ctrl-C or a group kill aimed at the owner
  // does not take the watchdog down with it.
  const child: ChildProcess = spawn(process.execPath, [script, String(process.pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.unref();
  const stdin = child.stdin as Socket;
  stdin.unref();
  // If the watchdog died, writes fail with EPIPE; the owner must not crash over it.
  stdin.on('error', () => undefined);
  const send = (message: WatchMessage): void => {
    if (!stdin.destroyed) stdin.write(JSON.stringify(message) + '\n');
  };
  return {
    watch: (pid, dir) => send({ op: 'watch', pid, dir }),
    release: (pid) => send({ op: 'release', pid }),
  };
}
