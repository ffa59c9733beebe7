import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { METADATA_MARKER } from './build.js';
import { createMmdbWriter } from './index.js';
import { mmdblookupMetadata, noMmdblookup, tempDir } from './testing/mmdblookup.js';
import { decodeField, typedPlain } from './testing/spec-decoder.js';

const temp = tempDir();
afterAll(() => temp.cleanup());

function writeSample(buildEpoch: Date | number | bigint | undefined) {
  const writer = createMmdbWriter({
    databaseType: 'svc-Test-City',
    ipVersion: 6,
    recordSize: 24,
    languages: ['en', 'de', 'zh-CN'],
    description: { en: 'A test database', de: 'Eine Testdatenbank' },
    buildEpoch,
  });
  writer.insert('1.2.3.0/24', { a: 1 });
  writer.insert('2001:db8::/32', { b: 2 });
  return writer.toBuffer();
}

describe('metadata', () => {
  const buffer = writeSample(1_700_000_000);
  const reader = new Reader<never>(buffer);

  it('is what the maxmind reader reports', () => {
    const { metadata } = reader;
    expect(metadata.databaseType).toBe('svc-Test-City');
    expect(metadata.description).toEqual({ en: 'A test database', de: 'Eine Testdatenbank' });
    expect(metadata.languages).toEqual(['en', 'de', 'zh-CN']);
    expect(metadata.recordSize).toBe(24);
    expect(metadata.ipVersion).toBe(6);
    expect(metadata.binaryFormatMajorVersion).toBe(2);
    expect(metadata.binaryFormatMinorVersion).toBe(0);
    expect(metadata.buildEpoch).toEqual(new Date(1_700_000_000 * 1000));
    // The file is exactly tree + separator + data + marker + metadata, so nodeCount must be right.
    expect(metadata.searchTreeSize).toBe(metadata.nodeCount * 6);
    expect(buffer.subarray(metadata.searchTreeSize, metadata.searchTreeSize + 16)).toEqual(Buffer.alloc(16));
    expect(metadata.nodeCount).toBeGreaterThan(96);
  });

  it('uses the exact types libmaxminddb requires', () => {
    const at = buffer.lastIndexOf(METADATA_MARKER) + METADATA_MARKER.length;
    const field = decodeField(buffer, at, at);
    expect(field.next).toBe(buffer.length);
    expect(typedPlain(field.decoded)).toEqual({
      node_count: `uint32:${reader.metadata.nodeCount}`,
      record_size: 'uint16:24',
      ip_version: 'uint16:6',
      database_type: 'utf8_string:svc-Test-City',
      languages: ['utf8_string:en', 'utf8_string:de', 'utf8_string:zh-CN'],
      binary_format_major_version: 'uint16:2',
      binary_format_minor_version: 'uint16:0',
      build_epoch: 'uint64:1700000000',
      description: { en: 'utf8_string:A test database', de: 'utf8_string:Eine Testdatenbank' },
    });
  });

  it.skipIf(noMmdblookup)('is what mmdblookup (libmaxminddb) reports', async () => {
    const file = temp.write('metadata.mmdb', buffer);
    const fields = await mmdblookupMetadata(file, '1.2.3.4');
    expect(fields).toMatchObject({
      'Node count': String(reader.metadata.nodeCount),
      'Record size': '24 bits',
      'IP version': 'IPv6',
      'Binary format': '2.0',
      'Build epoch': '1700000000 (2023-11-14 22:13:20 UTC)',
      Type: 'svc-Test-City',
      Languages: 'en de zh-CN',
    });
  });

  it.each([
    [
      'a Date (rounded down to seconds)',
      new Date('2024-05-01T12:00:00.900Z'),
      new Date('2024-05-01T12:00:00Z'),
    ],
    ['a bigint', 1_714_564_800n, new Date('2024-05-01T12:00:00Z')],
    ['zero', 0, new Date(0)],
  ])('takes buildEpoch as %s', (_label, input, expected) => {
    expect(new Reader<never>(writeSample(input)).metadata.buildEpoch).toEqual(expected);
  });

  it('defaults buildEpoch to the time of toBuffer()', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const epoch = new Reader<never>(writeSample(undefined)).metadata.buildEpoch.getTime();
    expect(epoch).toBeGreaterThanOrEqual(before);
    expect(epoch).toBeLessThanOrEqual(Date.now());
  });

  it('defaults to an IPv6 tree with 28-bit records and empty languages/description', () => {
    const writer = createMmdbWriter({ databaseType: 'Defaults' });
    writer.insert('1.2.3.0/24', 'x');
    const { metadata } = new Reader<never>(writer.toBuffer());
    expect(metadata).toMatchObject({ ipVersion: 6, recordSize: 28, languages: [], description: {} });
  });
});
