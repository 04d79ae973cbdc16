/**
 * Asks a broker whether it serves clients, with two hand-written requests over a plain socket
 * (no Kafka client library may be used in this layer):
 *
 * ApiVersions v0 request:   int32 size | int16 api_key=18 | int16 api_version=0 | int32 correlation_id
 *                           | string client_id (int16 length + UTF-8)            (empty body)
 * ApiVersions v0 response:  int32 size | int32 correlation_id | int16 error_code
 *                           | int32 n | n × (int16 api_key | int16 min_version | int16 max_version)
 *
 * Metadata v1..v8 request (non-flexible, header v1): same header with api_key=3, then
 *                           int32 topic count (0 = no topics)
 *                           | v4+: int8 allow_auto_topic_creation
 *                           | v8+: int8 include_cluster_authorized_operations, int8 include_topic_authorized_operations
 * Metadata response prefix: int32 size | int32 correlation_id | v3+: int32 throttle_time_ms
 *                           | int32 n | n × (int32 node_id | string host | int32 port | nullable string rack)
 *                           | v2+: nullable string cluster_id | int32 controller_id | … (topics, not read)
 *
 * A broker answers ApiVersions as soon as its socket server runs; it lists itself among the
 * Metadata brokers only once it is registered and unfenced, which is when topics can be
 * created. So "ready" is: Metadata lists a broker on the probed port.
 */
import { Socket } from 'node:net';

export const API_KEY_METADATA = 3;
export const API_KEY_API_VERSIONS = 18;
const CLIENT_ID = 'mirrorflow-probe';
/** Metadata versions this file can encode and decode. */
const METADATA_MIN = 1;
const METADATA_MAX = 8;

export interface ApiVersionRange {
  readonly min: number;
  readonly max: number;
}

export interface ApiVersionsResponse {
  readonly correlationId: number;
  readonly errorCode: number;
  readonly apis: ReadonlyMap<number, ApiVersionRange>;
}

