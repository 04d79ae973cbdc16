import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * Where the `mirrorflow run` processes of this host serve HTTP, so `mirrorflow status` without
 * a URL finds every one of them — also those that took another port because the default one was
 * in use. One small file per process in a folder of this user's (`$MIRRORFLOW_RUNTIME_DIR`, else
 * `$XDG_RUNTIME_DIR/mirrorflow`, else `<tmp>/mirrorflow-<uid>`), removed when the process ends;
 * a file whose process is gone (kill -9) is removed by the next reader.
 */
export interface LocalEndpoint {
  readonly pid: number;
  readonly pipeline: string;
  /** `HOST:PORT` it serves on. */
  readonly address: string;
  /** ISO time it started serving. */
  readonly since: string;
}

export function localEndpointsDir(env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env['MIRRORFLOW_RUNTIME_DIR'];
  if (chosen !== undefined && chosen !== '') return chosen;
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime !== '') return join(runtime, 'mirrorflow');
  return join(tmpdir(), `mirrorflow-${userInfo().uid}`);
}

/**
 * Records this process's endpoint; returns the function that removes it (also called at exit).
 * Best effort: a folder that cannot be written only means `status` needs the URL.
 */
export function announceLocalEndpoint(endpoint: Omit<LocalEndpoint, 'pid' | 'since'>, dir: string = localEndpointsDir()): () => void {
  const file = join(dir, `${process.pid}.json`);
  const entry: LocalEndpoint = { pid: process.pid, ...endpoint, since: new Date().toISOString() };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  } catch {
    return () => {};
  }
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    rmSync(file, { force: true });
  };
  process.on('exit', remove);
  return remove;
}

/** The endpoints of processes still alive, oldest first; files of dead processes are deleted. */
export function findLocalEndpoints(dir: string = localEndpointsDir()): LocalEndpoint[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
  const found: LocalEndpoint[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let entry: LocalEndpoint;
    try {
      entry = JSON.parse(readFileSync(file, 'utf8')) as LocalEndpoint;
    } catch {
      continue; // being written, or not ours
    }
    if (isAlive(entry.pid)) found.push(entry);
    else rmSync(file, { force: true });
  }
  return found.sort((a, b) => a.since.localeCompare(b.since) || a.pid - b.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
