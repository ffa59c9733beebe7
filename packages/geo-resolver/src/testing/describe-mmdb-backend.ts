import { createMmdbWriter, mmdbTypes } from '@svc/mmdb-writer';
import { describe, expect, it } from 'vitest';
import type { GeoField } from '../backend.js';
import { openMmdbBackend } from '../backends/mmdb.js';
import { type MmdbSchema, schemaForDatabaseType } from '../backends/mmdb-schemas.js';

/** One vendor layout: how its files are named, and one record in its shape with what it means. */
export interface MmdbLayoutCase {
  databaseType: string;
  schema: MmdbSchema;
  /** A record as the vendor writes it. */
  record: Record<string, unknown>;
  /** What our fields must say for it. */
  expected: Partial<Record<GeoField, unknown>>;
}

/**
 * The conformance suite every mmdb schema passes: a file in the vendor's layout (written with
 * @svc/mmdb-writer) opens with the schema chosen from its metadata, maps the record to the
 * expected fields, reports the network, answers null outside its data and for IPv6 in an IPv4
 * file, and keeps its answers independent of later lookups.
 */
export function describeMmdbBackend(name: string, layout: MmdbLayoutCase): void {
  describe(`mmdb backend conformance: ${name}`, () => {
    const build = (ipVersion: 4 | 6) => {
      const writer = createMmdbWriter({ databaseType: layout.databaseType, ipVersion, recordSize: 28 });
      writer.insert('203.0.113.0/24', layout.record as never);
      if (ipVersion === 6) writer.insert('2001:db8:1::/48', layout.record as never);
      return writer.toBuffer();
    };

    it('is picked from the database_type metadata', () => {
      expect(schemaForDatabaseType(layout.databaseType)).toBe(layout.schema);
    });

    it('maps the vendor record to our fields and reports the network', async () => {
      const backend = await openMmdbBackend({ source: build(6) });
      expect(backend.lookup('203.0.113.7', 4)).toMatchObject({
        ...layout.expected,
        network: '203.0.113.0/24',
      });
      expect(backend.lookup('2001:db8:1::1', 6)).toMatchObject({
        ...layout.expected,
        network: '2001:db8:1::/48',
      });
      for (const field of Object.keys(layout.expected)) expect(layout.schema.provides).toContain(field);
    });

    it('answers null outside its data and for IPv6 in an IPv4-only file', async () => {
      const v6 = await openMmdbBackend({ source: build(6) });
      expect(v6.lookup('198.51.100.1', 4)).toBeNull();
      expect(v6.lookup('2001:db8:2::1', 6)).toBeNull();
      const v4 = await openMmdbBackend({ source: build(4) });
      expect(v4.lookup('203.0.113.7', 4)).not.toBeNull();
      expect(v4.lookup('cb00:7100::', 6)).toBeNull();
    });

    it('returns a fresh object per lookup, so callers cannot corrupt the next answer', async () => {
      const backend = await openMmdbBackend({ source: build(6) });
      const first = backend.lookup('203.0.113.7', 4) as Record<string, unknown>;
      first.city = 'tampered';
      first.asn = -1;
      expect(backend.lookup('203.0.113.8', 4)).toMatchObject(layout.expected);
    });
  });
}

/** A uint32 helper so vendor layouts keep their integer types. */
export const u32 = (value: number) => mmdbTypes.uint32(value);
