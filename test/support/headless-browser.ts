/**
 * Debian's `chromium`, headless, driven over the DevTools protocol through a pipe
 * (`--remote-debugging-pipe`: commands on fd 3, answers on fd 4, each a JSON message ended by a
 * NUL byte), so no npm client and no browser download are needed. Tests open a page and read
 * what it shows with `evaluate`, as a person would read it on screen.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export interface BrowserPage {
  /** The value of a JavaScript expression in the page (awaited when it is a promise). */
  evaluate<T>(expression: string): Promise<T>;
}

export interface HeadlessBrowser {
  open(url: string): Promise<BrowserPage>;
  close(): Promise<void>;
}

const CHROMIUM = process.env['MIRRORFLOW_CHROMIUM'] ?? 'chromium';

/** Starts headless Chromium; fails with how to install it when it is not there. */
export async function startBrowser(): Promise<HeadlessBrowser> {
  const probe = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0)
    throw new Error(`${CHROMIUM} is not installed (apt-get install -y --no-install-recommends chromium; .ci/run does it).`);
  const profile = mkdtempSync(join(tmpdir(), 'mirrorflow-chromium-'));
  const child = spawn(
    CHROMIUM,
    ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const connection = new Connection(child, () => stderr);
  await connection.send('Target.setDiscoverTargets', { discover: false });
  return {
    open: async (url) => {
      const { targetId } = await connection.send<{ targetId: string }>('Target.createTarget', { url });
      const { sessionId } = await connection.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      return {
        evaluate: async <T>(expression: string): Promise<T> => {
          const answer = await connection.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
            'Runtime.evaluate',
            { expression, returnByValue: true, awaitPromise: true },
            sessionId,
          );
          if (answer.exceptionDetails !== undefined)
            throw new Error(`in the page: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
          return answer.result.value as T;
        },
      };
    },
    close: async () => {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
      await connection.send('Browser.close', {}).catch(() => child.kill('SIGKILL'));
      await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

class Connection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly out: Writable;
  private buffered = '';

  constructor(
    private readonly child: ChildProcess,
    private readonly stderr: () => string,
  ) {
    this.out = child.stdio[3] as Writable;
    const input = child.stdio[4] as Readable;
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.receive(chunk));
    child.once('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`chromium exited (${code}); its stderr:\n${this.stderr()}`));
      this.pending.clear();
    });
  }

  send<T = unknown>(method: string, params: Record<string, unknown>, sessionId?: string): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.out.write(`${JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) })}\0`);
    });
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let end: number;
    while ((end = this.buffered.indexOf('\0')) >= 0) {
      const message = JSON.parse(this.buffered.slice(0, end)) as { id?: number; result?: unknown; error?: { message: string } };
      this.buffered = this.buffered.slice(end + 1);
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (waiting === undefined) continue; // an event
      this.pending.delete(message.id!);
      if (message.error !== undefined) waiting.reject(new Error(`DevTools: ${message.error.message}`));
      else waiting.resolve(message.result);
    }
  }
}
