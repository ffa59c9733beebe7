import { createServer, type Server } from 'node:net';
import { createSecureContext } from 'node:tls';
import { loadSmtpTestCertificate, type SmtpTlsCredentials } from './credentials.js';
import { Greylist } from './greylist.js';
import { Recorder, type SmtpSessionRecord } from './recording.js';
import { type ResolvedScript, resolveScript } from './resolve.js';
import type { SmtpScript } from './script.js';
import { SmtpSession } from './session.js';
import { validateLoopbackHost, validatePort, validateScript } from './validate.js';

/** One fake MTA of a fleet: its listening address and, optionally, its own script. */
export interface SmtpHostSpec {
  /** The loopback address to listen on, e.g. `127.0.0.2`. */
  host: string;
  /**
   * This host's script, layered over the fleet's (its mailbox and domain entries win).
   * @default {}
   */
  script?: SmtpScript;
}

/** Options of {@link startSmtpFleet}. */
export interface SmtpFleetOptions {
  /** The fake MTAs: 127.x.y.z addresses, or `{ host, script }` for a host with its own behaviour. */
  hosts: readonly (string | SmtpHostSpec)[];
  /**
   * The one port every host listens on (a verifier dials every MX on the same port).
   * @default 0 (an ephemeral port, taken by the first host and reused by the others)
   */
  port?: number;
  /**
   * The behaviour of every host.
   * @default {} (greets, offers STARTTLS, answers every RCPT with 550 5.1.1)
   */
  script?: SmtpScript;
  /**
   * Certificate and key for STARTTLS.
   * @default the testkit's self-signed certificate (see {@link loadSmtpTestCertificate})
   */
  tls?: SmtpTlsCredentials;
}

/** Options of {@link startSmtpServer}. */
export interface SmtpServerOptions {
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
   * The server's behaviour.
   * @default {}
   */
  script?: SmtpScript;
  /**
   * Certificate and key for STARTTLS.
   * @default the testkit's self-signed certificate
   */
  tls?: SmtpTlsCredentials;
}

/** A listening fake MTA. */
export interface SmtpFleetHost {
  readonly host: string;
  readonly port: number;
  /** The name in its banner and EHLO reply. */
  readonly hostname: string;
}

/** Running fake MTAs sharing one port, with their records. */
export interface SmtpFleet {
  /** The port all hosts listen on. */
  readonly port: number;
  /** The hosts, in the order given. */
  readonly hosts: readonly SmtpFleetHost[];
  /** Every recorded session of every host, in the order they connected (live objects). */
  readonly sessions: readonly SmtpSessionRecord[];
  /** The recorded sessions of one host. */
  sessionsFor(host: string): SmtpSessionRecord[];
  /** The most simultaneous connections seen by one host (or by the whole fleet without one). */
  peakConnections(host?: string): number;
  /** The connections open now to one host (or to the whole fleet without one). */
  currentConnections(host?: string): number;
  /** Forgets ended sessions and restarts the peaks from the connections open now. */
  resetRecords(): void;
  /** Forgets every host's greylist, so the next attempt is greylisted again. */
  resetGreylist(): void;
  /** Resolves once no connection is open (sessions are recorded as ended). */
  waitForIdle(): Promise<void>;
  /** Stops listening and destroys open connections; safe to call more than once. */
  close(): Promise<void>;
}

interface HostRuntime {
  host: string;
  script: ResolvedScript;
  greylist: Greylist;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      // Accept errors (e.g. EMFILE under a benchmark) must not crash the test process.
      server.on('error', () => {});
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}

