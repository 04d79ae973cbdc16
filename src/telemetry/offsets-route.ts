/**
 * `GET /offsets/translate`: consumer offsets translated to a flow's target, over HTTP, so that
 * consumers that are not Java (and have no RemoteClusterUtils) can fail over too. The same
 * answers as `mirrorflow offsets translate --json`, from the same code (src/pipeline/tools),
 * which the process hands in as an `OffsetTranslator`; this file only reads the query and says
 * what is wrong with a bad one (400), without asking any cluster.
 *
 *     GET /offsets/translate?group=app&topic=orders                      the group's offsets on orders' remote topic
 *     GET /offsets/translate?group=app                                   on every topic it has checkpoints for
 *     GET /offsets/translate?groups=app-.*                               every group matching a Java regex
 *     GET /offsets/translate?topic=orders&partition=3&offset=1200        one source offset, through the offset syncs
 *     …&from=primary&to=backup                                           the flow, when the pipeline has several
 */
import { type HttpRequest, type HttpResponse, type Route, errorResponse, jsonResponse } from './http-server';

/** A query, as the pipeline's tools take it (`TranslateOffsetsRequest`). */
export interface OffsetTranslateQuery {
  readonly group?: string;
  readonly groupPattern?: string;
  readonly topic?: string;
  readonly partition?: number;
  readonly offset?: number;
  readonly from?: string;
  readonly to?: string;
}

/** Answers a checked query: a status code (2xx, or 4xx/5xx with `error_code` and `message`) and the JSON body. */
export interface OffsetTranslator {
  translate(query: OffsetTranslateQuery): Promise<{ readonly status: number; readonly body: unknown }>;
}

const PARAMETERS = ['group', 'groups', 'topic', 'partition', 'offset', 'from', 'to'] as const;

/** The query of a request, or the 400 that says what is wrong with it. */
export function parseOffsetTranslateQuery(query: URLSearchParams): OffsetTranslateQuery | HttpResponse {
  const bad = (message: string): HttpResponse => errorResponse(400, `${message} Usage: ${USAGE}`);
  for (const name of new Set(query.keys())) {
    if (!(PARAMETERS as readonly string[]).includes(name)) return bad(`Unknown parameter "${name}"; the parameters are ${PARAMETERS.join(', ')}.`);
    if (query.getAll(name).length > 1) return bad(`The parameter "${name}" is given more than once.`);
    if (query.get(name) === '') return bad(`The parameter "${name}" is empty.`);
  }
  const text = (name: (typeof PARAMETERS)[number]): string | undefined => query.get(name) ?? undefined;
  const numbers: { partition?: number; offset?: number } = {};
  for (const name of ['partition', 'offset'] as const) {
    const value = text(name);
    if (value === undefined) continue;
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
      return bad(`The parameter "${name}" must be a whole number, 0 or more (got ${JSON.stringify(value)}).`);
    numbers[name] = Number(value);
  }
  const q: OffsetTranslateQuery = {
    ...(text('group') === undefined ? {} : { group: text('group') }),
    ...(text('groups') === undefined ? {} : { groupPattern: text('groups') }),
    ...(text('topic') === undefined ? {} : { topic: text('topic') }),
    ...numbers,
    ...(text('from') === undefined ? {} : { from: text('from') }),
    ...(text('to') === undefined ? {} : { to: text('to') }),
  };
  if (q.group !== undefined && q.groupPattern !== undefined) return bad('Give "group" or "groups", not both.');
  if (q.group === undefined && q.groupPattern === undefined && q.offset === undefined)
    return bad('Give "group" (or "groups"), or "topic", "partition" and "offset".');
  if (q.partition !== undefined && q.topic === undefined) return bad('"partition" needs "topic".');
  if (q.offset !== undefined && (q.topic === undefined || q.partition === undefined)) return bad('"offset" needs "topic" and "partition".');
  return q;
}

const USAGE =
  'GET /offsets/translate?group=G[&topic=T[&partition=P]] | ?topic=T&partition=P&offset=O[&group=G], with &from=SOURCE&to=TARGET when the pipeline has several flows.';

/** The route; `translator` undefined (no tools in this process) answers 404 saying so. */
export function offsetsTranslateRoute(translator: OffsetTranslator | undefined): Route {
  return {
    method: 'GET',
    path: '/offsets/translate',
    handle: async (req: HttpRequest): Promise<HttpResponse> => {
      if (translator === undefined) return errorResponse(404, 'Offset translation is not served by this process.');
      const query = parseOffsetTranslateQuery(req.query);
      if ('status' in query) return query;
      const { status, body } = await translator.translate(query);
      return jsonResponse(status, body);
    },
  };
}
