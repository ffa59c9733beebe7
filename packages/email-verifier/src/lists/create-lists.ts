import { mailProviderOf } from '../providers/mail-providers.js';
import { lowerDomain } from '../syntax/char-classes.js';
import { type BuiltinLists, loadBuiltinLists } from './builtin.js';
import { findInChain } from './domain-chain.js';
import { type EntryResult, normalizeDomainEntry, normalizeRoleEntry } from './entries.js';

/** User additions and overrides on top of the built-in lists. */
export interface ListsOptions {
  /**
   * Domains that are never disposable, with all their subdomains. They beat the built-in list and
   * `extraDisposable`; against `denyDomains` the more specific entry wins.
   * @default []
   */
  allowDomains?: Iterable<string>;
  /**
   * Domains that are always disposable, with all their subdomains. They beat `allowDomains` when
   * more specific (deny `temp.example.com` inside allowed `example.com`); the same domain in both
   * lists is a configuration error.
   * @default []
   */
  denyDomains?: Iterable<string>;
  /**
   * More disposable domains, treated exactly like the built-in list (so `allowDomains` beats
   * them). Use it to feed a refreshed list, e.g. from loadDomainListFile.
   * @default []
   */
  extraDisposable?: Iterable<string>;
  /** More free-provider domains (with subdomains). @default [] */
  extraFree?: Iterable<string>;
  /** More role local parts, matched case-insensitively without their +tag. @default [] */
  extraRoles?: Iterable<string>;
}

/** Why a domain counts as disposable. */
export interface DisposableMatch {
  /**
   * The list entry that matched: the domain itself or one of its parents; for `mx`, the entry
   * that the MX host belongs to (`mailinator.com` for `mail.mailinator.com`).
   */
  entry: string;
  /**
   * `builtin`: the shipped list; `extra`: extraDisposable; `deny`: denyDomains; `mx`: the
   * domain's mail goes to the MX hosts of a listed disposable domain.
   */
  source: 'builtin' | 'extra' | 'deny' | 'mx';
  /** For `mx`: the MX host that belongs to the disposable service. */
  host?: string;
}

/** An MX host with its preference, as DNS gives it. */
export interface PreferredHost {
  host: string;
  priority: number;
}

/** Lookups against the built-in lists plus the user's additions and overrides. */
export interface EmailLists {
  /** True when the domain or a parent (down to the registrable domain) is disposable. */
  isDisposable(domain: string): boolean;
  /** The entry that makes the domain disposable, or null (also null when an allow entry wins). */
  disposableMatch(domain: string): DisposableMatch | null;
  /**
   * Disposable by where its mail goes: the most preferred MX hosts (every host at the lowest
   * preference) all belong to a disposable domain of the lists (`mail.mailinator.com` is under
   * `mailinator.com`), none to a known mail provider or gateway (data/mail-providers.json) or a
   * free provider. Catches a new alias domain of a disposable service before any list has it.
   * allowDomains and denyDomains decide first, as for disposableMatch. Null when not.
   */
  disposableByMailHosts(domain: string, hosts: readonly PreferredHost[]): DisposableMatch | null;
  /** True when the domain or a parent (down to the registrable domain) is a free provider. */
  isFree(domain: string): boolean;
  /** True when the local part names a role (`Sales+eu` → `sales`); quotes are ignored. */
  isRole(localPart: string): boolean;
  /** Entry counts, for logs. */
  readonly sizes: { disposable: number; free: number; roles: number; allow: number; deny: number };
}

type Override = 'allow' | 'deny';
const EMPTY: ReadonlySet<string> = new Set();

/**
 * Lists for classification: the built-in disposable, free-provider and role lists (loaded once
 * per process) plus the given additions and overrides. Throws a TypeError naming the bad entry
 * when an option holds something that is not a domain (or local part).
 */