function validateOptions(options: SmtpFleetOptions): { hosts: HostRuntime[]; port: number } {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('SMTP fleet options must be an object');
  if (!Array.isArray(options.hosts) || options.hosts.length === 0) {
    throw new TypeError('SMTP fleet options.hosts must be a non-empty array of 127.x.y.z addresses');
  }
  const port = validatePort(options.port ?? 0);
  const base = validateScript('options.script', options.script);
  const seen = new Set<string>();
  const hosts = options.hosts.map((spec, i): HostRuntime => {
    const isSpec = typeof spec === 'object' && spec !== null;
    const host = validateLoopbackHost(`options.hosts[${i}]`, isSpec ? spec.host : spec);
    if (seen.has(host)) throw new TypeError(`SMTP options.hosts[${i}]: duplicate host ${host}`);
    seen.add(host);
    const own = validateScript(`options.hosts[${i}].script`, isSpec ? spec.script : undefined);
    return { host, script: resolveScript(base, own), greylist: new Greylist() };
  });
  return { hosts, port };
}

/** Starts fake MTAs on several loopback addresses sharing one port. */
export async function startSmtpFleet(options: SmtpFleetOptions): Promise<SmtpFleet> {
  const { hosts, port: wanted } = validateOptions(options);
  const credentials = options.tls ?? loadSmtpTestCertificate();
  const secureContext = createSecureContext({ cert: credentials.cert, key: credentials.key });
  const recorder = new Recorder(hosts.map((h) => h.host));
  const live = new Set<SmtpSession>();
  let closing = false;

  const makeServer = (runtime: HostRuntime, port: () => number): Server =>
    createServer((socket) => {
      // Replies leave as soon as they are written, as from an MTA that flushes its pipelined
      // replies at once; with Nagle, small replies written one by one would wait for the
      // client's delayed ACK (about 40 ms), a stall no real MTA shows.
      socket.setNoDelay(true);
      if (closing) return void socket.destroy();
      const record = recorder.open(runtime.host, port(), socket.remoteAddress ?? '', socket.remotePort ?? 0);
      const session = new SmtpSession(socket, { ...runtime, recorder, record, secureContext });
      live.add(session);
      socket.once('close', () => live.delete(session));
    });

  // With port 0 the first host's ephemeral port may already be taken on another 127.x address by
  // some other process; start over on a fresh port a few times before giving up.
  let servers: Server[] = [];
  let port = wanted;
  for (let attempt = 1; ; attempt++) {
    servers = [];
    port = wanted;
    try {
      for (const runtime of hosts) {
        const server = makeServer(runtime, () => port);
        servers.push(server);
        try {
          port = await listen(server, port, runtime.host);
        } catch (error) {
          const err = error as NodeJS.ErrnoException;
          throw Object.assign(
            new Error(`SMTP fleet cannot listen on ${runtime.host}:${port}: ${err.message}`, { cause: err }),
            {
              code: err.code,
            },
          );
        }
      }
      break;
    } catch (error) {
      await Promise.all(servers.map(closeServer));
      const retry = wanted === 0 && attempt < 5 && (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!retry) throw error;
    }
  }

  let closed: Promise<void> | undefined;
  return {
    port,
    hosts: hosts.map((h) => ({ host: h.host, port, hostname: h.script.hostname })),
    get sessions() {
      return recorder.sessions;
    },
    sessionsFor: (host) => {
      recorder.gauge(host);
      return recorder.sessions.filter((s) => s.host === host);
    },
    peakConnections: (host) => recorder.gauge(host).peak,
    currentConnections: (host) => recorder.gauge(host).current,
    resetRecords: () => recorder.reset(),
    resetGreylist: () => {
      for (const h of hosts) h.greylist.clear();
    },
    waitForIdle: () => recorder.idle(),
    close: () => {
      closed ??= (async () => {
        closing = true;
        const stopped = Promise.all(servers.map(closeServer));
        for (const session of live) session.destroy('fleet-closed');
        await stopped;
      })();
      return closed;
    },
  };
}

/** Starts one fake MTA (a fleet of one host). */
export async function startSmtpServer(
  options: SmtpServerOptions = {},
): Promise<SmtpFleet & { host: string }> {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('SMTP server options must be an object');
  const host = options.host ?? '127.0.0.1';
  const fleet = await startSmtpFleet({
    hosts: [host],
    port: options.port,
    script: options.script,
    tls: options.tls,
  });
  return Object.assign(fleet, { host });
}
