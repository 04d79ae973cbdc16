import { EndpointUnavailableError } from '../../core/errors';
import { ToolUsageError } from '../../pipeline/tools/tool-errors';
import type { FlowStatusDocument, StatusDocument } from '../../telemetry';
import { findLocalEndpoints, type LocalEndpoint } from '../../telemetry/local-endpoints';
import { ago, textTable, timeWithAge } from './text-table';

/** Where `mirrorflow status` asks when no URL is given and no process of this host said where it serves. */
export const DEFAULT_STATUS_URL = 'http://127.0.0.1:9464';

export interface StatusOptions {
  /**
   * Where a `mirrorflow run` serves HTTP: `http://127.0.0.1:9464`, `127.0.0.1:9464`, or its
   * `/status` URL. Undefined: every `mirrorflow run` of this host (local-endpoints.ts).
   */
  readonly url: string | undefined;
  readonly json: boolean;
  readonly timeoutMs: number;
}

/** `mirrorflow status [URL]`: a running process's flows and partitions, from its `/status`; without a URL, those of every process on this host. */
export async function statusAction(options: StatusOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  if (options.url !== undefined) return printOne(statusUrl(options.url), options, out);
  const local = findLocalEndpoints();
  if (local.length === 0) return printOne(statusUrl(DEFAULT_STATUS_URL), options, out);
  const answers = await Promise.all(local.map((endpoint) => askLocal(endpoint, options.timeoutMs)));
  if (options.json) {
    const processes = answers.map(({ endpoint, status, error }) => ({
      ...endpoint,
      url: statusUrl(endpoint.address),
      status: status ?? null,
      error: error ?? null,
    }));
    out.write(`${JSON.stringify({ processes })}\n`);
  } else {
    out.write(
      answers
        .map(({ endpoint, status, error }) =>
          status === undefined ? `Pipeline ${endpoint.pipeline} at ${endpoint.address} (pid ${endpoint.pid}): ${error}\n` : renderStatus(status),
        )
        .join('\n'),
    );
  }
  const failed = answers.find((answer) => answer.status === undefined);
  if (failed !== undefined)
    throw new EndpointUnavailableError(
      `${answers.filter((a) => a.status === undefined).length} of ${answers.length} mirrorflow processes on this host did not answer: ${failed.error}`,
    );
}

/**
 * The one URL `--watch` follows: the given one, else the only process of this host; several
 * processes need a choice, which the error lists.
 */
export function singleStatusUrl(url: string | undefined): string {
  if (url !== undefined) return statusUrl(url);
  const local = findLocalEndpoints();
  if (local.length <= 1) return statusUrl(local[0]?.address ?? DEFAULT_STATUS_URL);
  throw new ToolUsageError(
    `${local.length} mirrorflow processes run on this host; give the URL of one:\n${local.map((e) => `  ${statusUrl(e.address)}  (pid ${e.pid}, pipeline ${e.pipeline})`).join('\n')}`,
  );
}

async function printOne(url: string, options: StatusOptions, out: NodeJS.WritableStream): Promise<void> {
  const text = await fetchStatusText(url, options.timeoutMs);
  if (options.json) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  out.write(renderStatus(parseStatus(url, text)));
}

