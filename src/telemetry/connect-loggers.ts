import type { Logger } from '../core/ports/logger';
import { READ_ONLY_MESSAGE } from './connect-writes';
import { type HttpResponse, type Route, emptyResponse, errorResponse, jsonResponse } from './http-server';
import { type LogLevels, parseLog4jLevel } from './log-levels';

export interface ConnectLoggerOptions {
  readonly levels: LogLevels;
  /** False (`http.connect_api: read_only`): a PUT answers 405 naming the option, as the connector writes do. */
  readonly writable: boolean;
  readonly logger: Logger;
}

/**
 * Connect's LoggingResource over the process's named loggers (log-levels.ts): `GET
 * /admin/loggers`, `GET /admin/loggers/{name}` and `PUT /admin/loggers/{name}` with `{"level":
 * "DEBUG"}`, with Connect's answers — the affected loggers (200), or 204 with `scope=cluster`
 * (one process is the whole "cluster" here, as a standalone worker is). A change holds until the
 * process ends; the file's `logging.level` is root's level at start.
 */
export function connectLoggerRoutes(options: ConnectLoggerOptions): Route[] {
  const { levels } = options;
  return [
    { method: 'GET', path: '/admin/loggers', handle: () => jsonResponse(200, levels.all()) },
    {
      method: 'GET',
      path: '/admin/loggers/{logger}',
      handle: (req) => {
        const name = req.params['logger']!;
        const level = levels.level(name);
        return level === undefined ? errorResponse(404, `Logger ${name} not found.`) : jsonResponse(200, level);
      },
    },
    {
      method: 'PUT',
      path: '/admin/loggers/{logger}',
      handle: (req): HttpResponse => {
        if (!options.writable) return errorResponse(405, READ_ONLY_MESSAGE);
        const namespace = req.params['logger']!;
        let body: unknown;
        try {
          body = JSON.parse(req.body);
        } catch (error) {
          return errorResponse(400, `The request body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
        }
        const given = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)['level'] : undefined;
        if (given === undefined || given === null) return errorResponse(400, "Desired 'level' parameter was not specified in request.");
        const level = parseLog4jLevel(String(given));
        // Connect answers an unknown level 404 (a NotFoundException), not 400.
        if (level === undefined) return errorResponse(404, `invalid log level '${String(given)}'.`);
        const affected = levels.set(namespace, level);
        options.logger.info('Logger levels were changed over the REST API.', { logger: namespace, level, loggers: affected.length });
        // Connect takes an unknown scope as `worker`.
        return (req.query.get('scope') ?? 'worker').toLowerCase() === 'cluster' ? emptyResponse(204) : jsonResponse(200, affected);
      },
    },
  ];
}
