import net from 'node:net';
import { directSocket, SmtpConnection, SmtpConnectionError } from '../smtp/connection.js';
import { socks5SocketFactory } from '../smtp/socks5.js';
import { echoedAddress } from './ehlo-address.js';
import type { ResolvedDoctorOptions } from './options.js';
import type { DoctorCheck, DoctorStatus } from './report.js';

/**
 * How reaching the test host went: `reachable` (a 220 greeting), `greeting_refused` (reached, but
 * the greeting was not 220), `no_greeting` (connected, then silence), `refused` (TCP reset),
 * `timed_out` (no answer at all: packets dropped), `filtered` (ICMP unreachable from a router or
 * a firewall, or this machine's own firewall), `host_not_found`, `proxy_unreachable`,
 * `proxy_refused` (the proxy's rules or authentication), `proxy_failed`, `error`.
 */
export type OutboundOutcome =
  | 'reachable'
  | 'greeting_refused'
  | 'no_greeting'
  | 'refused'
  | 'timed_out'
  | 'filtered'
  | 'host_not_found'
  | 'proxy_unreachable'
  | 'proxy_refused'
  | 'proxy_failed'
  | 'error';

/** The finding, and what the test host's EHLO reply said about us. */
export interface OutboundSmtpFinding {
  check: DoctorCheck;
  /** The client address the test host echoed in its EHLO reply, if it did. */
  echoedAddress: string | null;
}

const SEE = 'see "When every result is unknown" in the CLI README';

/** Can the probing port be reached on the test host, directly or through the proxy? */
export async function checkOutboundSmtp(o: ResolvedDoctorOptions): Promise<OutboundSmtpFinding> {
  const target = `${o.testHost}:${o.port}`;
  const via = o.proxy ? ` through the SOCKS5 proxy ${o.proxy.host}:${o.proxy.port}` : '';
  const started = performance.now();
  const finding = (status: DoctorStatus, outcome: OutboundOutcome, message: string, extra = {}) => ({
    check: {
      id: 'outbound_smtp',
      group: 'smtp' as const,
      title: `Outbound SMTP (port ${o.port})`,
      status,
      message,
      details: {
        outcome,
        test_host: o.testHost,
        port: o.port,
        proxy: o.proxy ? `${o.proxy.host}:${o.proxy.port}` : null,
        elapsed_ms: Math.round(performance.now() - started),
        ...extra,
      },
    },
    echoedAddress: null as string | null,
  });

  if (o.proxy) {
    const reach = await tcpReach(o.proxy.host, o.proxy.port, o.connectTimeoutMs);
    if (reach !== 'connected') {
      return finding(
        'failed',
        'proxy_unreachable',
        `The SOCKS5 proxy ${o.proxy.host}:${o.proxy.port} cannot be reached (${reach}): no probe can go out. Check the proxy's address and that it is running.`,
        { error: reach },
      );
    }
  }

  const connecting = new AbortController();
  const timer = setTimeout(() => connecting.abort(), o.connectTimeoutMs);
  let socket: net.Socket;
  try {
    socket = o.proxy
      ? await socks5SocketFactory(o.proxy)(o.testHost, o.port, connecting.signal)
      : await directSocket(o.testHost, o.port, connecting.signal);
  } catch (error) {
    const { outcome, reason } = o.proxy ? classifyProxyError(error) : classifyConnectError(error);
    return finding('failed', outcome, explain(outcome, target, via, reason, o.connectTimeoutMs), {
      error: reason,
    });
  } finally {
    clearTimeout(timer);
  }

  const session = new AbortController();
  const connection = new SmtpConnection(socket, o.commandTimeoutMs, session.signal);
  try {
    const greeting = await connection.read().catch((error: unknown) => error as Error);
    if (greeting instanceof Error) {
      const silent = greeting instanceof SmtpConnectionError && greeting.kind === 'timeout';
      return finding(
        'failed',
        'no_greeting',
        silent
          ? `Connected to ${target}${via}, but no SMTP greeting came within ${o.commandTimeoutMs / 1000} s: something on the way accepts port ${o.port} without being a mail server (a provider intercepting the port, a firewall proxy) or the host is a tarpit. Try another --test-host; if it is the same, probes from here will end unknown (${SEE}).`
          : `Connected to ${target}${via}, but the connection closed before any SMTP greeting (${greeting.message}): something on the way cuts port ${o.port} connections. Try another --test-host; if it is the same, ${SEE}.`,
        { error: greeting.message },
      );
    }
    const banner = `${greeting.code} ${greeting.lines[0] ?? ''}`.trim();
    if (greeting.code !== 220) {
      return finding(
        'warning',
        'greeting_refused',
        `Port ${o.port} is open${via}, but ${target} refused us at the greeting (${banner}): receivers may refuse this address too; see the blocklist and reverse DNS checks.`,
        { banner },
      );
    }
    const ehlo = await connection.command(`EHLO ${o.heloName}`).catch(() => null);
    const echoed = ehlo && ehlo.code === 250 ? echoedAddress(ehlo.lines[0] ?? '') : null;
    const result = finding(
      'ok',
      'reachable',
      `Reached ${target}${via} in ${Math.round(performance.now() - started)} ms (${banner}).`,
      {
        banner,
        ehlo_reply: ehlo ? `${ehlo.code} ${ehlo.lines[0] ?? ''}`.trim() : null,
        echoed_address: echoed,
      },
    );
    result.echoedAddress = echoed;
    return result;
  } finally {
    await connection.close().catch(() => {});
  }
}

