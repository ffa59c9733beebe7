import { connect } from 'node:net';
import { skipWithout } from './skip-without.js';

/**
 * The servers some tests need (PostgreSQL, Redis), found by URL in the environment the way a
 * deployment finds them: `DATABASE_URL` and `REDIS_URL`. Unset or unreachable means "missing":
 * those tests skip with a message, or fail under `SVC_REQUIRE_EXTERNAL` (`.ci/run` sets both
 * URLs, starts both servers and sets that variable).
 */
export interface ExternalService {
  /** The environment variable holding the URL. */
  variable: 'DATABASE_URL' | 'REDIS_URL';
  /** The server's name, for the message. */
  name: string;
  /** A URL that works on a developer machine with the server on its standard port, for the message. */
  example: string;
}

export const POSTGRES: ExternalService = {
  variable: 'DATABASE_URL',
  name: 'PostgreSQL',
  example: 'postgres://postgres@127.0.0.1:5432/test',
};

export const REDIS: ExternalService = {
  variable: 'REDIS_URL',
  name: 'Redis',
  example: 'redis://127.0.0.1:6379',
};

/** Whether a TCP connection to `host:port` opens within `timeoutMs`. */
export function tcpReachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The service's URL when it is set and its server answers on TCP; otherwise `undefined` after
 * {@link skipWithout} printed why (or threw, under `SVC_REQUIRE_EXTERNAL`). Use with top-level
 * await: `const url = await serviceUrl(POSTGRES, 'the Postgres store suite'); describe.skipIf(!url)(…)`.
 */
export async function serviceUrl(
  service: ExternalService,
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const url = env[service.variable];
  let available = false;
  if (url !== undefined && url !== '') {
    try {
      const parsed = new URL(url);
      const defaultPort = service === REDIS ? 6379 : 5432;
      available = await tcpReachable(parsed.hostname || '127.0.0.1', Number(parsed.port || defaultPort));
    } catch {
      available = false;
    }
  }
  const missing = skipWithout({
    name: `${service.name} at $${service.variable}`,
    available,
    howToGet: `start ${service.name} and set ${service.variable}, e.g. ${service.variable}=${service.example}`,
    what,
    env,
  });
  return missing ? undefined : url;
}
