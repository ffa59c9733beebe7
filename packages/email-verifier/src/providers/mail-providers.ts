import { readDataFile } from '../lists/data-files.js';

/** `mailbox`: hosts the mailboxes; `gateway`: a security gateway that filters mail in front of one. */
export const MAIL_PROVIDER_KINDS = ['mailbox', 'gateway'] as const;
export type MailProviderKind = (typeof MAIL_PROVIDER_KINDS)[number];

/** One row of the provider registry (`data/mail-providers.json`). */
export interface MailProvider {
  /** Stable snake_case id, as results and proxy pins name it: `google`, `amazon_ses`, `proofpoint`. */
  id: string;
  kind: MailProviderKind;
  /** A name for people. */
  name: string;
  /**
   * MX host-name patterns: a host matches when it is the pattern or ends with `.` + the pattern;
   * `*` stands for exactly one label (`inbound-smtp.*.amazonaws.com`).
   */
  mx: readonly string[];
  /** Where the host names are documented (or, marked `dns:`, the provider's own published MX). */
  source: string;
}

/** The mail provider and security gateway a domain's MX hosts belong to, each null when unknown. */
export interface MailHostsProvider {
  provider: string | null;
  gateway: string | null;
}

interface Registry {
  providers: readonly MailProvider[];
  byId: ReadonlyMap<string, MailProvider>;
  /** Every pattern as a matcher, the longest first so the most specific pattern wins. */
  matchers: ReadonlyArray<{ test: RegExp; provider: MailProvider }>;
}

let registry: Registry | undefined;

/** The provider registry, read from `data/mail-providers.json` on first use and checked. */
export function mailProviders(): readonly MailProvider[] {
  return loadRegistry().providers;
}

/** The registry's provider ids (both kinds), sorted: what a proxy's `providers` pins may name. */
export function mailProviderIds(): string[] {
  return [...loadRegistry().byId.keys()].sort();
}

/** The registry entry an MX host name belongs to (`aspmx.l.google.com` → google), or null. */
export function mailProviderOf(host: string): MailProvider | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const { test, provider } of loadRegistry().matchers) if (test.test(name)) return provider;
  return null;
}

/** The id of the registry entry an MX host belongs to, of either kind (proxy routing), or null. */
export function mxProvider(host: string): string | null {
  return mailProviderOf(host)?.id ?? null;
}

/**
 * Who answers for a domain, from its MX hosts in the order they would be tried (most preferred
 * first). The gateway is the most preferred host's, when that host belongs to a gateway. The
 * provider is the most preferred host's, when it belongs to a mailbox provider; behind a gateway,
 * the provider of the other hosts when they all name the same one (a backup MX straight to the
 * provider, as gateways' setup guides suggest); otherwise null: a host we do not know, or hosts
 * of several providers, say nothing certain.
 */
export function identifyMailHosts(hosts: readonly string[]): MailHostsProvider {
  const [first, ...rest] = hosts;
  if (first === undefined) return { provider: null, gateway: null };
  const primary = mailProviderOf(first);
  if (primary?.kind === 'mailbox') return { provider: primary.id, gateway: null };
  if (primary?.kind !== 'gateway') return { provider: null, gateway: null };
  const behind = new Set<string>();
  for (const host of rest) {
    const entry = mailProviderOf(host);
    if (entry?.kind === 'mailbox') behind.add(entry.id);
  }
  return { provider: behind.size === 1 ? ([...behind][0] as string) : null, gateway: primary.id };
}

function loadRegistry(): Registry {
  registry ??= buildRegistry(readDataFile('mail-providers.json', Array.isArray));
  return registry;
}

// Labels (or `*` for one label), ending in at least two fixed labels: a wildcard never stands
// for a registrable name (`*.com`).
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PATTERN = new RegExp(`^(?:(?:\\*|${LABEL})\\.)*${LABEL}\\.[a-z][a-z0-9-]*[a-z0-9]$`);

/** Checks the registry's rows (a malformed data file fails loudly, naming the row) and indexes them. */
export function buildRegistry(rows: readonly unknown[]): Registry {
  const byId = new Map<string, MailProvider>();
  const owners = new Map<string, string>();
  const matchers: Array<{ test: RegExp; provider: MailProvider; length: number }> = [];
  rows.forEach((row, index) => {
    const where = `mail-providers.json entries[${index}]`;
    const entry = row as Partial<MailProvider> | null;
    if (typeof entry?.id !== 'string' || !/^[a-z][a-z0-9_]*$/.test(entry.id))
      throw new Error(`${where}: id must be snake_case`);
    if (byId.has(entry.id)) throw new Error(`${where}: id "${entry.id}" appears twice`);
    if (!MAIL_PROVIDER_KINDS.includes(entry.kind as MailProviderKind))
      throw new Error(`${where} (${entry.id}): kind must be one of ${MAIL_PROVIDER_KINDS.join(', ')}`);
    if (typeof entry.name !== 'string' || entry.name === '')
      throw new Error(`${where} (${entry.id}): no name`);
    if (typeof entry.source !== 'string' || entry.source.trim() === '')
      throw new Error(`${where} (${entry.id}): every entry says where its host names come from (source)`);
    if (!Array.isArray(entry.mx) || entry.mx.length === 0)
      throw new Error(`${where} (${entry.id}): mx must list at least one host-name pattern`);
    const provider = Object.freeze({ ...entry, mx: Object.freeze([...entry.mx]) }) as MailProvider;
    for (const pattern of provider.mx) {
      if (typeof pattern !== 'string' || !PATTERN.test(pattern))
        throw new Error(`${where} (${entry.id}): "${String(pattern)}" is not a lowercase host-name pattern`);
      const owner = owners.get(pattern);
      if (owner !== undefined) throw new Error(`${where} (${entry.id}): "${pattern}" is also ${owner}'s`);
      owners.set(pattern, provider.id);
      const body = pattern.replace(/\./g, '\\.').replace(/\*/g, '[a-z0-9-]+');
      matchers.push({ test: new RegExp(`(?:^|\\.)${body}$`), provider, length: pattern.length });
    }
    byId.set(provider.id, provider);
  });
  matchers.sort((a, b) => b.length - a.length);
  return {
    providers: Object.freeze([...byId.values()]),
    byId,
    matchers: matchers.map(({ test, provider }) => ({ test, provider })),
  };
}
