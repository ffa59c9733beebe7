// The inputs both server benchmarks send: public addresses to locate, and addresses to verify
// at domains the fake DNS server knows (so every verification is a 200 from a warm DNS cache).

import { DEFAULT_DNS_CANARIES } from '@svc/email-verifier';
import { isPublicIp } from '@svc/geo-resolver';
import type { DnsZoneEntry } from '@svc/testkit';
import { seeded } from '../lib/measure.js';

export const DOMAINS = 100;

/** `shop042.bench-mail.com`: ordinary names, on none of the disposable, free or typo lists. */
export const benchDomain = (index: number) => `shop${String(index).padStart(3, '0')}.bench-mail.com`;

/** MX and A records of the benchmark's domains, with an hour's TTL (the cache stays warm). */
export function benchZones(): Record<string, DnsZoneEntry> {
  const zones: Record<string, DnsZoneEntry> = {};
  for (let index = 0; index < DOMAINS; index++) {
    const domain = benchDomain(index);
    zones[domain] = { MX: [{ priority: 10, exchange: `mx.${domain}` }], ttl: 3600 };
    zones[`mx.${domain}`] = { A: [`93.184.${index}.10`], ttl: 3600 };
  }
  // The verifier's resolver-health canaries (DEFAULT_DNS_CANARIES): a resolver that cannot
  // resolve them is not trusted, and every verification would be a 503 dns_unavailable.
  for (const canary of DEFAULT_DNS_CANARIES) zones[canary] = { A: ['192.0.43.8'], ttl: 3600 };
  return zones;
}

/** `count` distinct public addresses, 85% IPv4 and 15% IPv6, the same every run. */
export function publicAddresses(count: number, seed = 7): string[] {
  const random = seeded(seed);
  const found = new Set<string>();
  while (found.size < count) {
    const ip =
      random() < 0.85
        ? Array.from({ length: 4 }, (_, part) =>
            part === 0 ? 1 + Math.floor(random() * 222) : Math.floor(random() * 256),
          ).join('.')
        : `2${Math.floor(random() * 0xfff)
            .toString(16)
            .padStart(
              3,
              '0',
            )}:${Math.floor(random() * 0xffff).toString(16)}::${Math.floor(random() * 0xffff).toString(16)}`;
    if (isPublicIp(ip)) found.add(ip);
  }
  return [...found];
}

/** `count` addresses spread over the benchmark's domains. */
export function benchEmails(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `user${index}@${benchDomain(index % DOMAINS)}`);
}

/** One hostile request body: the route it is sent to, and the JSON. */
export interface HostileBody {
  path: string;
  body: string;
}

let hostile: readonly HostileBody[] | undefined;

/**
 * The audit's bodies of issue 24 item 2 (the hostile-bodies suite and the server mix send them):
 * JSON under 1 MiB that the old validation walked item by item. Made on first use (2.5 MB).
 */
/**
 * The control for hostileBodies: the same endpoints, each with a small body refused for the same
 * kind of fault (a number for an address, an empty record, an unknown key), read whole and
 * answered 400 by validation. What any refused request costs the server, at the rate the
 * senders manage.
 */
export function smallInvalidBodies(): readonly HostileBody[] {
  return [
    { path: '/v2/verify/email/bulk', body: '{"emails":[1]}' },
    { path: '/v2/batch', body: '{"type":"verify_email","records":[{}]}' },
    { path: '/v2/verify/email', body: '{"email":"a@example.com","k0":0}' },
  ];
}

export function hostileBodies(): readonly HostileBody[] {
  hostile ??= [
    // 500,000 numbers where addresses are expected.
    {
      path: '/v2/verify/email/bulk',
      body: `{"emails":[${Array.from({ length: 500_000 }, () => '1').join(',')}]}`,
    },
    // 300,000 objects where records are expected.
    { path: '/v2/batch', body: `{"type":"verify_email","records":[${Array(300_000).fill('{}').join(',')}]}` },
    // 60,000 unknown keys beside a real field.
    {
      path: '/v2/verify/email',
      body: JSON.stringify({
        email: 'a@example.com',
        ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 0])),
      }),
    },
  ];
  return hostile;
}
