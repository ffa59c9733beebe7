import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { createMmdbWriter, mmdbTypes } from './index.js';
import { sectionSizes } from './testing/fixtures.js';
import { mmdblookup, noMmdblookup, tempDir } from './testing/mmdblookup.js';
import { decodeField, decodePointer } from './testing/spec-decoder.js';

const temp = tempDir();
afterAll(() => temp.cleanup());

function sizes(buffer: Buffer) {
  const { nodeCount, recordSize } = new Reader<never>(buffer).metadata;
  return sectionSizes(buffer, nodeCount, recordSize);
}

function occurrences(buffer: Buffer, text: string): number {
  let count = 0;
  for (let at = buffer.indexOf(text); at !== -1; at = buffer.indexOf(text, at + 1)) count++;
  return count;
}

const cityRecord = () => ({
  city: { geoname_id: 2_643_743, names: { en: 'London', de: 'London', ru: 'Лондон' } },
  country: { iso_code: 'GB', names: { en: 'United Kingdom' } },
  location: { latitude: 51.5142, longitude: -0.0931, time_zone: 'Europe/London' },
});

describe('data section deduplication', () => {
  it('1,000 networks sharing one record have the same data section as one network', () => {
    const one = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    one.insert('10.0.0.0/24', cityRecord());
    const thousand = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    // A fresh, equal object each time: deduplication is by value, not by identity.
    for (let i = 0; i < 1000; i++) thousand.insert(`10.${i >> 8}.${i & 255}.0/24`, cityRecord());
    const oneBuffer = one.toBuffer();
    const thousandBuffer = thousand.toBuffer();
    expect(sizes(thousandBuffer).data).toBe(sizes(oneBuffer).data);
    expect(sizes(oneBuffer).data).toBeGreaterThan(100);
    const reader = new Reader<never>(thousandBuffer);
    expect(reader.get('10.3.231.1')).toEqual(cityRecord());
    expect(reader.get('10.3.232.1')).toBeNull();
  });

  it('stores repeated strings, keys and nested maps once and points to them', () => {
    const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    for (let i = 0; i < 200; i++) {
      writer.insert(`10.0.${i}.0/24`, {
        id: i,
        a_rather_long_key_name: 'The Federal Republic of Germany',
        names: { en: 'Germany', de: 'Deutschland' },
      });
    }
    const buffer = writer.toBuffer();
    expect(occurrences(buffer, 'The Federal Republic of Germany')).toBe(1);
    expect(occurrences(buffer, 'a_rather_long_key_name')).toBe(1);
    expect(occurrences(buffer, 'Deutschland')).toBe(1);
    const reader = new Reader<never>(buffer);
    expect(reader.get('10.0.199.1')).toEqual({
      id: 199,
      a_rather_long_key_name: 'The Federal Republic of Germany',
      names: { en: 'Germany', de: 'Deutschland' },
    });
  });

  it('uses pointers into the first copy, never pointers to pointers', () => {
    const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    writer.insert('10.0.0.0/24', { shared: { deep: 'a string long enough to point at' } });
    writer.insert('10.0.1.0/24', { other: 1, shared: { deep: 'a string long enough to point at' } });
    const buffer = writer.toBuffer();
    const { tree, data } = sizes(buffer);
    const start = tree + 16;
    // Walk the second record by hand: its "shared" value must be a pointer to the first copy.
    const section = buffer.subarray(start, start + data);
    const first = decodeField(section, 0);
    const second = decodeField(section, first.next);
    expect(second.decoded.type).toBe('map');
    let offset = first.next + 1; // past the map's control byte
    for (let pair = 0; pair < 2; pair++) {
      const key = decodeField(section, offset);
      const value = decodeField(section, key.next);
      if (key.decoded.value === 'shared') {
        expect(value.pointer).toBeDefined();
        expect(decodePointer(section, key.next).target).toBe(value.pointer);
      }
      offset = value.next;
    }
    expect(offset).toBe(data);
  });

  it.skipIf(noMmdblookup)('keeps values of different types apart', async () => {
    const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    writer.insert('10.0.0.0/24', { n: mmdbTypes.uint16(1), d: mmdbTypes.double(0) });
    writer.insert('10.0.1.0/24', { n: mmdbTypes.uint32(1), d: mmdbTypes.double(-0) });
    writer.insert('10.0.2.0/24', { n: 1n, d: 0 });
    const buffer = writer.toBuffer();
    const file = temp.write('types-apart.mmdb', buffer);
    expect(await mmdblookup(file, '10.0.0.1')).toEqual({ n: '1 <uint16>', d: '0.000000 <double>' });
    expect(await mmdblookup(file, '10.0.1.1')).toEqual({ n: '1 <uint32>', d: '-0.000000 <double>' });
    expect(await mmdblookup(file, '10.0.2.1')).toEqual({ n: '1 <uint64>', d: '0 <uint16>' });
    expect(Object.is(new Reader<never>(buffer).get('10.0.1.1')!['d' as never], -0)).toBe(true);
  });

  it.skipIf(noMmdblookup)('reaches values beyond 512 KiB with the longer pointer forms', async () => {
    const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4, recordSize: 24 });
    const shared = { label: 'shared after the first 600 KB', list: [1, 2, 3] };
    const count = 4000;
    for (let i = 0; i < count; i++) {
      const unique = `${i}`.padStart(300, '#');
      writer.insert(`10.${i >> 8}.${i & 255}.0/24`, i < count / 2 ? { unique } : { unique, shared });
    }
    const buffer = writer.toBuffer();
    expect(sizes(buffer).data).toBeGreaterThan(1_000_000);
    expect(occurrences(buffer, 'shared after the first 600 KB')).toBe(1);
    const reader = new Reader<never>(buffer);
    const file = temp.write('far-pointers.mmdb', buffer);
    for (const i of [0, count / 2, count - 1]) {
      const ip = `10.${i >> 8}.${i & 255}.1`;
      const unique = `${i}`.padStart(300, '#');
      expect(reader.get(ip)).toEqual(i < count / 2 ? { unique } : { unique, shared });
      const typed = await mmdblookup(file, ip);
      if (i >= count / 2) {
        expect(typed).toMatchObject({ shared: { label: '"shared after the first 600 KB" <utf8_string>' } });
      }
    }
  });
});
