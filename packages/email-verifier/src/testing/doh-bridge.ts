import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A DNS-over-HTTPS front (RFC 8484 POST, over plain HTTP on loopback) for a UDP DNS server, so the
 * DoH transport is tested against the same fake zones as UDP and TCP.
 */
export async function startDohBridge(dns: {
  host: string;
  port: number;
}): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'POST' || request.headers['content-type'] !== 'application/dns-message') {
      response.writeHead(415).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const socket = dgram.createSocket('udp4');
      const timer = setTimeout(() => {
        socket.close();
        response.writeHead(504).end();
      }, 2000);
      socket.once('message', (message) => {
        clearTimeout(timer);
        socket.close();
        response.writeHead(200, { 'content-type': 'application/dns-message' }).end(message);
      });
      socket.send(Buffer.concat(chunks), dns.port, dns.host);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dns-query`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
