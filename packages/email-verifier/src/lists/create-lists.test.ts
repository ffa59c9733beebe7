import { describe, expect, it } from 'vitest';
import { createLists } from './create-lists.js';

describe('createLists: disposable domains', () => {
  const lists = createLists();

  it.each([
    ['mailinator.com', true],
    ['MAILINATOR.COM', true],
    ['x.mailinator.com', true],
    ['a.b.c.mailinator.com', true],
    ['0-mailer.dynv6.net', true],
    ['inbox.0-mailer.dynv6.net', true],
    ['not-mailinator.example', false],
    ['mailinator.com.example.org', false],
    ['dynv6.net', false],
    ['gmail.com', false],
    ['example.co.uk', false],
    ['com', false],
  ])('%s → %s', (domain, expected) => {
    expect(lists.isDisposable(domain)).toBe(expected);
  });

  it('says which entry matched', () => {
    expect(lists.disposableMatch('x.y.mailinator.com')).toEqual({
      entry: 'mailinator.com',
      source: 'builtin',
    });
    expect(lists.disposableMatch('example.com')).toBeNull();
  });

  describe("by MX: where the domain's mail goes", () => {
    const at = (...hosts: Array<[string, number]>) => hosts.map(([host, priority]) => ({ host, priority }));

    it("a domain on no list whose MX is a disposable service's host is disposable", () => {
      expect(lists.isDisposable('brand-new-alias.example')).toBe(false);
      expect(lists.disposableByMailHosts('brand-new-alias.example', at(['mail.mailinator.com', 10]))).toEqual(
        {
          entry: 'mailinator.com',
          source: 'mx',
          host: 'mail.mailinator.com',
        },
      );
    });

    it('every most preferred host must belong to one; backups do not count', () => {
      expect(
        lists.disposableByMailHosts('a.example', at(['mail.mailinator.com', 10], ['mx.a.example', 10])),
      ).toBeNull();
      expect(
        lists.disposableByMailHosts('a.example', at(['mx.a.example', 10], ['mail.mailinator.com', 20])),
      ).toBeNull();
      expect(
        lists.disposableByMailHosts('a.example', at(['mx2.mailinator.com', 10], ['mx.a.example', 20])),
      ).toMatchObject({ source: 'mx', host: 'mx2.mailinator.com' });
      expect(lists.disposableByMailHosts('a.example', [])).toBeNull();
    });

    it('a mail provider, gateway or free provider host is never a disposable service', () => {
      // Even when a user lists the provider's domain as disposable.
      const wrong = createLists({ extraDisposable: ['google.com', 'gmx.net', 'yahoo.com'] });
      expect(wrong.disposableByMailHosts('a.example', at(['aspmx.l.google.com', 1]))).toBeNull();
      expect(wrong.disposableByMailHosts('a.example', at(['mx00.emig.gmx.net', 1]))).toBeNull();
      expect(wrong.disposableByMailHosts('a.example', at(['mx.yahoo.com', 1]))).toBeNull();
    });

    it('allowDomains beats it, denyDomains answers first', () => {
      const overridden = createLists({ allowDomains: ['partner.example'], denyDomains: ['burner.example'] });
      expect(
        overridden.disposableByMailHosts('x.partner.example', at(['mail.mailinator.com', 10])),
      ).toBeNull();
      expect(overridden.disposableByMailHosts('burner.example', at(['mx.burner.example', 10]))).toEqual({
        entry: 'burner.example',
        source: 'deny',
      });
    });

    it('extraDisposable entries count as services too', () => {
      const extra = createLists({ extraDisposable: ['throwaway-service.example'] });
      expect(
        extra.disposableByMailHosts('alias.example', at(['in.throwaway-service.example', 5])),
      ).toMatchObject({ entry: 'throwaway-service.example', source: 'mx' });
    });
  });

  it('never matches on a public suffix, even when one is listed', () => {
    const withSuffix = createLists({ extraDisposable: ['co.uk'] });
    expect(withSuffix.isDisposable('example.co.uk')).toBe(false);
    expect(withSuffix.isDisposable('a.example.co.uk')).toBe(false);
    // Only an exact match can hit it.
    expect(withSuffix.isDisposable('co.uk')).toBe(true);
  });

  it('matches a listed subdomain and its children but not its parent', () => {
    const custom = createLists({ extraDisposable: ['temp.example.net'] });
    expect(custom.disposableMatch('a.temp.example.net')).toEqual({
      entry: 'temp.example.net',
      source: 'extra',
    });
    expect(custom.isDisposable('example.net')).toBe(false);
    expect(custom.isDisposable('other.example.net')).toBe(false);
  });
});

