import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { createServer } from 'node:tls';
import { createCertificateAuthority, issueCertificate } from '../../src/local/certificates';
import { tlsSocketFactory } from '../../src/kafka/tls/tls-connect';

test('a framed TLS socket hands each decrypted response over as one data event', async () => {
  const ca = createCertificateAuthority('framed-reads-test');
  const server = issueCertificate(ca, { commonName: 'broker', hosts: ['127.0.0.1'] });
  const frames = [100, 150_000, 3, 2_000_000].map((bytes, seed) => {
    const framed = Buffer.alloc(4 + bytes, seed + 1);
    framed.writeInt32BE(bytes, 0);
    return framed;
  });
  const listener = createServer({ cert: server.certificatePem, key: server.keyPem }, (peer) => {
    const stream = Buffer.concat(frames);
    for (let at = 0; at < stream.length; at += 77_777) peer.write(stream.subarray(at, at + 77_777));
    peer.end();
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  try {
    const { port } = listener.address() as AddressInfo;
    const factory = tlsSocketFactory(
      () => ({ ca: [ca.certificatePem] }),
      () => undefined,
      true,
    );
    const socket = factory({ host: '127.0.0.1', port, ssl: {}, onConnect: () => undefined }) as Socket;
    const events: Buffer[] = [];
    socket.on('data', (data: Buffer) => events.push(data));
    await once(socket, 'end');
    assert.deepEqual(
      events.map((event) => event.length),
      frames.map((frame) => frame.length),
    );
    assert.deepEqual(events, frames);
    socket.destroy();
  } finally {
    listener.close();
  }
});