function explain(
  outcome: OutboundOutcome,
  target: string,
  via: string,
  reason: string,
  timeoutMs: number,
): string {
  switch (outcome) {
    case 'refused':
      return via
        ? `The proxy reports that ${target} refused the connection (${reason}). Try another --test-host; if every host refuses, the proxy's network blocks port 25 too (${SEE}).`
        : `Connecting to ${target} was refused (TCP reset, ${reason}): a firewall on the way rejects outbound port 25, or nothing listens there. Try another --test-host; if it is refused too, your provider blocks port 25: ask them to open it or use a SOCKS5 proxy (--proxy; ${SEE}).`;
    case 'timed_out':
      return via
        ? `No answer from ${target}${via} within ${timeoutMs / 1000} s: the proxy's network may drop port 25 too. Try another proxy (${SEE}).`
        : `No answer from ${target} within ${timeoutMs / 1000} s: the connection attempt was silently dropped, which is how most cloud and residential providers block outbound port 25. Every probe will end unknown (smtp_timeout); ask your provider to open port 25 or use a SOCKS5 proxy on a host with port 25 open (--proxy; ${SEE}).`;
    case 'filtered':
      return via
        ? `The proxy cannot reach ${target} (${reason}): its network filters port 25 or has no route there. Try another proxy (${SEE}).`
        : /EACCES|EPERM/.test(reason)
          ? `This machine's own firewall refuses outbound port 25 (${reason}): allow it (iptables/nftables/ufw rules for the verifier's user) or use a SOCKS5 proxy (${SEE}).`
          : `A router or firewall answered that ${target} is unreachable (${reason}): port 25 is filtered on the way, or this machine has no route to the internet. Ask your provider, or use a SOCKS5 proxy (--proxy; ${SEE}).`;
    case 'host_not_found':
      return `The test host ${target} does not resolve (${reason}): check DNS (see the DNS check) or pass another --test-host.`;
    case 'proxy_refused':
      return `The SOCKS5 proxy refused to connect to ${target} (${reason}): its rules forbid port 25 or the credentials are wrong. Fix the proxy's configuration or the --proxy credentials.`;
    case 'proxy_failed':
      return `The SOCKS5 proxy failed to connect to ${target} (${reason}). Check the proxy's logs, or try another proxy.`;
    default:
      return `Connecting to ${target}${via} failed (${reason}).`;
  }
}

/** What a direct connect's error means. */
export function classifyConnectError(error: unknown): { outcome: OutboundOutcome; reason: string } {
  if (error instanceof SmtpConnectionError && error.kind === 'timeout') {
    return { outcome: 'timed_out', reason: 'no SYN-ACK, no reset, no ICMP' };
  }
  const code =
    ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code ??
    (error as NodeJS.ErrnoException).code;
  const reason = code ?? (error as Error).message;
  switch (code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
      return { outcome: 'refused', reason };
    case 'ETIMEDOUT':
      return { outcome: 'timed_out', reason };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EACCES':
    case 'EPERM':
      return { outcome: 'filtered', reason };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { outcome: 'host_not_found', reason };
    default:
      return { outcome: 'error', reason };
  }
}

// socks5SocketFactory names the proxy's RFC 1928 reply in its message: "(reply N)", or in words.
const REPLY_OUTCOMES: Record<number, OutboundOutcome> = {
  1: 'proxy_failed',
  2: 'proxy_refused',
  3: 'filtered',
  4: 'filtered',
  5: 'refused',
  6: 'timed_out',
  7: 'proxy_failed',
  8: 'proxy_failed',
};
const PROXY_WORDS: readonly [RegExp, OutboundOutcome][] = [
  [/connection refused/, 'refused'],
  [/(host|network) unreachable/, 'filtered'],
  [/TTL expired/, 'timed_out'],
  [/not allowed by ruleset|authentication|auth method/, 'proxy_refused'],
];

/** What a SOCKS5 connect's error means (the proxy itself was reachable). */
export function classifyProxyError(error: unknown): { outcome: OutboundOutcome; reason: string } {
  const message = (error as Error).message.replace(/^SOCKS5 proxy [^ ]+: /, '');
  if (error instanceof SmtpConnectionError && error.kind === 'timeout') {
    return { outcome: 'timed_out', reason: 'the proxy did not answer in time' };
  }
  const code = /\(reply (\d+)\)/.exec(message)?.[1];
  const byCode = code === undefined ? undefined : REPLY_OUTCOMES[Number(code)];
  if (byCode) return { outcome: byCode, reason: message };
  for (const [pattern, outcome] of PROXY_WORDS)
    if (pattern.test(message)) return { outcome, reason: message };
  return { outcome: 'proxy_failed', reason: message };
}

/** A plain TCP connect, to tell "the proxy is down" from "the proxy cannot reach the target". */
function tcpReach(host: string, port: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => done(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    function done(outcome: string) {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    }
    socket.once('connect', () => done('connected'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}
