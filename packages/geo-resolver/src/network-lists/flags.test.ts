import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultGeoResolver } from '../data/default-resolver.js';
import type { GeoResolver } from '../resolver.js';

// Addresses taken from the shipped snapshots (data/network-lists/*.txt) and the bundled ASN data,
// with no configuration: the flags work right after install.
describe('flags and network type from the bundled open data', () => {
  let cacheDir: string;
  let resolver: GeoResolver;
  beforeAll(async () => {
    cacheDir = await mkdtemp(join(tmpdir(), 'geo-flags-'));
    resolver = await createDefaultGeoResolver({ cacheDir });
  }, 120_000);
  afterAll(async () => {
    resolver?.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('flags a Tor exit (tor-exits.txt) as Tor and proxy, not hosting by that list', () => {
    const result = resolver.lookup('185.220.101.33');
    expect(result).toMatchObject({ is_tor: true, is_proxy: true, is_vpn: false, is_relay: false });
    expect(result.sources).toMatchObject({
      is_tor: 'tor-exits',
      is_proxy: 'tor-exits',
      is_relay: 'icloud-private-relay',
    });
  });

  it('flags a cloud address (AWS ip-ranges, amazon.txt 3.5.0.0/18) as hosting, never VPN or proxy', () => {
    const result = resolver.lookup('3.5.0.10');
    expect(result).toMatchObject({
      is_hosting: true,
      network_type: 'hosting',
      is_tor: false,
      is_relay: false,
      is_vpn: false,
      is_proxy: false,
    });
    expect(result.sources).toMatchObject({ is_hosting: 'aws', network_type: 'aws', is_tor: 'tor-exits' });
  });

  it('flags an iCloud Private Relay egress (icloud-private-relay.txt 172.225.0.0/27) as a relay, not a VPN or proxy', () => {
    const result = resolver.lookup('172.225.0.5');
    expect(result).toMatchObject({ is_relay: true, is_vpn: false, is_proxy: false, is_tor: false });
    expect(result.sources?.is_relay).toBe('icloud-private-relay');
    // The location stays meaningful: the city data still answers.
    expect(result.country).not.toBeNull();
  });

  it('gives a residential ISP address (Comcast, AS7922) no flag and network_type isp from the ASN table', () => {
    const result = resolver.lookup('73.22.1.5');
    expect(result).toMatchObject({
      asn: 7922,
      network_type: 'isp',
      is_hosting: false,
      is_tor: false,
      is_relay: false,
      is_vpn: false,
      is_proxy: false,
    });
    expect(result.sources).toMatchObject({
      network_type: 'asn-network-types',
      is_hosting: 'asn-network-types',
    });
  });

  it('answers 8.8.8.8 as Google hosting, its network still from the city data', () => {
    const result = resolver.lookup('8.8.8.8');
    expect(result).toMatchObject({ is_hosting: true, network_type: 'hosting', is_tor: false, asn: 15169 });
    expect(result.sources?.is_hosting).toBe('google-cloud');
    expect(result.sources?.network).toBe('dbip-city-lite');
  });

  it('leaves is_hosting and network_type unknown where no source knows the address', () => {
    // AS3333 (RIPE NCC) is in no list and not in the ASN table.
    const result = resolver.lookup('193.0.6.139');
    expect(result).toMatchObject({ is_hosting: null, network_type: null, is_tor: false, is_relay: false });
  });

  it('lists every dataset with its version, licence and attribution', () => {
    const databases = resolver.databases();
    const ids = databases.map((db) => db.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'dbip-city-lite-ipv4',
        'ip-location-db-asn',
        'tor-exits',
        'aws',
        'icloud-private-relay',
      ]),
    );
    for (const db of databases) {
      expect(db.version, db.id).toBeTruthy();
      expect(db.licence, db.id).toBeTruthy();
      expect(db).toHaveProperty('attribution');
    }
    expect(databases.find((db) => db.id === 'dbip-city-lite-ipv4')?.attribution).toContain('DB-IP');
  });
});