export function createLists(options: ListsOptions = {}): EmailLists {
  const builtin: BuiltinLists = loadBuiltinLists();
  const overrides = new Map<string, Override>();
  for (const domain of collect('allowDomains', options.allowDomains, normalizeDomainEntry))
    overrides.set(domain, 'allow');
  for (const domain of collect('denyDomains', options.denyDomains, normalizeDomainEntry)) {
    if (overrides.get(domain) === 'allow') {
      throw new TypeError(`"${domain}" is in both allowDomains and denyDomains; keep it in one of them`);
    }
    overrides.set(domain, 'deny');
  }
  const extraDisposable = toSet(collect('extraDisposable', options.extraDisposable, normalizeDomainEntry));
  const extraFree = toSet(collect('extraFree', options.extraFree, normalizeDomainEntry));
  const extraRoles = toSet(collect('extraRoles', options.extraRoles, normalizeRoleEntry));
  const allowCount = [...overrides.values()].filter((kind) => kind === 'allow').length;
  // An empty extra list is left out of the lookups rather than asked on every address.
  const disposableExtra = extraDisposable.size > 0 ? extraDisposable : undefined;
  const freeExtra = extraFree.size > 0 ? extraFree : undefined;

  const disposableMatch = (input: string): DisposableMatch | null => {
    const domain = lowerDomain(input);
    // User overrides first, most specific entry winning, so an allow entry anywhere in the chain
    // beats the lists; then the built-in list and extraDisposable.
    if (overrides.size > 0) {
      const entry = findInChain(domain, overrides);
      if (entry !== null) return overrides.get(entry) === 'deny' ? { entry, source: 'deny' } : null;
    }
    const entry = findInChain(domain, builtin.disposable, disposableExtra);
    if (entry === null) return null;
    return { entry, source: builtin.disposable.has(entry) ? 'builtin' : 'extra' };
  };

  const disposableByMailHosts = (input: string, hosts: readonly PreferredHost[]): DisposableMatch | null => {
    if (hosts.length === 0) return null;
    if (overrides.size > 0) {
      const entry = findInChain(lowerDomain(input), overrides);
      if (entry !== null) return overrides.get(entry) === 'deny' ? { entry, source: 'deny' } : null;
    }
    const best = Math.min(...hosts.map((host) => host.priority));
    let match: DisposableMatch | null = null;
    for (const { host, priority } of hosts) {
      if (priority !== best) continue;
      const name = lowerDomain(host);
      if (mailProviderOf(name) !== null || findInChain(name, builtin.free, freeExtra) !== null) return null;
      const entry = findInChain(name, builtin.disposable, disposableExtra);
      if (entry === null) return null;
      match ??= { entry, source: 'mx', host: name };
    }
    return match;
  };

  return {
    isDisposable: (domain) => disposableMatch(domain) !== null,
    disposableMatch,
    disposableByMailHosts,
    isFree: (domain) => findInChain(lowerDomain(domain), builtin.free, freeExtra) !== null,
    isRole(localPart) {
      let local = localPart;
      if (local.length > 1 && local.startsWith('"') && local.endsWith('"')) local = local.slice(1, -1);
      const plus = local.indexOf('+');
      if (plus !== -1) local = local.slice(0, plus);
      local = local.toLowerCase();
      return builtin.roles.has(local) || extraRoles.has(local);
    },
    sizes: {
      disposable: builtin.disposable.size + extraDisposable.size,
      free: builtin.free.size + extraFree.size,
      roles: builtin.roles.size + extraRoles.size,
      allow: allowCount,
      deny: overrides.size - allowCount,
    },
  };
}

function toSet(values: string[]): ReadonlySet<string> {
  return values.length === 0 ? EMPTY : new Set(values);
}

function collect(
  option: string,
  values: Iterable<string> | undefined,
  normalize: (value: unknown) => EntryResult,
): string[] {
  if (values === undefined) return [];
  if (typeof values === 'string' || typeof (values as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new TypeError(`${option} must be an array (or other iterable) of strings`);
  }
  const out: string[] = [];
  let index = 0;
  for (const value of values) {
    const result = normalize(value);
    if (!result.ok) throw new TypeError(`${option}[${index}]: ${result.detail}`);
    out.push(result.value);
    index++;
  }
  return out;
}
