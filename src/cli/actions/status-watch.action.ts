import { setTimeout as sleep } from 'node:timers/promises';
import type { StatusDocument } from '../../telemetry';
import { fetchStatusText, parseStatus, renderStatus, singleStatusUrl } from './status.action';
import { textTable } from './text-table';

export interface WatchOptions {
  /** Undefined: the one `mirrorflow run` of this host. */
  readonly url: string | undefined;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/** Moves the cursor home and clears the screen: each frame replaces the last. */
export const CLEAR_SCREEN = '\u001b[H\u001b[2J';

/** One reading of `/status` and when it was taken, to compute rates from two of them. */
export interface Reading {
  readonly at: number;
  readonly document: StatusDocument;
}

/**
 * `mirrorflow status URL --watch`: redraws the status every `intervalMs` in place (ANSI), with
 * per flow records/s, MB/s and the time to catch up, computed from consecutive readings. A
 * process that stops answering is said so on screen and asked again; Ctrl-C (or `signal`) ends it.
 */
export async function watchStatus(options: WatchOptions, out: NodeJS.WritableStream = process.stdout, signal?: AbortSignal): Promise<void> {
  const url = singleStatusUrl(options.url);
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  signal?.addEventListener('abort', onSigint, { once: true });
  let previous: Reading | undefined;
  try {
    while (!stop.signal.aborted) {
      const at = Date.now();
      let body: string;
      try {
        const reading: Reading = { at, document: parseStatus(url, await fetchStatusText(url, options.timeoutMs)) };
        body = `${renderRates(reading, previous)}\n${renderStatus(reading.document, at)}`;
        previous = reading;
      } catch (error) {
        body = `${error instanceof Error ? error.message : String(error)}\nAsking again every ${options.intervalMs / 1000} s.\n`;
      }
      out.write(`${CLEAR_SCREEN}mirrorflow status ${url}  ${new Date(at).toISOString()}  (every ${options.intervalMs / 1000} s, Ctrl-C to stop)\n\n${body}`);
      await sleep(Math.max(0, at + options.intervalMs - Date.now()), undefined, { signal: stop.signal }).catch(() => undefined); // rejects only when aborted: Ctrl-C ends the loop
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Per flow: records/s and MB/s since the previous reading, lag, and how long catching up takes at the current pace. */
export function renderRates(current: Reading, previous: Reading | undefined): string {
  const rows = [['FLOW', 'RECORDS/S', 'MB/S', 'LAG', 'CATCH-UP']];
  for (const f of current.document.flows) {
    if (!f.replicating) continue;
    const before = previous?.document.flows.find((p) => p.name === f.name);
    const seconds = previous === undefined ? 0 : (current.at - previous.at) / 1000;
    if (before === undefined || seconds <= 0) {
      rows.push([f.name, '-', '-', String(f.lag), f.lag === 0 ? 'caught up' : '-']);
      continue;
    }
    const records = (f.records - before.records) / seconds;
    const mb = (f.bytes - before.bytes) / seconds / 1048576;
    const shrinking = (before.lag - f.lag) / seconds;
    const eta = f.lag === 0 ? 'caught up' : shrinking > 0 ? `${Math.ceil(f.lag / shrinking)} s` : 'not catching up';
    rows.push([f.name, records.toFixed(0), mb.toFixed(2), String(f.lag), eta]);
  }
  return textTable(rows);
}
