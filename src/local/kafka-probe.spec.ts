import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, test } from 'node:test';
import {
  chooseMetadataVersion,
  decodeApiVersionsResponse,
  decodeMetadataResponse,
  encodeApiVersionsRequest,
  encodeMetadataRequest,
  isBrokerReady,
  probeKafka,
} from './kafka-probe';

const clientId = Buffer.from('mirrorflow-probe');

function header(apiKey: number, version: number, correlationId: number): Buffer {
  const b = Buffer.alloc(10);
  b.writeInt16BE(apiKey, 0);
  b.writeInt16BE(version, 2);
  b.writeInt32BE(correlationId, 4);
  b.writeInt16BE(clientId.length, 8);
  return Buffer.concat([b, clientId]);
}

function sized(payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

const int16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const str = (s: string | null) => (s === null ? int16(-1) : Buffer.concat([int16(Buffer.byteLength(s)), Buffer.from(s)]));

function apiVersionsPayload(correlationId: number, errorCode: number, apis: [number, number, number][]): Buffer {
  return Buffer.concat([int32(correlationId), int16(errorCode), int32(apis.length), ...apis.flatMap(([k, min, max]) => [int16(k), int16(min), int16(max)])]);
}

function metadataPayload(version: number, correlationId: number, brokers: [number, string, number][]): Buffer {
  return Buffer.concat([
    int32(correlationId),
    ...(version >= 3 ? [int32(0)] : []),
    int32(brokers.length),
    ...brokers.flatMap(([id, host, port]) => [int32(id), str(host), int32(port), str(null)]),
    ...(version >= 2 ? [str('cluster-1')] : []),
    int32(brokers[0]?.[0] ?? -1),
    int32(0), // topics (not read)
  ]);
}

test('encodeApiVersionsRequest is a v0 ApiVersions request with an empty body', () => {
  assert.deepEqual(encodeApiVersionsRequest(7), sized(header(18, 0, 7)));
});

test('encodeMetadataRequest asks for no topics, adding the fields each version requires', () => {
  assert.deepEqual(encodeMetadataRequest(1, 2), sized(Buffer.concat([header(3, 1, 2), int32(0)])));
  assert.deepEqual(encodeMetadataRequest(4, 2), sized(Buffer.concat([header(3, 4, 2), int32(0), Buffer.from([0])])));
  assert.deepEqual(encodeMetadataRequest(8, 2), sized(Buffer.concat([header(3, 8, 2), int32(0), Buffer.from([0, 0, 0])])));
  assert.throws(() => encodeMetadataRequest(9, 2), RangeError);
});

test('decodeApiVersionsResponse reads the error code and every API range', () => {
  const decoded = decodeApiVersionsResponse(
    apiVersionsPayload(1, 0, [
      [3, 0, 13],
      [18, 0, 4],
    ]),
  );
  assert.equal(decoded.correlationId, 1);
  assert.equal(decoded.errorCode, 0);
  assert.deepEqual(decoded.apis.get(3), { min: 0, max: 13 });
  assert.deepEqual(decoded.apis.get(18), { min: 0, max: 4 });
});

test('decodeMetadataResponse reads brokers, cluster id and controller for versions 1 to 8', () => {
  for (const version of [1, 2, 3, 8]) {
    const decoded = decodeMetadataResponse(version, metadataPayload(version, 2, [[1, '127.0.0.1', 9092]]));
    assert.deepEqual(decoded.brokers, [{ nodeId: 1, host: '127.0.0.1', port: 9092 }], `v${version}`);
    assert.equal(decoded.clusterId, version >= 2 ? 'cluster-1' : null);
    assert.equal(decoded.controllerId, 1);
  }
});

test('a truncated response is an error, not garbage', () => {
  assert.throws(() => decodeApiVersionsResponse(Buffer.from([0, 0, 0, 1, 0])), RangeError);
});

test('chooseMetadataVersion takes the highest version both sides speak', () => {
  assert.equal(chooseMetadataVersion({ min: 0, max: 13 }), 8);
  assert.equal(chooseMetadataVersion({ min: 0, max: 5 }), 5);
  assert.equal(chooseMetadataVersion({ min: 9, max: 13 }), undefined);
  assert.equal(chooseMetadataVersion(undefined), undefined);
});

/** The fake broker answers at once; the probe's 2 s default is for real brokers, too short on a machine under load. */
const UNHURRIED = { timeoutMs: 30_000 };

/** A fake broker that answers each request frame with the next canned reply. */
async function fakeBroker(reply: (apiKey: number, version: number, correlationId: number) => Buffer | undefined): Promise<Server> {
  const server = createServer((socket: Socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const request = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + request.length);
        const answer = reply(request.readInt16BE(0), request.readInt16BE(2), request.readInt32BE(4));
        if (answer === undefined) socket.destroy();
        else socket.write(sized(answer));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

test('probeKafka and isBrokerReady accept a broker that lists itself in Metadata', async () => {
  let port = 0;
  const server = await fakeBroker((apiKey, version, correlationId) =>
    apiKey === 18
      ? apiVersionsPayload(correlationId, 0, [
          [3, 0, 13],
          [19, 2, 7],
        ])
      : metadataPayload(version, correlationId, [[1, '127.0.0.1', port]]),
  );
  port = (server.address() as AddressInfo).port;
  const result = await probeKafka('127.0.0.1', port, UNHURRIED);
  assert.equal(result.metadata?.clusterId, 'cluster-1');
  assert.equal(await isBrokerReady('127.0.0.1', port, UNHURRIED.timeoutMs), true);
});

test("isBrokerReady is false while the broker does not offer CreateTopics yet (its controller's versions not known)", async () => {
  let port = 0;
  const server = await fakeBroker((apiKey, version, correlationId) =>
    apiKey === 18 ? apiVersionsPayload(correlationId, 0, [[3, 0, 13]]) : metadataPayload(version, correlationId, [[1, '127.0.0.1', port]]),
  );
  port = (server.address() as AddressInfo).port;
  assert.equal(await isBrokerReady('127.0.0.1', port, UNHURRIED.timeoutMs), false);
});

test('isBrokerReady is false while the broker does not list itself (still fenced)', async () => {
  const server = await fakeBroker((apiKey, version, correlationId) =>
    apiKey === 18 ? apiVersionsPayload(correlationId, 0, [[3, 0, 13]]) : metadataPayload(version, correlationId, []),
  );
  assert.equal(await isBrokerReady('127.0.0.1', (server.address() as AddressInfo).port, UNHURRIED.timeoutMs), false);
});

test('probeKafka rejects when the connection closes before an answer', async () => {
  const server = await fakeBroker(() => undefined);
  await assert.rejects(probeKafka('127.0.0.1', (server.address() as AddressInfo).port, UNHURRIED), /closed before the broker answered/);
});

test('probeKafka rejects an ApiVersions error code', async () => {
  const server = await fakeBroker((_key, _version, correlationId) => apiVersionsPayload(correlationId, 35, []));
  await assert.rejects(probeKafka('127.0.0.1', (server.address() as AddressInfo).port, UNHURRIED), /error code 35/);
});
