/**
 * A TCP proxy on 127.0.0.1 for fault tests: it forwards every connection to one address (a
 * broker's listener) and can take the network away in between.
 *
 * - `cut('refuse')`: every connection is reset and new ones are closed as soon as they are
 *   accepted, as when the peer's host is up but nothing listens.
 * - `cut('drop')`: every connection is destroyed and new ones are accepted but never forwarded
 *   nor closed, so clients wait for their own timeouts, as behind a firewall that drops packets.
 * - `cut('freeze')`: nothing is closed, nothing is forwarded any more, either way, on old and new
 *   connections alike, as in a network partition; bytes wait (in the sockets' buffers) until
 *   `restore()` lets them through, unless a client gave up first and closed its connection.
 * - `delay(ms)`: every chunk is held for `ms` before it is forwarded, in both directions.
 *
 * Forwarding is chunk by chunk with backpressure both ways; order is kept because every chunk of
 * a direction waits the same delay.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type CutMode = 'refuse' | 'drop' | 'freeze';

export interface TcpProxyOptions {
  /** Where connections go: `127.0.0.1` and a port. */
  readonly targetHost?: string;
  readonly targetPort: number;
  /** The port to listen on; default: one the kernel picks. */
  readonly port?: number;
}

const HOST = '127.0.0.1';

/** One client connection and its upstream connection (made once forwarding is allowed). */
interface Link {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Set while a `freeze` holds this link: neither side is read. */
  frozen: boolean;
  /** Accepted during a `drop` cut: never forwarded, destroyed on restore. */
  blackholed: boolean;
}

export class TcpProxy {
  private readonly links = new Set<Link>();
  private mode: CutMode | undefined;
  private delayMs = 0;
  private accepted = 0;
  private held = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens on 127.0.0.1 (`options.port` or a free port) and resolves once it accepts connections. */
  static async start(options: TcpProxyOptions): Promise<TcpProxy> {
    const server = createServer({ pauseOnConnect: true, noDelay: true });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: HOST, port: options.port ?? 0, exclusive: true }, () => {
        server.off('error', reject);
        const address = server.address();
        if (address === null || typeof address === 'string') reject(new Error('The proxy has no TCP port.'));
        else resolve(address.port);
      });
    });
    return new TcpProxy(server, port, options.targetHost ?? HOST, options.targetPort);
  }

  /** `127.0.0.1:<port>`: what clients connect to. */
  get address(): string {
    return `${HOST}:${this.port}`;
  }

  /** Connections open now (client side). */
  get connections(): number {
    return this.links.size;
  }

  /** Connections accepted since the start. */
  get acceptedConnections(): number {
    return this.accepted;
  }

  /** Chunks read and waiting for their delay. */
  get heldChunks(): number {
    return this.held;
  }

  /** Whether (and how) the proxy is cut now. */
  get cutMode(): CutMode | undefined {
    return this.mode;
  }

  /** Takes the network away; see the file comment for the modes. A second cut replaces the first. */
  cut(mode: CutMode = 'drop'): void {
    if (this.mode !== undefined) this.restore();
    this.mode = mode;
    for (const link of [...this.links]) {
      if (mode === 'freeze') this.freeze(link);
      else this.destroy(link, mode === 'refuse');
    }
  }

  /**
   * Gives the network back: new connections are forwarded again; frozen ones go on where they
   * stopped; connections accepted during a `drop` are closed (their clients had no answer, and
   * a late one would be out of place).
   */
  restore(): void {
    const was = this.mode;
    this.mode = undefined;
    if (was === undefined) return;
    for (const link of [...this.links]) {
      if (link.blackholed) this.destroy(link, false);
      else if (link.frozen) {
        link.frozen = false;
        if (link.upstream === undefined) this.forward(link);
        else {
          link.client.resume();
          link.upstream.resume();
        }
      }
    }
  }

  /** Holds every chunk `ms` before forwarding it, both ways (0: none). Applies to chunks read from now on. */
  delay(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  /** Stops listening and destroys every connection. */
  async close(): Promise<void> {
    this.mode = 'refuse';
    for (const link of [...this.links]) this.destroy(link, false);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const link: Link = { client, upstream: undefined, frozen: false, blackholed: false };
    this.links.add(link);
    client.on('error', () => this.destroy(link, false));
    client.on('close', () => this.destroy(link, false));
    if (this.mode === 'drop') {
      // Read and discard, so the client's writes succeed and only its wait for answers fails.
      link.blackholed = true;
      client.on('data', () => undefined);
      client.resume();
      return;
    }
    if (this.mode === 'freeze') {
      link.frozen = true;
      return; // stays paused (pauseOnConnect) until restore()
    }
    this.forward(link);
  }

  /** Connects upstream and pumps both directions. */
  private forward(link: Link): void {
    const upstream = connect({ host: this.targetHost, port: this.targetPort, noDelay: true });
    link.upstream = upstream;
    upstream.on('error', () => this.destroy(link, false));
    upstream.on('close', () => this.destroy(link, false));
    upstream.pause();
    upstream.once('connect', () => {
      if (!this.links.has(link)) return;
      this.pump(link, link.client, upstream);
      this.pump(link, upstream, link.client);
      if (!link.frozen) {
        link.client.resume();
        upstream.resume();
      }
    });
  }

  /**
   * Copies `from` to `to`, each chunk after the delay in force when it was read, pausing `from`
   * while `to` is full. Chunks wait in one queue per direction, so a shorter delay set later
   * never lets a chunk overtake an earlier one.
   */
  private pump(link: Link, from: Socket, to: Socket): void {
    const queue: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    // One wait for 'drain' at a time: several delayed chunks may be written into a full socket in one flush.
    let draining = false;
    const write = (chunk: Buffer): void => {
      if (to.destroyed) return;
      if (!to.write(chunk) && !link.frozen && !draining) {
        draining = true;
        from.pause();
        to.once('drain', () => {
          draining = false;
          if (!link.frozen && !from.destroyed) from.resume();
        });
      }
    };
    const flush = (): void => {
      timer = undefined;
      const now = Date.now();
      while (queue.length > 0 && queue[0]!.at <= now) {
        this.held--;
        write(queue.shift()!.chunk);
      }
      if (queue.length > 0) timer = setTimeout(flush, queue[0]!.at - now);
    };
    from.on('data', (chunk: Buffer) => {
      if (this.delayMs === 0 && queue.length === 0) {
        write(chunk);
        return;
      }
      this.held++;
      queue.push({ at: Date.now() + this.delayMs, chunk });
      timer ??= setTimeout(flush, Math.max(0, queue[0]!.at - Date.now()));
    });
    from.once('close', () => {
      clearTimeout(timer);
      this.held -= queue.length;
      queue.length = 0;
    });
  }

  private freeze(link: Link): void {
    link.frozen = true;
    link.client.pause();
    link.upstream?.pause();
  }

  /** Ends a link: `reset` sends an RST to the client (connection refused mid-way) instead of a FIN. */
  private destroy(link: Link, reset: boolean): void {
    if (!this.links.delete(link)) return;
    if (reset && !link.client.destroyed) link.client.resetAndDestroy();
    else link.client.destroy();
    link.upstream?.destroy();
  }
}
