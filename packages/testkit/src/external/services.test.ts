import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, serviceUrl, tcpReachable } from './services.js';

describe('serviceUrl', () => {
  it('returns the URL when its server answers on TCP', async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const url = `redis://127.0.0.1:${port}`;
    expect(await serviceUrl(REDIS, 'a test', { REDIS_URL: url })).toBe(url);
    await new Promise((resolve) => server.close(resolve));
  });

  it('skips with a message naming the variable when the URL is unset', async () => {
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (message: string) => warnings.push(message);
    try {
      expect(await serviceUrl(POSTGRES, 'the Postgres suite', {})).toBeUndefined();
    } finally {
      console.warn = original;
    }
    expect(warnings[0]).toMatch(
      /SKIPPED: the Postgres suite: PostgreSQL at \$DATABASE_URL is missing.*DATABASE_URL=postgres:/,
    );
  });

  it('throws under SVC_REQUIRE_EXTERNAL when the server does not answer', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    expect(await tcpReachable('127.0.0.1', port)).toBe(false);
    await expect(
      serviceUrl(POSTGRES, 'x', {
        DATABASE_URL: `postgres://127.0.0.1:${port}/test`,
        SVC_REQUIRE_EXTERNAL: '1',
      }),
    ).rejects.toThrow(/PostgreSQL at \$DATABASE_URL is missing but SVC_REQUIRE_EXTERNAL=1 requires it/);
  });
});
