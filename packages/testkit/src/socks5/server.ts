import { lookup } from 'node:dns/promises';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import {
  type ResolvedSocks5Options,
  resolveSocks5Options,
  type Socks5FailureMode,
  type Socks5ProxyOptions,
  validateFailureMode,
} from './options.js';
import {
  encodeReply,
  isLoopback,
  METHOD_NONE,
  METHOD_USERNAME,
  NO_ACCEPTABLE_METHOD,
  parseGreeting,
  parseRequest,
  parseUserPass,
  REPLY,
  SOCKS_VERSION,
} from './protocol.js';

/** What became of one client connection. */
export type Socks5Outcome =
  /** Still in the greeting, authentication or CONNECT stage. */
  | 'pending'
  /** CONNECT succeeded; bytes are (or were) relayed. */
  | 'relayed'
  /** The client offered no method the proxy accepts. */
  | 'no_acceptable_method'
  /** Wrong username or password. */
  | 'auth_failed'
  /** Answered with a SOCKS5 error reply (see `replyCode`). */
  | 'error_reply'
  /** The proxy was hanging: it never answered. */
  | 'hung'
  /** The client sent something that is not SOCKS5. */
  | 'protocol_error'
  /** The client left before the CONNECT was answered. */
  | 'client_left';

/** One client connection as the proxy saw it (a live object: fields change as it proceeds). */
export interface Socks5ConnectionRecord {
  /** 1, 2, … in the order the connections arrived. */
  readonly id: number;
  /** The client's address and port. */
  readonly client: string;
  /** The username the client authenticated with (never the password), or null. */
  username: string | null;
  /** Where the client asked to go, as `host:port` (IPv6 in brackets), or null before CONNECT. */
  target: string | null;
  outcome: Socks5Outcome;
  /** The SOCKS5 reply code sent to CONNECT, or null when none was sent. */
  replyCode: number | null;
  /** Bytes relayed client → target and target → client. */
  bytesUp: number;
  bytesDown: number;
  readonly openedAt: Date;
  closedAt: Date | null;
}

/** A running SOCKS5 proxy on loopback. */
export interface Socks5Proxy {
  readonly host: string;
  readonly port: number;
  /** `socks5://host:port`, without credentials. */
  readonly url: string;
  /** Every connection, in arrival order (live objects). */
  readonly connections: readonly Socks5ConnectionRecord[];
  /** The connections relayed to one `host:port` target, or all relayed without one. */
  relayed(target?: string): Socks5ConnectionRecord[];
  /** The most relays open at once to one `host:port` target (or in all without one). */
  peakRelays(target?: string): number;
  /** The relays open now to one `host:port` target (or in all without one). */
  currentRelays(target?: string): number;
  /** The failure mode in force. */
  readonly failure: Socks5FailureMode;
  /**
   * Changes how the proxy fails from the next connection on (open relays are kept).
   * `refuse_connection` stops listening; any other mode listens again on the same port.
   */
  setFailure(mode: Socks5FailureMode): Promise<void>;
  /** Forgets closed connections and restarts the peaks from the relays open now. */
  resetRecords(): void;
  /** Stops listening and destroys every open connection; safe to call more than once. */
  close(): Promise<void>;
}

const MAX_HANDSHAKE_BYTES = 1024;

const formatTarget = (host: string, port: number) =>
  isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;

/**
 * Starts a SOCKS5 proxy (RFC 1928 CONNECT; no authentication, or username/password per
 * RFC 1929) on a loopback address. It records every connection and where it was relayed, and can
 * be told to fail: refuse TCP connections, answer CONNECT with an error code, or hang.
 */
