import { type DnsZoneEntry, startDnsServer } from '@svc/testkit';
import { describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from './node-dns.js';

describe('node:dns backend: questions in flight', () => {
  it('keeps at most maxInFlight questions unanswered at once, and answers all of a burst', async () => {
    // 300 domains asked at once (a batch chunk's domains), every answer 60 ms late: without a cap
    // all 300 reach the server within a few milliseconds.
    const names = Array.from({ length: 300 }, (_, index) => `d${index}.test`);
    const zones: Record<string, DnsZoneEntry> = {};
    for (const name of names) zones[name] = { MX: [{ priority: 10, exchange: `mx.${name}` }] };
    const dns = await startDnsServer({ zones, defaultDelayMs: 60 });
    try {
      const resolver = createNodeDnsResolver({ servers: [dns.address], maxInFlight: 16, tries: 1 });
      const answers = await Promise.all(names.map((name) => resolver.mx(name)));
      expect(answers.every((answer) => answer.records.length === 1)).toBe(true);
      // A question that arrived less than 60 ms after another one was still waiting beside it,
      // so no 50 ms window may hold more arrivals than the cap.
      const arrivals = dns.queries.map((query) => query.at).sort((a, b) => a - b);
      let busiest = 0;
      for (let start = 0, end = 0; end < arrivals.length; end++) {
        while ((arrivals[end] as number) - (arrivals[start] as number) >= 50) start++;
        busiest = Math.max(busiest, end - start + 1);
      }
      expect(arrivals).toHaveLength(300);
      expect(busiest).toBeLessThanOrEqual(16);
    } finally {
      await dns.close();
    }
  });

  it('asks address questions before the MX questions waiting in line', async () => {
    const names = Array.from({ length: 10 }, (_, index) => `d${index}.test`);
    const zones: Record<string, DnsZoneEntry> = { 'mx.test': { A: ['192.0.2.1'] } };
    for (const name of names) zones[name] = { MX: [{ priority: 10, exchange: 'mx.test' }] };
    const dns = await startDnsServer({ zones, defaultDelayMs: 20 });
    try {
      const resolver = createNodeDnsResolver({ servers: [dns.address], maxInFlight: 1, tries: 1 });
      const mx = names.map((name) => resolver.mx(name));
      const address = await resolver.a('mx.test');
      expect(address.records).toEqual(['192.0.2.1']);
      await Promise.all(mx);
      // The first MX question was already on its way; the address question went next.
      expect(dns.queries.map((query) => query.type).indexOf('A')).toBe(1);
    } finally {
      await dns.close();
    }
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => createNodeDnsResolver({ maxInFlight: 0 })).toThrow('maxInFlight must be a positive integer');
  });
});
