/**
 * Plain TCP sockets that read Kafka's responses into buffers of their exact size.
 *
 * A Node socket reads into a new 64 KiB buffer at every read, and kafkajs's connection joins the
 * reads of a response into one buffer (`Buffer.concat`): a 4 MiB Fetch response is 64 reads, 64
 * allocations and a copy of it all. Those buffers live outside V8's heap, which V8 counts: every
 * 64 MiB of them allocated starts a full collection, so a replicator moving 300 MB/s collected
 * garbage several times a second for the reads alone.
 *
 * These sockets read with Node's `onread` (a buffer the caller supplies for each read): between
 * responses into one reused 64 KiB buffer, from which each whole response is copied out; once a
 * response's size is known and it has not all arrived, into a buffer of exactly that size, where
 * the operating system then writes the rest of it directly. Each response reaches the connection
 * as one `data` event of exactly its bytes, which kafkajs's connection takes as it takes a chunk
 * (its own framing then finds one whole response). Kafka frames every message on the wire this
 * way, SASL tokens included: a 4-byte size, then that many bytes. TLS sockets read the same way
 * (`tls.connect` takes `onread` too; the framing is of the decrypted bytes).
 */
import net from 'node:net';
import type { ISocketFactory } from 'kafkajs';

/** The reused buffer reads go into between responses. */
const SCRATCH_BYTES = 64 * 1024;
/** kafkajs's keep-alive for the sockets it makes (network/socketFactory.js); the TLS factory's too. */
export const KEEP_ALIVE_DELAY_MS = 60_000;

/** Cuts a connection's reads into whole responses, handing each to `emit`. */
export class ResponseFramer {
  private readonly scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  /** A response that did not all arrive with the read that began it, and how much of it is in. */
  private response: Buffer | undefined;
  private filled = 0;
  /** Bytes after the last whole response of a read too few to know the next one's size (under 4). */
  private pending: Buffer | undefined;

  constructor(private readonly emit: (response: Buffer) => void) {}

  /** Where the next read goes: the rest of the response being read, or the reused buffer. */
  next(): Buffer {
    return this.response === undefined ? this.scratch : this.response.subarray(this.filled);
  }

  /** Takes `nread` bytes read into `buffer` (what `next` gave). */
  read(nread: number, buffer: Buffer): void {
    if (this.response !== undefined) {
      this.filled += nread;
      if (this.filled < this.response.length) return;
      const whole = this.response;
      this.response = undefined;
      this.emit(whole);
      return;
    }
    let data = buffer.subarray(0, nread);
    if (this.pending !== undefined) {
      data = Buffer.concat([this.pending, data]);
      this.pending = undefined;
    }
    let at = 0;
    while (data.length - at >= 4) {
      const size = data.readInt32BE(at);
      if (size < 0) throw new RangeError(`A response of ${size} bytes: the connection lost its framing.`);
      const end = at + 4 + size;
      if (end > data.length) {
        this.response = Buffer.allocUnsafe(4 + size);
        this.filled = data.copy(this.response, 0, at);
        return;
      }
      this.emit(Buffer.from(data.subarray(at, end)));
      at = end;
    }
    if (at < data.length) this.pending = Buffer.from(data.subarray(at));
  }
}

/**
 * A socket made by `connect` with the `onread` it is given (Node's `net.connect` and
 * `tls.connect` both take one), reading as above and handing each response over as a `data` event.
 */
export function readFramed<S extends net.Socket>(connect: (onread: net.OnReadOpts) => S): S {
  const framer = new ResponseFramer((response) => socket.emit('data', response));
  const socket: S = connect({
    buffer: () => framer.next(),
    callback: (nread, buffer) => {
      try {
        framer.read(nread, buffer as Buffer);
      } catch (error) {
        socket.destroy(error as Error);
        return false;
      }
      return true;
    },
  });
  return socket;
}

/**
 * kafkajs's socket factory for plain TCP, its sockets reading as above; kafkajs's own factory
 * makes a socket asked for TLS (the TLS factory of ../tls/tls-connect.ts reads framed itself).
 */
export function framedReadsSocketFactory(kafkajsFactory: ISocketFactory): ISocketFactory {
  return (options) => {
    if (options.ssl) return kafkajsFactory(options);
    const socket = readFramed((onread) => net.connect({ host: options.host, port: options.port, onread }, options.onConnect));
    socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
    return socket;
  };
}
