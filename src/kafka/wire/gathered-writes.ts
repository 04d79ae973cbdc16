/**
 * Request bodies written partly in place ("gathered"), and the sockets that send them.
 *
 * A produce request of forwarded batches is mostly bytes already in memory: the fetched records.
 * Written into one buffer they are copied once more, and that buffer, as large as the request,
 * is memory outside V8's heap that V8 counts: every 64 MiB of it allocated starts a full
 * collection. A gathered body keeps its own bytes (the request's fields, batch headers, the
 * varints a join writes anew) in one small buffer and refers to long runs of fetched bytes where
 * they are; the socket sends them all in one `writev`.
 *
 * Only a connection whose socket came from a socket factory of `withConnectionBehaviour`
 * (connection-behaviour.ts) gathers: its socket is wrapped by `gatherOnWrite`, which writes a
 * frame's tail after it. kafkajs's connection writes `frame` alone; a frame with a tail sent on
 * any other socket would be cut short, so only that behaviour asks produce requests to gather.
 */

/**
 * Runs of fetched bytes shorter than this are copied: below it a `writev` entry and the stream's
 * bookkeeping for it cost more than the copy.
 */
export const GATHER_MIN_BYTES = 4096;

/** A run of the writer's own buffer, [start, end). */
interface OwnRun {
  readonly start: number;
  readonly end: number;
}

/** A place in a body being written: the index of the next piece and the own buffer's offset then. */
export interface BodyMark {
  readonly piece: number;
  readonly offset: number;
}

/**
 * Writes a body into `own` (sized for the bytes it copies), referring to long runs of other
 * buffers in place when it gathers. Callers write their own fields straight into `own` at
 * `offset` and move `offset` on; `place` adds bytes of another buffer.
 */
export class BodyWriter {
  /** Where the next own byte goes. */
  offset = 0;
  /** Closed pieces, in order: runs of `own` and buffers referred to. */
  private readonly pieces: (OwnRun | Buffer)[] = [];
  /** Where the open run of `own` starts. */
  private runStart = 0;

  constructor(
    readonly own: Buffer,
    private readonly gather: boolean,
  ) {}

  /** Whether `length` bytes placed by a writer that gathers are referred to rather than copied. */
  static refers(gather: boolean, length: number): boolean {
    return gather && length >= GATHER_MIN_BYTES;
  }

  /** Adds `source[start, end)` after what was written: referred to when gathering and long, copied otherwise. */
  place(source: Buffer, start: number, end: number): void {
    if (!BodyWriter.refers(this.gather, end - start)) {
      this.offset += source.copy(this.own, this.offset, start, end);
      return;
    }
    if (this.offset > this.runStart) this.pieces.push({ start: this.runStart, end: this.offset });
    this.pieces.push(source.subarray(start, end));
    this.runStart = this.offset;
  }

  /** A mark at `offset` of the open run (where it starts at the earliest, `this.offset` at the latest). */
  markAt(offset: number): BodyMark {
    if (offset < this.runStart || offset > this.offset)
      throw new RangeError(`A body mark at ${offset} is outside the open run [${this.runStart}, ${this.offset}].`);
    return { piece: this.pieces.length, offset };
  }

  /** CRC-32C of everything written since `mark`, in order. */
  crc32cSince(mark: BodyMark, crc32c: (buffer: Buffer, initial?: number) => number): number {
    let crc = 0;
    for (let i = mark.piece; i < this.pieces.length; i++) {
      const piece = this.pieces[i]!;
      crc = Buffer.isBuffer(piece) ? crc32c(piece, crc) : crc32c(this.own.subarray(Math.max(piece.start, mark.offset), piece.end), crc);
    }
    return crc32c(this.own.subarray(Math.max(this.runStart, mark.offset), this.offset), crc);
  }

  /**
   * The body as written: `head`, the own buffer's first run (from its start: room left in front
   * of the body is part of it), then `tail`, the pieces after it. Throws unless the own buffer was
   * filled exactly, since an unwritten byte would be sent as whatever the memory held.
   */
  finish(): { readonly head: Buffer; readonly tail: readonly Buffer[] } {
    if (this.offset !== this.own.length) throw new RangeError(`A request body sized for ${this.own.length} own bytes was written with ${this.offset}.`);
    const pieces = [...this.pieces, { start: this.runStart, end: this.offset }].filter((piece) => Buffer.isBuffer(piece) || piece.end > piece.start);
    const first = pieces[0];
    if (first === undefined) return { head: this.own, tail: [] };
    if (Buffer.isBuffer(first) || first.start !== 0) throw new Error('A gathered request body must begin with bytes of its own.');
    const tail = pieces.slice(1).map((piece) => (Buffer.isBuffer(piece) ? piece : this.own.subarray(piece.start, piece.end)));
    return { head: this.own.subarray(0, first.end), tail };
  }
}

/** The tails of framed requests, written after their frames by sockets of `gatherOnWrite`. */
const tails = new WeakMap<Buffer, readonly Buffer[]>();

/** Says that `frame` goes on the wire followed by `tail`. */
export function attachTail(frame: Buffer, tail: readonly Buffer[]): void {
  if (tail.length > 0) tails.set(frame, tail);
}

/** The bytes that follow `frame` on the wire (empty when it stands alone). */
export function tailOf(frame: Buffer): readonly Buffer[] {
  return tails.get(frame) ?? [];
}

interface WritableSocket {
  write(chunk: unknown, ...rest: unknown[]): boolean;
  cork?(): void;
  uncork?(): void;
}

/**
 * Makes `socket` write a frame's tail right after it, corked, so that the stream hands frame and
 * tail to the operating system in one `writev`; every other write goes as before.
 */
export function gatherOnWrite<S extends object>(socket: S): S {
  const writable = socket as S & WritableSocket;
  if (typeof writable.write !== 'function') return socket;
  const write = writable.write;
  writable.write = function writeGathered(this: WritableSocket, chunk: unknown, ...rest: unknown[]): boolean {
    const tail = chunk instanceof Buffer ? tails.get(chunk) : undefined;
    if (tail === undefined) return write.call(this, chunk, ...rest);
    this.cork?.();
    try {
      write.call(this, chunk);
      for (let i = 0; i < tail.length - 1; i++) write.call(this, tail[i]);
      return write.call(this, tail[tail.length - 1], ...rest);
    } finally {
      this.uncork?.();
    }
  };
  return socket;
}
