import dgram from 'node:dgram';
import type DNS from 'dns2';
import { Packet } from 'dns2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDnsServer, startDnsServer } from './index.js';

let server: FakeDnsServer;
beforeAll(async () => {
  server = await startDnsServer({
    zones: { 'signed.test': { A: ['127.0.0.2'], authenticated: true }, 'plain.test': { A: ['127.0.0.3'] } },
  });
});
afterAll(() => server.close());

/** The AD bit of the reply to an A question. */
function adBit(name: string): Promise<number> {
  const query = new Packet();
  query.header.id = 4242;
  query.header.rd = 1;
  query.questions.push({ name, type: Packet.TYPE.A, class: Packet.CLASS.IN } as DNS.Packet.Question);
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve, reject) => {
    socket.once('message', (message) => {
      socket.close();
      resolve((Packet.parse(message).header as unknown as { ad: number }).ad);
    });
    socket.send(query.toBuffer(), server.port, server.host, (error) => error && reject(error));
  });
}

describe('authenticated names', () => {
  it('sets the AD bit only for names marked authenticated', async () => {
    expect(await adBit('signed.test')).toBe(1);
    expect(await adBit('plain.test')).toBe(0);
  });

  it('refuses a flag that is not a boolean', () => {
    expect(() => server.setZone('x.test', { authenticated: 'yes' } as never)).toThrow(
      /"x.test" authenticated must be true or false/,
    );
  });
});
