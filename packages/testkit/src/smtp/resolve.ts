import type { SmtpDropRule, SmtpRcptAction, SmtpReplySpec, SmtpScript, SmtpStage } from './script.js';

/** A host's script with every default filled in; built once per host by {@link resolveScript}. */
export interface ResolvedScript {
  hostname: string;
  greeting: 'ok' | 'busy' | 'blocked' | SmtpReplySpec;
  banner: readonly string[];
  ehlo: 'ok' | 'reject' | SmtpReplySpec;
  ehloGreeting: string;
  helo: 'ok' | 'reject' | SmtpReplySpec;
  extensions: readonly string[];
  tls: 'offer' | 'require' | 'none' | 'broken';
  mailFrom: 'accept' | 'blocked' | 'drop' | SmtpReplySpec;
  mailboxes: Readonly<Record<string, SmtpRcptAction>>;
  domains: Readonly<Record<string, SmtpRcptAction>>;
  defaultRcpt: SmtpRcptAction;
  maxRcptsPerSession: number;
  replyDelayMs: (stage: SmtpStage) => number;
  replyDelayModel: 'service' | 'latency';
  drop: SmtpDropRule | undefined;
}

export const DEFAULT_HOSTNAME = 'mx.test';
export const DEFAULT_EXTENSIONS: readonly string[] = [
  'PIPELINING',
  'SIZE 10240000',
  'ENHANCEDSTATUSCODES',
  '8BITMIME',
  'SMTPUTF8',
];

/**
 * Layers a host's own script over the fleet-wide one: plain fields are replaced, the mailbox and
 * domain tables are merged entry by entry (the host's entry wins), then defaults fill the rest.
 * Both inputs must already be validated.
 */
export function resolveScript(base: SmtpScript, own: SmtpScript): ResolvedScript {
  const s: SmtpScript = { ...base, ...own };
  const hostname = s.hostname ?? DEFAULT_HOSTNAME;
  const delay = s.replyDelayMs ?? 0;
  return {
    hostname,
    greeting: s.greeting ?? 'ok',
    banner: typeof s.banner === 'string' ? [s.banner] : (s.banner ?? [`${hostname} ESMTP testkit`]),
    ehlo: s.ehlo ?? 'ok',
    ehloGreeting: s.ehloGreeting ?? hostname,
    helo: s.helo ?? 'ok',
    extensions: s.extensions ?? DEFAULT_EXTENSIONS,
    tls: s.tls ?? 'offer',
    mailFrom: s.mailFrom ?? 'accept',
    mailboxes: { ...base.mailboxes, ...own.mailboxes },
    domains: { ...base.domains, ...own.domains },
    defaultRcpt: s.defaultRcpt ?? 'unknown',
    maxRcptsPerSession: s.maxRcptsPerSession ?? Number.POSITIVE_INFINITY,
    replyDelayMs: typeof delay === 'number' ? () => delay : (stage) => delay[stage] ?? 0,
    replyDelayModel: s.replyDelayModel ?? 'service',
    drop: s.drop,
  };
}

/** The action for one recipient: its mailbox entry, else its domain's, else the default. */
export function rcptActionFor(script: ResolvedScript, address: string): SmtpRcptAction {
  const key = address.toLowerCase();
  const mailbox = script.mailboxes[key];
  if (mailbox !== undefined) return mailbox;
  const at = key.lastIndexOf('@');
  const domain = at >= 0 ? script.domains[key.slice(at + 1)] : undefined;
  return domain ?? script.defaultRcpt;
}
