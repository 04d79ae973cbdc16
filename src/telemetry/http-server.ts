import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MirrorflowError } from '../core/errors';
import type { Logger } from '../core/ports/logger';

export interface HttpRequest {
  readonly path: string;
  /** Decoded `{name}` segments of the route's path. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The request's body as text (empty for GET). */
  readonly body: string;
  /** The Accept header ('' when none): a JSON client and a browser get different answers at `/`. */
  readonly accept?: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** The largest request body read; a larger one is answered 413 (connector configs are a few KiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface Route {
  readonly method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  /** Literal segments and `{name}` placeholders, e.g. `/connectors/{name}/status`. */
  readonly path: string;
  handle(request: HttpRequest): HttpResponse | Promise<HttpResponse>;
}

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export function jsonResponse(status: number, value: unknown): HttpResponse {
  return { status, contentType: 'application/json', body: `${JSON.stringify(value)}\n` };
}

/** A success without a body (Connect's 204 No Content, 202 Accepted). */
export function emptyResponse(status: number): HttpResponse {
  return { status, contentType: 'application/json', body: '' };
}

/** Kafka Connect's error body, so scripts written for its REST API read our errors too. */
export function errorResponse(status: number, message: string): HttpResponse {
  return jsonResponse(status, { error_code: status, message });
}

/** `HOST:PORT` (`[v6]:PORT` for IPv6) → address; `off` → undefined; anything else throws. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const value = text.trim();
  if (value === 'off') return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new MirrorflowError(`Invalid HTTP address "${value}": expected HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464) or off.`);
  return { host: match[1] ?? match[2]!, port };
}

/**
 * The process's one HTTP server: serves the routes it is given (metrics, health, status) and
 * nothing else. Answers are computed per request from live state; the server never touches the
 * replication path.
 */
export class HttpServer {
  private readonly server: Server;
  private readonly routes: readonly { route: Route; segments: readonly string[] }[];
  private readonly closing: (() => void)[] = [];

  constructor(
    routes: readonly Route[],
    private readonly logger: Logger,
  ) {
    this.routes = routes.map((route) => ({ route, segments: splitPath(route.path) }));
    this.server = createServer((req, res) => void this.serve(req, res).catch((error: unknown) => this.failed(res, error)));
    // An idle scraper's keep-alive connection must not hold the process open at shutdown.
    this.server.keepAliveTimeout = 5_000;
  }

  /** Starts listening; a port in use or an address that cannot be bound rejects with a clear error. */
  async listen(address: ListenAddress): Promise<ListenAddress> {
    try {
      return await this.bind(address);
    } catch (error) {
      throw describeListenError(error as NodeJS.ErrnoException, address);
    }
  }

  /**
   * Listens on the first of `addresses` whose port is free, in order; any other failure to bind
   * rejects at once, as `listen` does. For an address nobody chose: several processes on one host
   * must not end each other's runs over it.
   */
  async listenOnFirstFree(addresses: readonly ListenAddress[]): Promise<ListenAddress> {
    for (const [index, address] of addresses.entries()) {
      try {
        return await this.bind(address);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EADDRINUSE' || index === addresses.length - 1) throw describeListenError(error as NodeJS.ErrnoException, address);
      }
    }
    throw new MirrorflowError('No HTTP address to listen on.');
  }

  private bind(address: ListenAddress): Promise<ListenAddress> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => reject(error);
      this.server.once('error', onError);
      this.server.listen(address.port, address.host, () => {
        this.server.off('error', onError);
        this.server.on('error', (error) => this.logger.error('HTTP server failed.', { error: error.message }));
        resolve(this.address()!);
      });
    });
  }

  /** Where it listens (the real port when asked for port 0); undefined before `listen`. */
  address(): ListenAddress | undefined {
    const info = this.server.address() as AddressInfo | string | null;
    if (info === null || typeof info === 'string') return undefined;
    return { host: info.address, port: info.port };
  }

  /** Runs `callback` when the server closes (before it stops listening). */
  onClose(callback: () => void): void {
    this.closing.push(callback);
  }

  async close(): Promise<void> {
    for (const callback of this.closing.splice(0)) callback();
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let response: HttpResponse;
    try {
      response = await this.route(req);
    } catch (error) {
      this.logger.error('HTTP request failed.', { path: req.url, error: error instanceof Error ? error.message : String(error) });
      response = errorResponse(500, 'Internal error; see the mirrorflow log.');
    }
    if (response.status === 204) {
      res.writeHead(204);
      res.end();
      return;
    }
    res.writeHead(response.status, { 'content-type': response.contentType, 'content-length': Buffer.byteLength(response.body) });
    res.end(req.method === 'HEAD' ? undefined : response.body);
  }

  /** Writing the response failed (a header it cannot send, say): logged, and the connection closed. */
  private failed(res: ServerResponse, error: unknown): void {
    this.logger.error('HTTP response could not be written.', { error: error instanceof Error ? error.message : String(error) });
    res.destroy();
  }

  private async route(req: IncomingMessage): Promise<HttpResponse> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const segments = splitPath(url.pathname);
    let pathMatched = false;
    for (const { route, segments: pattern } of this.routes) {
      const params = matchSegments(pattern, segments);
      if (params === undefined) continue;
      pathMatched = true;
      if (req.method !== route.method && !(req.method === 'HEAD' && route.method === 'GET')) continue;
      const body = await readBody(req);
      if (body === undefined) return errorResponse(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
      return route.handle({ path: url.pathname, params, query: url.searchParams, body, accept: req.headers.accept ?? '' });
    }
    return pathMatched
      ? errorResponse(405, `Method ${req.method ?? ''} not allowed on ${url.pathname}.`)
      : errorResponse(404, `No such endpoint: ${url.pathname}.`);
  }
}

/** The body as UTF-8 text; undefined when it is larger than MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end either way, so the answer reaches the client.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const s = segments[i]!;
    if (p.startsWith('{') && p.endsWith('}')) {
      try {
        params[p.slice(1, -1)] = decodeURIComponent(s);
      } catch {
        return undefined;
      }
    } else if (p !== s) return undefined;
  }
  return params;
}

function describeListenError(error: NodeJS.ErrnoException, address: ListenAddress): MirrorflowError {
  const where = `${address.host}:${address.port}`;
  if (error.code === 'EADDRINUSE')
    return new MirrorflowError(
      `Cannot serve HTTP on ${where}: the port is in use (another mirrorflow or other program?). Choose another with --http HOST:PORT or http.listen, or turn it off with --http off.`,
      { cause: error },
    );
  if (error.code === 'EACCES')
    return new MirrorflowError(
      `Cannot serve HTTP on ${where}: permission denied (ports below 1024 need privileges). Choose another port with --http HOST:PORT.`,
      { cause: error },
    );
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return new MirrorflowError(`Cannot serve HTTP on ${where}: no such local address. Use an address of this host, e.g. 127.0.0.1 or 0.0.0.0.`, {
      cause: error,
    });
  return new MirrorflowError(`Cannot serve HTTP on ${where}: ${error.message}`, { cause: error });
}
