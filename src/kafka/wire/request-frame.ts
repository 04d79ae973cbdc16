/**
 * Frames a request for the socket, in place of kafkajs's protocol/request.js.
 *
 *   Request => Size RequestHeader Body
 *     Size          int32 (bytes that follow)
 *     RequestHeader api_key int16, api_version int16, correlation_id int32, client_id nullable string
 *                   [, tagged fields (uvarint count, here 0): header v2, for flexible requests]
 *     Body          the request's own encoding
 *
 * kafkajs builds this with two growable encoders, each of which allocates a zero-filled buffer
 * of the next power of two and copies the whole body into it: for a 10 MB produce request, two
 * 16 MB allocations and two copies. This writes the frame with one exact allocation and one copy;
 * a request that takes headroom (the produce request, produce-request.ts) writes its body behind
 * room for the header, which is then written in front of it: no copy at all. kafkajs's connection
 * only reads `.buffer` of the result. A gathered body's tail is attached to the frame for the
 * socket that writes it (gathered-writes.ts); the frame's size counts it.
 */
import { attachTail } from './gathered-writes';

export interface EncodedRequest {
  readonly buffer: Buffer;
  /** Bytes left free in front of the body, when the request honoured the headroom asked for. */
  readonly headroom?: number;
  /** The rest of a gathered body (gathered-writes.ts), sent after `buffer`. */
  readonly tail?: readonly Buffer[];
}

interface RequestDefinition {
  readonly apiKey: number;
  readonly apiVersion: number;
  /** A flexible version (KIP-482), whose header has tagged fields; kafkajs's own requests are never flexible. */
  readonly flexible?: boolean;
  /** Encodes the body; a request may leave `headroom` bytes free in front of it (and say so). */
  encode(headroom?: number): Promise<EncodedRequest>;
}

export interface FrameArgs {
  readonly correlationId: number;
  readonly clientId: string | null;
  readonly request: RequestDefinition;
}

export async function frameRequest({ correlationId, clientId, request }: FrameArgs): Promise<{ readonly buffer: Buffer }> {
  const clientIdLength = clientId === null || clientId === undefined ? -1 : Buffer.byteLength(clientId, 'utf8');
  const tagged = request.flexible === true ? 1 : 0;
  const headerSize = 2 + 2 + 4 + 2 + Math.max(clientIdLength, 0) + tagged;
  const encoded = await request.encode(4 + headerSize);
  const inPlace = encoded.headroom === 4 + headerSize;
  const tail = encoded.tail ?? [];
  const headLength = inPlace ? encoded.buffer.length - (4 + headerSize) : encoded.buffer.length;
  let bodyLength = headLength;
  for (const piece of tail) bodyLength += piece.length;
  // The frame holds the body's head; its tail follows it on the wire.
  const frame = inPlace ? encoded.buffer : Buffer.allocUnsafe(4 + headerSize + headLength);
  frame.writeInt32BE(headerSize + bodyLength, 0);
  frame.writeInt16BE(request.apiKey, 4);
  frame.writeInt16BE(request.apiVersion, 6);
  frame.writeInt32BE(correlationId, 8);
  frame.writeInt16BE(clientIdLength, 12);
  if (clientIdLength > 0) frame.write(clientId!, 14, 'utf8');
  if (tagged === 1) frame.writeUInt8(0, 14 + Math.max(clientIdLength, 0));
  if (!inPlace) encoded.buffer.copy(frame, 4 + headerSize);
  attachTail(frame, tail);
  return { buffer: frame };
}
