import { describe, expect, it } from 'vitest';
import { checkDomainName } from '../syntax/domain-name.js';
import { DISPOSABLE_LIST_PACKAGE, loadBuiltinLists, readBuiltinLists } from './builtin.js';

describe('built-in lists', () => {
  it('load from disk well under 100 ms (asserted generously at 250 ms against a loaded machine)', () => {
    const lists = readBuiltinLists();
    const started = performance.now();
    const again = readBuiltinLists();
    const secondMs = performance.now() - started;
    // The README quotes these figures.
    console.log(
      `built-in lists: first load ${lists.loadMs.toFixed(1)} ms, second ${secondMs.toFixed(1)} ms ` +
        `(${lists.disposable.size} disposable, ${lists.free.size} free, ${lists.roles.size} roles)`,
    );
    expect(lists.loadMs).toBeLessThan(250);
    expect(again.loadMs).toBeLessThan(250);
  });

  it('are loaded once and shared', () => {
    expect(loadBuiltinLists()).toBe(loadBuiltinLists());
  });

  it('name their source package and version', () => {
    const { sources } = loadBuiltinLists();
    expect(sources.disposable.package).toBe(DISPOSABLE_LIST_PACKAGE);
    expect(sources.disposable.version).toMatch(/^\d+\.\d+\.\d+/);
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

  it('never list a major provider or privacy relay as disposable', () => {
    const { disposable } = loadBuiltinLists();
    for (const real of [
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
