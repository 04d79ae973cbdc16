import { createServer, type Server } from 'node:net';

/**
 * Finds `count` distinct free TCP ports on 127.0.0.1 by letting the kernel choose (bind to
 * port 0). All sockets stay open until every port is known so the kernel cannot hand out the
 * same port twice; they are closed before returning. Another process may still take a port
 * before the broker binds it, so callers retry a start that fails with "address in use".
 */
export async function findFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(await listenOnAnyPort(server, host));
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

function listenOnAnyPort(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('The kernel did not report a TCP port.'));
        return;
      }
      resolve(address.port);
    });
  });
}