async function askLocal(endpoint: LocalEndpoint, timeoutMs: number): Promise<{ endpoint: LocalEndpoint; status?: StatusDocument; error?: string }> {
  const url = statusUrl(endpoint.address);
  try {
    return { endpoint, status: parseStatus(url, await fetchStatusText(url, timeoutMs)) };
  } catch (error) {
    return { endpoint, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The `/status` answer at `url` as text; an unreachable or failing endpoint throws a clear error. */
export async function fetchStatusText(url: string, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new EndpointUnavailableError(`Cannot reach mirrorflow at ${url}: ${cause}. Is \`mirrorflow run\` running there (http.listen, --http)?`, {
      cause: error,
    });
  }
  if (!response.ok) throw new EndpointUnavailableError(`${url} answered ${response.status} ${response.statusText}; is it a mirrorflow process?`);
  return response.text();
}

export function parseStatus(url: string, text: string): StatusDocument {
  let document: StatusDocument;
  try {
    document = JSON.parse(text) as StatusDocument;
  } catch (error) {
    throw new EndpointUnavailableError(`${url} did not answer JSON; is it a mirrorflow process?`, { cause: error });
  }
  if (!Array.isArray(document.flows)) throw new EndpointUnavailableError(`${url} did not answer a mirrorflow status; is it a mirrorflow process?`);
  return document;
}

/** Accepts a bare HOST:PORT, a base URL or the full `/status` URL. */
export function statusUrl(input: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ToolUsageError(`Not a URL: ${input} (expected e.g. http://127.0.0.1:9464).`);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/status';
  return url.toString();
}

export function renderStatus(document: StatusDocument, now: number = Date.now()): string {
  let text = `Pipeline ${document.pipeline}${document.worker === undefined ? '' : ` at ${document.worker}`}${document.pid === undefined ? '' : ` (pid ${document.pid})`}: ${document.ready ? 'ready' : 'not ready'}\n`;
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
      ...(f.provenance === null || f.provenance === undefined
        ? []
        : [
            `provenance headers: ${f.provenance.loops} loops and ${f.provenance.duplicates} duplicates skipped${f.provenance.unchecked > 0 ? `, ${f.provenance.unchecked} written unchecked (older than the diamond window)` : ''}`,
          ]),
      ...verifyNotes(f, now),
      ...(f.checkpoints.groupSync.activeGroups.length > 0
        ? [`groups not synced because active on ${f.target}: ${f.checkpoints.groupSync.activeGroups.join(', ')}`]
        : []),
    ];
    const groupStates = (f.checkpoints.groupStates ?? []).filter((g) => g.state !== 'filtered-out');
    const filteredOut = f.checkpoints.groupsFilteredOut ?? 0;
    if (filteredOut > 0) notes.push(`${filteredOut} consumer group(s) left out by the groups filter`);
    if (f.partitions.length === 0 && notes.length === 0 && groupStates.length === 0) continue;
    text += `\n${f.name}\n`;
    for (const note of notes) text += `  ${note}\n`;
    if (groupStates.length > 0) {
      const rows = [['GROUP', 'SYNC STATE', 'PARTITIONS', 'SINCE', 'WHY']];
      for (const g of groupStates)
        rows.push([
          g.group,
          g.state,
          g.partitions === null ? '-' : `${g.translated ?? 0}/${g.partitions}`,
          g.since === null ? '-' : ago(Date.parse(g.since), now),
          g.reason,
        ]);
      text += indent(textTable(rows));
    }
    if (f.partitions.length > 0) {
      const rows = [['TOPIC', 'PARTITION', 'NEXT OFFSET', 'HIGH WATERMARK', 'LAG', 'RECORDS']];
      for (const p of f.partitions) rows.push([p.topic, String(p.partition), String(p.nextOffset), String(p.highWatermark), String(p.lag), String(p.records)]);
      text += indent(textTable(rows));
    }
  }
  return text;
}

/** A table's lines, each led by two spaces (not the end after its last line). */
function indent(table: string): string {
  return table.replace(/^(?=.)/gm, '  ');
}

/** Continuous verification: what it compared, and each partition where it found something. */
function verifyNotes(f: FlowStatusDocument, now: number): string[] {
  const v = f.verify ?? null;
  if (v === null) return [];
  const last = v.lastPassAt === null ? 'no pass yet' : `last pass ${timeWithAge(Date.parse(v.lastPassAt), now)}`;
  const lines = [
    `verify ${v.state}: ${v.records} records compared in ${v.partitionsVerified} partitions, ${v.missing} missing, ${v.duplicates} duplicates, ${v.unexpected} unexpected, ${v.skipped} skipped by the budget; ${last}${v.errors > 0 ? `, ${v.errors} errors` : ''}`,
  ];
  if (v.lastError !== null) lines.push(`verify failing: ${v.lastError}`);
  for (const p of v.findings) {
    const found = [
      p.missing > 0 ? `${p.missing} missing${p.firstMissingOffset === null ? '' : ` (first at source offset ${p.firstMissingOffset})`}` : '',
      p.duplicates > 0
        ? `${p.duplicates} duplicates${p.firstDuplicateTargetOffset === null ? '' : ` (first at ${p.remoteTopic} offset ${p.firstDuplicateTargetOffset})`}`
        : '',
      p.unexpected > 0
        ? `${p.unexpected} unexpected${p.firstUnexpectedTargetOffset === null ? '' : ` (first at ${p.remoteTopic} offset ${p.firstUnexpectedTargetOffset})`}`
        : '',
    ].filter((s) => s !== '');
    lines.push(`verify found in ${p.topic}-${p.partition}: ${found.join(', ')}; last in source offsets ${p.fromOffset}-${p.toOffset - 1}`);
  }
  return lines;
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