export async function startSocks5Proxy(options: Socks5ProxyOptions = {}): Promise<Socks5Proxy> {
  const settings: ResolvedSocks5Options = resolveSocks5Options(options);
  let failure = settings.failure;
  let records: Socks5ConnectionRecord[] = [];
  let nextId = 1;
  const sockets = new Set<Socket>();
  /** Open relays per target, and the peak per target ('' is all targets). */
  const open = new Map<string, number>();
  const peaks = new Map<string, number>();
  let closing = false;

  const count = (target: string, delta: number) => {
    for (const key of [target, '']) {
      const now = (open.get(key) ?? 0) + delta;
      open.set(key, now);
      if (now > (peaks.get(key) ?? 0)) peaks.set(key, now);
    }
  };

  const handle = (client: Socket) => {
    if (closing) return void client.destroy();
    client.setNoDelay(true);
    sockets.add(client);
    const record: Socks5ConnectionRecord = {
      id: nextId++,
      client: formatTarget(client.remoteAddress ?? '', client.remotePort ?? 0),
      username: null,
      target: null,
      outcome: failure === 'hang' ? 'hung' : 'pending',
      replyCode: null,
      bytesUp: 0,
      bytesDown: 0,
      openedAt: new Date(),
      closedAt: null,
    };
    records.push(record);
    client.on('error', () => {});
    client.once('close', () => {
      sockets.delete(client);
      record.closedAt = new Date();
      if (record.outcome === 'pending') record.outcome = 'client_left';
    });
    // A hanging proxy reads and ignores whatever comes, until the client gives up.
    if (failure === 'hang') return void client.resume();

    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' | 'connecting' = 'greeting';
    const finish = (outcome: Socks5Outcome, reply?: Buffer) => {
      record.outcome = outcome;
      client.removeAllListeners('data');
      if (reply) client.end(reply);
      else client.destroy();
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length > MAX_HANDSHAKE_BYTES) return finish('protocol_error');
      try {
        if (stage === 'greeting') {
          const greeting = parseGreeting(buffer);
          if (!greeting) return;
          buffer = buffer.subarray(greeting.length);
          const wanted = settings.auth ? METHOD_USERNAME : METHOD_NONE;
          if (!greeting.methods.includes(wanted))
            return finish('no_acceptable_method', Buffer.from([SOCKS_VERSION, NO_ACCEPTABLE_METHOD]));
          client.write(Buffer.from([SOCKS_VERSION, wanted]));
          stage = settings.auth ? 'auth' : 'request';
        }
        if (stage === 'auth') {
          const credentials = parseUserPass(buffer);
          if (!credentials) return;
          buffer = buffer.subarray(credentials.length);
          record.username = credentials.username;
          const ok =
            credentials.username === settings.auth?.username &&
            credentials.password === settings.auth?.password;
          if (!ok) return finish('auth_failed', Buffer.from([1, 1]));
          client.write(Buffer.from([1, 0]));
          stage = 'request';
        }
        if (stage === 'request') {
          const request = parseRequest(buffer);
          if (!request) return;
          buffer = buffer.subarray(request.length);
          stage = 'connecting';
          client.pause();
          void answerRequest(request);
        }
      } catch {
        finish('protocol_error');
      }
    };
    const reply = (code: number) => {
      record.replyCode = code;
      finish('error_reply', encodeReply(code));
    };
    const answerRequest = async (request: {
      command: number;
      addressType: number;
      host: string;
      port: number;
    }) => {
      if (request.addressType !== 1 && request.addressType !== 3 && request.addressType !== 4)
        return reply(REPLY.addressTypeNotSupported);
      record.target = formatTarget(request.host, request.port);
      if (request.command !== 1) return reply(REPLY.commandNotSupported);
      if (failure === 'general_failure') return reply(REPLY.generalFailure);
      if (failure === 'not_allowed') return reply(REPLY.notAllowed);
      if (failure === 'host_unreachable') return reply(REPLY.hostUnreachable);
      let address = request.host;
      if (request.addressType === 3) {
        try {
          address = (await lookup(request.host)).address;
        } catch {
          return reply(REPLY.hostUnreachable);
        }
      }
      if (!settings.allowNonLoopbackTargets && !isLoopback(address)) return reply(REPLY.notAllowed);
      if (client.destroyed) return;
      const upstream = connect({ host: address, port: request.port });
      sockets.add(upstream);
      upstream.setNoDelay(true);
      upstream.once('close', () => sockets.delete(upstream));
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        if (record.outcome !== 'pending') return void client.destroy();
        const code =
          error.code === 'ECONNREFUSED'
            ? REPLY.connectionRefused
            : error.code === 'EHOSTUNREACH'
              ? REPLY.hostUnreachable
              : error.code === 'ENETUNREACH'
                ? REPLY.networkUnreachable
                : REPLY.generalFailure;
        reply(code);
      });
      upstream.once('connect', () => {
        if (client.destroyed) return void upstream.destroy();
        const target = record.target as string;
        record.outcome = 'relayed';
        record.replyCode = REPLY.succeeded;
        count(target, 1);
        upstream.once('close', () => count(target, -1));
        client.removeListener('data', onData);
        client.write(
          encodeReply(REPLY.succeeded, {
            address: upstream.localAddress ?? '0.0.0.0',
            port: upstream.localPort ?? 0,
          }),
        );
        // Bytes the client pipelined after its request belong to the target.
        if (buffer.length > 0) {
          record.bytesUp += buffer.length;
          upstream.write(buffer);
        }
        client.on('data', (chunk: Buffer) => {
          record.bytesUp += chunk.length;
        });
        upstream.on('data', (chunk: Buffer) => {
          record.bytesDown += chunk.length;
        });
        client.pipe(upstream);
        upstream.pipe(client);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
        client.resume();
      });
    };
    client.on('data', onData);
  };

  const server: Server = createServer(handle);
  server.on('error', () => {});
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (error: Error) =>
        reject(
          new Error(`SOCKS5 proxy cannot listen on ${settings.host}:${port}: ${error.message}`, {
            cause: error,
          }),
        );
      server.once('error', onError);
      server.listen({ host: settings.host, port, exclusive: true }, () => {
        server.off('error', onError);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });

  // Listen first even when refusing from the start, to own the port a later setFailure reopens.
  const port = await listen(settings.port);
  if (failure === 'refuse_connection') await stopListening();

  let closed: Promise<void> | undefined;
  const matching = (target?: string) =>
    records.filter(
      (record) => record.outcome === 'relayed' && (target === undefined || record.target === target),
    );
  return {
    host: settings.host,
    port,
    url: `socks5://${settings.host}:${port}`,
    get connections() {
      return records;
    },
    get failure() {
      return failure;
    },
    relayed: matching,
    peakRelays: (target) => peaks.get(target ?? '') ?? 0,
    currentRelays: (target) => open.get(target ?? '') ?? 0,
    async setFailure(mode) {
      failure = validateFailureMode(mode);
      if (closing) return;
      if (failure === 'refuse_connection') await stopListening();
      else if (!server.listening) await listen(port);
    },
    resetRecords() {
      records = records.filter((record) => record.closedAt === null);
      for (const [key, value] of open) peaks.set(key, value);
    },
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = stopListening();
        for (const socket of sockets) socket.destroy();
        await stopped;
      })();
      return closed;
    },
  };
}