export interface MetadataBroker {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

export interface MetadataResponse {
  readonly correlationId: number;
  readonly brokers: readonly MetadataBroker[];
  readonly clusterId: string | null;
  readonly controllerId: number;
}

export interface KafkaProbeResult {
  readonly apis: ReadonlyMap<number, ApiVersionRange>;
  /** Absent when the broker offers no Metadata version this probe can speak. */
  readonly metadata?: MetadataResponse;
}

function requestHeader(apiKey: number, apiVersion: number, correlationId: number): Buffer {
  const clientId = Buffer.from(CLIENT_ID, 'utf8');
  const header = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(clientId.length, 8);
  clientId.copy(header, 10);
  return header;
}

function frame(payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}

export function encodeApiVersionsRequest(correlationId: number): Buffer {
  return frame(requestHeader(API_KEY_API_VERSIONS, 0, correlationId));
}

export function encodeMetadataRequest(version: number, correlationId: number): Buffer {
  if (version < METADATA_MIN || version > METADATA_MAX) {
    throw new RangeError(`Metadata request version ${version} is not supported by the probe.`);
  }
  const body: number[] = [0, 0, 0, 0]; // int32 topic count = 0: brokers only, no topics
  if (version >= 4) body.push(0); // allow_auto_topic_creation = false
  if (version >= 8) body.push(0, 0); // no authorized operations
  return frame(Buffer.concat([requestHeader(API_KEY_METADATA, version, correlationId), Buffer.from(body)]));
}

/** Reads fields in order from a response payload (without the size prefix). */
class Reader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  private need(bytes: number): void {
    if (this.offset + bytes > this.buffer.length) throw new RangeError('The Kafka response ended early.');
  }
  int16(): number {
    this.need(2);
    const value = this.buffer.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }
  int32(): number {
    this.need(4);
    const value = this.buffer.readInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  nullableString(): string | null {
    const length = this.int16();
    if (length < 0) return null;
    this.need(length);
    const value = this.buffer.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
  string(): string {
    const value = this.nullableString();
    if (value === null) throw new RangeError('The Kafka response has a null where a string belongs.');
    return value;
  }
}

export function decodeApiVersionsResponse(payload: Buffer): ApiVersionsResponse {
  const reader = new Reader(payload);
  const correlationId = reader.int32();
  const errorCode = reader.int16();
  const apis = new Map<number, ApiVersionRange>();
  const count = reader.int32();
  for (let i = 0; i < count; i++) {
    const key = reader.int16();
    apis.set(key, { min: reader.int16(), max: reader.int16() });
  }
  return { correlationId, errorCode, apis };
}

export function decodeMetadataResponse(version: number, payload: Buffer): MetadataResponse {
  const reader = new Reader(payload);
  const correlationId = reader.int32();
  if (version >= 3) reader.int32(); // throttle_time_ms
  const brokers: MetadataBroker[] = [];
  const count = reader.int32();
  for (let i = 0; i < count; i++) {
    const nodeId = reader.int32();
    const host = reader.string();
    const port = reader.int32();
    reader.nullableString(); // rack
    brokers.push({ nodeId, host, port });
  }
  const clusterId = version >= 2 ? reader.nullableString() : null;
  const controllerId = reader.int32();
  return { correlationId, brokers, clusterId, controllerId };
}

/** The highest Metadata version both the broker and this probe speak, if any. */
export function chooseMetadataVersion(range: ApiVersionRange | undefined): number | undefined {
  if (range === undefined) return undefined;
  const version = Math.min(range.max, METADATA_MAX);
  return version >= Math.max(range.min, METADATA_MIN) ? version : undefined;
}

/** Splits a byte stream into Kafka response frames. */
class FrameReader {
  private pending = Buffer.alloc(0);
  private waiting: ((payload: Buffer) => void) | undefined;

  push(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    this.deliver();
  }

  next(): Promise<Buffer> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  private deliver(): void {
    if (this.waiting === undefined || this.pending.length < 4) return;
    const size = this.pending.readInt32BE(0);
    if (this.pending.length < 4 + size) return;
    const payload = this.pending.subarray(4, 4 + size);
    this.pending = this.pending.subarray(4 + size);
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve(payload);
  }
}

/**
 * Sends ApiVersions and, when possible, Metadata to `host:port` on one connection. Rejects on
 * connection errors, a non-zero ApiVersions error code, malformed replies, or after `timeoutMs`.
 */
export function probeKafka(host: string, port: number, options: { timeoutMs?: number } = {}): Promise<KafkaProbeResult> {
  const timeoutMs = options.timeoutMs ?? 2000;
  return new Promise<KafkaProbeResult>((resolve, reject) => {
    const socket = new Socket();
    const frames = new FrameReader();
    let settled = false;
    const finish = (error: Error | undefined, result?: KafkaProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(result!);
    };
    const timer = setTimeout(() => finish(new Error(`No answer from ${host}:${port} within ${timeoutMs} ms.`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error(`The connection to ${host}:${port} closed before the broker answered.`)));
    socket.connect(port, host, () => {
      void (async () => {
        socket.write(encodeApiVersionsRequest(1));
        const versions = decodeApiVersionsResponse(await frames.next());
        if (versions.errorCode !== 0) {
          throw new Error(`The broker answered ApiVersions with error code ${versions.errorCode}.`);
        }
        const metadataVersion = chooseMetadataVersion(versions.apis.get(API_KEY_METADATA));
        if (metadataVersion === undefined) return { apis: versions.apis };
        socket.write(encodeMetadataRequest(metadataVersion, 2));
        const metadata = decodeMetadataResponse(metadataVersion, await frames.next());
        return { apis: versions.apis, metadata };
      })().then(
        (result) => finish(undefined, result),
        (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
      );
    });
  });
}

/** CreateTopics, which a KRaft broker forwards to its controller. */
export const API_KEY_CREATE_TOPICS = 19;

/**
 * True when the broker at `host:port` lists itself as an alive broker (registered, unfenced) and
 * offers CreateTopics. A KRaft broker leaves the requests it forwards to the controller out of its
 * ApiVersions until it knows the controller's versions, a moment after it is unfenced; a client
 * that connected then keeps those versions for the connection, and kafkajs refused every
 * CreateTopics of its admin with "The Kafka server does not support the requested API version"
 * (seen once on a fresh three-broker cluster).
 */
export async function isBrokerReady(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  const result = await probeKafka(host, port, { timeoutMs });
  if (result.metadata === undefined) return true; // ApiVersions answered; nothing more to ask
  return result.metadata.brokers.some((broker) => broker.port === port) && result.apis.has(API_KEY_CREATE_TOPICS);
}
