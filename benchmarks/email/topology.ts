// The synthetic mail world both SMTP benchmarks verify against: domains spread over a few MX
// hosts (as shared hosting and the big providers concentrate them), some catch-all, most
// mailboxes existing, addresses shuffled so consecutive ones rarely share a domain.
import type { DnsZoneEntry, DnsZones, SmtpRcptAction } from '@svc/testkit';
import { seeded } from '../lib/measure.js';

/** Every 10th domain accepts any recipient (catch-all). */
export const CATCH_ALL_EVERY = 10;
/** Share of addresses whose mailbox exists (the rest get 550 5.1.1). */
export const EXISTING_SHARE = 0.8;

/** What to build. */
export interface TopologyShape {
  addresses: number;
  domains: number;
  /** MX host addresses (IP literals on loopback); domain i uses host i mod hosts.length. */
  hosts: string[];
  seed?: number;
}

/** The addresses to verify and what the fake DNS and MTAs must serve for them. */
export interface Topology {
  addresses: string[];
  zones: DnsZones;
  mailboxes: Record<string, SmtpRcptAction>;
  domains: Record<string, SmtpRcptAction>;
}

export const domainName = (index: number) => `company${String(index).padStart(3, '0')}.example.com`;

/** Builds the topology deterministically (same seed, same world). */
export function buildTopology(shape: TopologyShape): Topology {
  const random = seeded(shape.seed ?? 25);
  const zones: Record<string, DnsZoneEntry> = {};
  const domains: Record<string, SmtpRcptAction> = {};
  for (let index = 0; index < shape.domains; index++) {
    const exchange = shape.hosts[index % shape.hosts.length] as string;
    zones[domainName(index)] = { MX: [{ priority: 10, exchange }] };
    if (index % CATCH_ALL_EVERY === 0) domains[domainName(index)] = 'accept';
  }
  // Our verifier resolves MX names through its DNS backend, so each IP-literal name gets an A record.
  for (const host of shape.hosts) zones[host] = { A: [host] };
  const mailboxes: Record<string, SmtpRcptAction> = {};
  const addresses: string[] = [];
  for (let index = 0; index < shape.addresses; index++) {
    const address = `user${index}.${Math.floor(random() * 1e6)}@${domainName(index % shape.domains)}`;
    if (random() < EXISTING_SHARE) mailboxes[address] = 'accept';
    addresses.push(address);
  }
  for (let index = addresses.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [addresses[index], addresses[other]] = [addresses[other] as string, addresses[index] as string];
  }
  return { addresses, zones, mailboxes, domains };
}

/**
 * The least time any client can take under the politeness limits: each MX answers every reply
 * after `replyDelayMs`, at most `perMx` sessions per MX and `global` sessions overall are open, a
 * session carries at most `rcptsPerSession` RCPTs plus `fixedReplies` other replies, and every
 * domain costs one extra RCPT (the catch-all question). Sessions are counted as if recipients of
 * different domains on one MX could share them, which keeps it a true lower bound.
 */
export function verificationFloor(options: {
  addresses: number;
  domains: number;
  mxHosts: number;
  rcptsPerSession: number;
  fixedReplies: number;
  replyDelayMs: number;
  perMx: number;
  global: number;
  /** Replies are network latency and the client pipelines: MAIL + a session's RCPTs cost one round trip. */
  pipelined?: boolean;
}): {
  seconds: number;
  rcptsPerMx: number;
  sessionsPerMx: number;
  repliesPerMx: number;
  connections: number;
} {
  const rcptsPerMx =
    Math.ceil(options.addresses / options.mxHosts) + Math.ceil(options.domains / options.mxHosts);
  const sessionsPerMx = Math.ceil(rcptsPerMx / options.rcptsPerSession);
  // Pipelined, MAIL FROM and all of a session's RCPTs share one round trip (RFC 2920 §3.1), so
  // a session costs its fixed replies (MAIL among them) and nothing per recipient.
  const repliesPerMx = options.pipelined
    ? sessionsPerMx * options.fixedReplies
    : sessionsPerMx * options.fixedReplies + rcptsPerMx;
  const perMxSeconds = (repliesPerMx * options.replyDelayMs) / 1000 / options.perMx;
  const connections = Math.min(options.global, options.perMx * options.mxHosts);
  const globalSeconds = (repliesPerMx * options.mxHosts * options.replyDelayMs) / 1000 / connections;
  return {
    seconds: Math.max(perMxSeconds, globalSeconds),
    rcptsPerMx,
    sessionsPerMx,
    repliesPerMx,
    connections,
  };
}
