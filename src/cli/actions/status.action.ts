import { MirrorflowError } from '../../core/errors';
import type { FlowStatusDocument, StatusDocument } from '../../telemetry';
import { textTable, timeWithAge } from './text-table';

export interface StatusOptions {
  /** Where a `mirrorflow run` serves HTTP: `http://127.0.0.1:9464`, `127.0.0.1:9464`, or its `/status` URL. */
  readonly url: string;
  readonly json: boolean;
  readonly timeoutMs: number;
}

/** `mirrorflow status URL`: a running process's flows and partitions, from its `/status`. */
export async function statusAction(options: StatusOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const url = statusUrl(options.url);
  const text = await fetchStatusText(url, options.timeoutMs);
  if (options.json) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  out.write(renderStatus(parseStatus(url, text)));
}

/** The `/status` answer at `url` as text; an unreachable or failing endpoint throws a clear error. */
export async function fetchStatusText(url: string, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new MirrorflowError(`Cannot reach mirrorflow at ${url}: ${cause}. Is \`mirrorflow run\` running there (http.listen, --http)?`, { cause: error });
  }
  if (!response.ok) throw new MirrorflowError(`${url} answered ${response.status} ${response.statusText}; is it a mirrorflow process?`);
  return response.text();
}

export function parseStatus(url: string, text: string): StatusDocument {
  let document: StatusDocument;
  try {
    document = JSON.parse(text) as StatusDocument;
  } catch (error) {
    throw new MirrorflowError(`${url} did not answer JSON; is it a mirrorflow process?`, { cause: error });
  }
  if (!Array.isArray(document.flows)) throw new MirrorflowError(`${url} did not answer a mirrorflow status; is it a mirrorflow process?`);
  return document;
}

/** Accepts a bare HOST:PORT, a base URL or the full `/status` URL. */
export function statusUrl(input: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new MirrorflowError(`Not a URL: ${input} (expected e.g. http://127.0.0.1:9464).`);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/status';
  return url.toString();
}

export function renderStatus(document: StatusDocument, now: number = Date.now()): string {
  let text = `Pipeline ${document.pipeline}: ${document.ready ? 'ready' : 'not ready'}\n`;
  const flows = [['FLOW', 'STATE', 'TOPICS', 'RECORDS', 'LAG', 'LATENCY', 'CHECKPOINTS', 'HEARTBEATS']];
  for (const f of document.flows) {
    flows.push([
      f.name,
      f.state,
      f.replicating ? String(f.topics) : '-',
      f.replicating ? String(f.records) : '-',
      f.replicating ? String(f.lag) : '-',
      f.latencyMs === null ? '-' : `${f.latencyMs} ms`,
      f.replicating ? checkpoints(f, now) : '-',
      heartbeats(f, now),
    ]);
  }
  text += '\n' + textTable(flows);
  for (const f of document.flows) {
    const notes = [
      ...f.notReady.map((r) => `not ready: ${r}`),
      ...(f.offsets === null || f.offsets === undefined
        ? []
        : [
            `offsets preserved on ${f.offsets.preserved} partitions${f.offsets.fallbacks.length > 0 ? `, ${f.offsets.fallbacks.length} fell back to translation` : ''}`,
            ...f.offsets.fallbacks.map((b) => `offsets not preserved: ${b.topic}-${b.partition} from source offset ${b.fromOffset}: ${b.reason}`),
          ]),
      ...(f.checkpoints.groupSync.activeGroups.length > 0
        ? [`groups not synced because active on ${f.target}: ${f.checkpoints.groupSync.activeGroups.join(', ')}`]
        : []),
    ];
    if (f.partitions.length === 0 && notes.length === 0) continue;
    text += `\n${f.name}\n`;
    for (const note of notes) text += `  ${note}\n`;
    if (f.partitions.length > 0) {
      const rows = [['TOPIC', 'PARTITION', 'NEXT OFFSET', 'HIGH WATERMARK', 'LAG', 'RECORDS']];
      for (const p of f.partitions) rows.push([p.topic, String(p.partition), String(p.nextOffset), String(p.highWatermark), String(p.lag), String(p.records)]);
      text += textTable(rows).replace(/^/gm, '  ');
    }
  }
  return text;
}

function checkpoints(f: FlowStatusDocument, now: number): string {
  const cp = f.checkpoints;
  if (cp.state === 'disabled') return 'off';
  const last = cp.lastPassAt === null ? 'no pass yet' : `last ${timeWithAge(Date.parse(cp.lastPassAt), now)}`;
  return `${cp.state}, ${cp.groups} groups, ${last}${cp.errors > 0 ? `, ${cp.errors} errors` : ''}`;
}

function heartbeats(f: FlowStatusDocument, now: number): string {
  const hb = f.heartbeats;
  if (hb.state === 'disabled') return 'off';
  return `${hb.state}, ${hb.lastAt === null ? 'none yet' : `last ${timeWithAge(Date.parse(hb.lastAt), now)}`}`;
}
