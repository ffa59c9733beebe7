import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedPort, startBlackholePort, startSilentPort } from './ports.js';

function connect(port: number, timeoutMs: number) {
  return new Promise<string>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('timeout');
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setTimeout(150, () => {
        socket.destroy();
        resolve('connected, silent');
      });
      socket.once('data', () => resolve('data'));
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code ?? 'error');
    });
  });
}

describe('TCP ports for connection failures', () => {
  it('a closed port refuses at once', async () => {
    expect(await connect(await closedPort(), 2000)).toBe('ECONNREFUSED');
  });

  it('a blackhole port never completes the handshake', async () => {
    const port = await startBlackholePort();
    try {
      expect(await connect(port.port, 400)).toBe('timeout');
    } finally {
      await port.close();
    }
    await port.close();
  });

  it('a silent port accepts and sends nothing', async () => {
    const port = await startSilentPort();
    try {
      expect(await connect(port.port, 1000)).toBe('connected, silent');
    } finally {
      await port.close();
    }
  });
});
