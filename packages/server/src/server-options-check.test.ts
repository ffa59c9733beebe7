import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import type { ServerOptions } from './options.js';
import { createTestServer } from './testing/test-server.js';

// Options passed in code go through the config file's rules (config.ts), so a mistake stops the
// server when it is built, naming the key, instead of surfacing later as a strange behaviour.
describe('createServer checks its options', () => {
  it.each([
    [{ port: 70_000 }, 'port', 'createServer options: port must be an integer from 0 to 65535, got 70000'],
    [{ trustedProxies: ['10.0.0.0/33'] }, 'trustedProxies', 'has "10.0.0.0/33", which has a prefix length'],
    [{ limits: { jsonBodyBytes: 0 } }, 'limits.jsonBodyBytes', 'must be an integer of at least 1'],
    [
      { logLevel: 'loud' },
      'logLevel',
      'logLevel must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    [{ smtp: { helo: 'x' } }, 'smtp.helo', 'unknown option smtp.helo'],
    [{ tls: { certFile: '/tmp/cert.pem' } }, 'tls.keyFile', 'HTTPS needs both the certificate and its key'],
    [{ ownerPlan: 'gold' }, 'ownerPlan', 'ownerPlan "gold" (createServer options) is not a plan'],
    [{ role: 'worker' }, 'role', 'role worker (createServer options) needs databaseUrl'],
  ])('%j', async (options, key, message) => {
    const error = await createTestServer({ options: options as ServerOptions }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe(key);
    expect((error as Error).message).toContain(message);
  });

  it('builds a server from good options', async () => {
    const server = await createTestServer({ options: { trustedProxies: ['10.0.0.0/8', '::1'], port: 0 } });
    expect(server.app.svc.options.trustedProxies).toEqual(['10.0.0.0/8', '::1']);
    await server.app.close();
  });
});
