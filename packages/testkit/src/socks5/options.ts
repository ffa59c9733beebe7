/**
 * How the proxy misbehaves: `refuse_connection` stops listening (clients get ECONNREFUSED);
 * `general_failure`, `not_allowed` and `host_unreachable` answer every CONNECT with that SOCKS5
 * reply code (1, 2, 4) after the greeting and authentication; `hang` accepts the TCP connection
 * and never answers the greeting.
 */
export type Socks5FailureMode =
  | 'none'
  | 'refuse_connection'
  | 'general_failure'
  | 'not_allowed'
  | 'host_unreachable'
  | 'hang';

export const SOCKS5_FAILURE_MODES: readonly Socks5FailureMode[] = [
  'none',
  'refuse_connection',
  'general_failure',
  'not_allowed',
  'host_unreachable',
  'hang',
];

/** Options of {@link startSocks5Proxy}. */
export interface Socks5ProxyOptions {
  /**
   * The loopback address to listen on.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * The port to listen on.
   * @default 0 (ephemeral)
   */
  port?: number;
  /**
   * Require username/password authentication (RFC 1929) with these credentials; only that
   * method is offered then. Without it only "no authentication" is offered.
   * @default none (no authentication)
   */
  auth?: { username: string; password: string };
  /**
   * How the proxy fails from the start; change it later with `setFailure`.
   * @default 'none'
   */
  failure?: Socks5FailureMode;
  /**
   * Relay to targets outside 127/8 and ::1. Off so a test can never reach the internet through
   * the proxy; such a CONNECT is answered with reply code 2 (not allowed).
   * @default false
   */
  allowNonLoopbackTargets?: boolean;
}

export interface ResolvedSocks5Options {
  host: string;
  port: number;
  auth: { username: string; password: string } | null;
  failure: Socks5FailureMode;
  allowNonLoopbackTargets: boolean;
}

function fail(message: string): never {
  throw new TypeError(`SOCKS5 proxy ${message}`);
}

/** Checks a failure mode name (also used by setFailure). */
export function validateFailureMode(value: unknown): Socks5FailureMode {
  if (!SOCKS5_FAILURE_MODES.includes(value as Socks5FailureMode))
    fail(`failure must be one of ${SOCKS5_FAILURE_MODES.join(', ')}, got ${JSON.stringify(value)}`);
  return value as Socks5FailureMode;
}

/** Applies defaults and turns every mistake into a TypeError naming the option. */
export function resolveSocks5Options(options: Socks5ProxyOptions): ResolvedSocks5Options {
  if (typeof options !== 'object' || options === null) fail('options must be an object');
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || !/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))
    fail(`options.host must be a 127.x.y.z loopback address, got ${JSON.stringify(host)}`);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`options.port must be an integer 0..65535, got ${JSON.stringify(port)}`);
  let auth: ResolvedSocks5Options['auth'] = null;
  if (options.auth !== undefined) {
    const { username, password } = options.auth ?? {};
    // RFC 1929 carries each in one length octet, and an empty username is not a credential.
    for (const [name, value] of [
      ['username', username],
      ['password', password],
    ] as const) {
      if (typeof value !== 'string' || value.length === 0 || Buffer.byteLength(value) > 255)
        fail(`options.auth.${name} must be a string of 1..255 bytes`);
    }
    auth = { username: username as string, password: password as string };
  }
  return {
    host,
    port,
    auth,
    failure: validateFailureMode(options.failure ?? 'none'),
    allowNonLoopbackTargets: options.allowNonLoopbackTargets ?? false,
  };
}
