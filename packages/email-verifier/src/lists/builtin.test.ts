import { describe, expect, it } from 'vitest';
import { mailProviders } from '../providers/mail-providers.js';
import { checkDomainName } from '../syntax/domain-name.js';
import { loadBuiltinLists, readBuiltinLists } from './builtin.js';

describe('built-in lists', () => {
  // How long a load takes is watched by the email-disposable benchmark, not asserted here.
  it('read afresh: equal lists in new Sets, with the time the read took', () => {
    const shared = loadBuiltinLists();
    const fresh = readBuiltinLists();
    expect(fresh.disposable).not.toBe(shared.disposable);
    expect([...fresh.disposable]).toEqual([...shared.disposable]);
    expect([...fresh.free]).toEqual([...shared.free]);
    expect([...fresh.roles]).toEqual([...shared.roles]);
    expect(fresh.free.size).toBeGreaterThan(0);
    expect(fresh.roles.size).toBeGreaterThan(0);
    expect(Number.isFinite(fresh.loadMs) && fresh.loadMs > 0).toBe(true);
  });

  it('are loaded once and shared', () => {
    expect(loadBuiltinLists()).toBe(loadBuiltinLists());
  });

  it('name the published lists behind the disposable file, with versions and licences', () => {
    const { sources } = loadBuiltinLists();
    expect(sources.disposable.file).toBe('data/disposable-domains.json');
    expect(sources.disposable.lists.map((list) => [list.package, list.role, list.license])).toEqual([
      ['disposable-email-domains-js', 'curated', 'CC0-1.0'],
      ['mailchecker', 'voter', 'MIT'],
      ['disposable-email-domains', 'voter', 'MIT'],
      ['fakefilter', 'voter', 'BSD-3-Clause'],
    ]);
    for (const list of sources.disposable.lists) expect(list.version, list.package).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('hold thousands of disposable domains, all lowercase valid domain names', () => {
    const { disposable } = loadBuiltinLists();
    expect(disposable.size).toBeGreaterThan(3000);
    for (const known of ['mailinator.com', 'guerrillamail.com', 'yopmail.com', '10minutemail.com']) {
      expect(disposable.has(known), known).toBe(true);
    }
    const invalid = [...disposable].filter(
      (domain) => checkDomainName(domain) !== null || domain !== domain.toLowerCase(),
    );
    expect(invalid).toEqual([]);
  });

  it("never list a mail provider's or gateway's MX domain as disposable", () => {
    const { disposable } = loadBuiltinLists();
    for (const provider of mailProviders())
      for (const pattern of provider.mx) expect(disposable.has(pattern), pattern).toBe(false);
  });

  it('never list a major provider or privacy relay as disposable', () => {
    const { disposable } = loadBuiltinLists();
    for (const real of [
      '33mail.com',
      'addy.io',
      'anonaddy.me',
      'mozmail.com',
      'relay.firefox.com',
      'passmail.net',
      'privaterelay.appleid.com',
      'forwardemail.net',
      'improvmx.com',
      'spamgourmet.com',
      'gmail.com',
      'outlook.com',
      'yahoo.com',
      'proton.me',
      'duck.com',
      'simplelogin.com',
      'gmx.de',
    ]) {
      expect(disposable.has(real), real).toBe(false);
    }
  });

  it('keep free providers and disposable domains apart, with valid entries', () => {
    const { disposable, free } = loadBuiltinLists();
    expect([...free].filter((domain) => disposable.has(domain))).toEqual([]);
    expect([...free].filter((domain) => checkDomainName(domain) !== null)).toEqual([]);
    for (const provider of [
      'gmail.com',
      'yahoo.com',
      'outlook.com',
      'hotmail.com',
      'icloud.com',
      'gmx.de',
      'qq.com',
    ]) {
      expect(free.has(provider), provider).toBe(true);
    }
  });

  it('hold role local parts in lowercase without +tags', () => {
    const { roles } = loadBuiltinLists();
    for (const role of ['admin', 'info', 'support', 'sales', 'noreply', 'no-reply', 'postmaster', 'abuse']) {
      expect(roles.has(role), role).toBe(true);
    }
    expect(
      [...roles].filter((role) => role !== role.toLowerCase() || role.includes('+') || role === ''),
    ).toEqual([]);
  });
});