describe('createLists: allow and deny overrides', () => {
  it('allowDomains beats the built-in list for the domain and its subdomains', () => {
    const lists = createLists({ allowDomains: ['mailinator.com'] });
    expect(lists.isDisposable('mailinator.com')).toBe(false);
    expect(lists.isDisposable('x.mailinator.com')).toBe(false);
    expect(lists.isDisposable('yopmail.com')).toBe(true);
  });

  it('allowDomains on a parent beats a more specific built-in or extra entry', () => {
    const lists = createLists({ allowDomains: ['example.org'], extraDisposable: ['temp.example.org'] });
    expect(lists.isDisposable('temp.example.org')).toBe(false);
    expect(lists.isDisposable('a.temp.example.org')).toBe(false);
  });

  it('denyDomains marks a domain and its subdomains disposable', () => {
    const lists = createLists({ denyDomains: ['throwaway.example'] });
    expect(lists.disposableMatch('throwaway.example')).toEqual({
      entry: 'throwaway.example',
      source: 'deny',
    });
    expect(lists.isDisposable('x.throwaway.example')).toBe(true);
    expect(lists.isDisposable('example.com')).toBe(false);
  });

  it('the more specific of allow and deny wins', () => {
    const lists = createLists({ allowDomains: ['example.com'], denyDomains: ['temp.example.com'] });
    expect(lists.isDisposable('example.com')).toBe(false);
    expect(lists.isDisposable('www.example.com')).toBe(false);
    expect(lists.isDisposable('temp.example.com')).toBe(true);
    expect(lists.isDisposable('x.temp.example.com')).toBe(true);

    const reversed = createLists({ denyDomains: ['example.com'], allowDomains: ['safe.example.com'] });
    expect(reversed.isDisposable('x.example.com')).toBe(true);
    expect(reversed.isDisposable('x.safe.example.com')).toBe(false);
  });

  it('refuses the same domain in both lists', () => {
    expect(() => createLists({ allowDomains: ['example.com'], denyDomains: ['EXAMPLE.com'] })).toThrow(
      /"example.com" is in both allowDomains and denyDomains/,
    );
  });

  it('normalises entries: case and IDN', () => {
    const lists = createLists({ denyDomains: ['Bücher.DE'] });
    expect(lists.isDisposable('xn--bcher-kva.de')).toBe(true);
    expect(lists.sizes.deny).toBe(1);
  });

  it.each([
    [{ allowDomains: ['not a domain'] }, /allowDomains\[0\]: "not a domain" is not a valid domain/],
    [
      { denyDomains: ['ok.com', 'bad..com'] },
      /denyDomains\[1\]: "bad..com" is not a valid domain: .*consecutive dots/,
    ],
    [{ extraDisposable: ['*.example.com'] }, /extraDisposable\[0\]: .*wildcard/],
    [{ extraFree: ['user@example.com'] }, /extraFree\[0\]: .*is an address, not a domain/],
    [{ extraFree: [''] }, /extraFree\[0\]: the entry is empty/],
    [{ extraFree: [42 as unknown as string] }, /extraFree\[0\]: expected a domain string, got number/],
    [{ allowDomains: 'example.com' as unknown as string[] }, /allowDomains must be an array/],
    [{ extraRoles: ['sales+eu'] }, /extraRoles\[0\]: .*\+tags are removed/],
    [{ extraRoles: ['a b'] }, /extraRoles\[0\]: "a b" is not a valid local part/],
    [{ extraRoles: ['"quoted"'] }, /quoted local parts cannot be listed/],
  ])('rejects a bad entry: %j', (options, message) => {
    expect(() => createLists(options)).toThrow(TypeError);
    expect(() => createLists(options)).toThrow(message);
  });
});

describe('createLists: free providers', () => {
  const lists = createLists({ extraFree: ['mail.example'] });

  it.each([
    ['gmail.com', true],
    ['GMail.com', true],
    ['yahoo.co.uk', true],
    ['outlook.com', true],
    ['mail.example', true],
    ['eu.mail.example', true],
    ['example.com', false],
    ['mailinator.com', false],
  ])('%s → %s', (domain, expected) => {
    expect(lists.isFree(domain)).toBe(expected);
  });
});

describe('createLists: role accounts', () => {
  const lists = createLists({ extraRoles: ['Accounts-Payable'] });

  it.each([
    ['admin', true],
    ['ADMIN', true],
    ['Info', true],
    ['support+tickets', true],
    ['Sales+EU+2024', true],
    ['no-reply', true],
    ['noreply', true],
    ['postmaster', true],
    ['"abuse"', true],
    ['accounts-payable', true],
    ['ACCOUNTS-PAYABLE+x', true],
    ['jane.doe', false],
    ['adminjane', false],
    ['+admin', false],
    ['jane+admin', false],
  ])('%s → %s', (local, expected) => {
    expect(lists.isRole(local)).toBe(expected);
  });

  it('counts entries', () => {
    const base = createLists();
    expect(lists.sizes.roles).toBe(base.sizes.roles + 1);
    expect(lists.sizes.free).toBe(base.sizes.free);
    expect(base.sizes.disposable).toBeGreaterThan(3000);
  });
});
