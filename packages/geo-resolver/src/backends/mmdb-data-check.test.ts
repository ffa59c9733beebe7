import { createMmdbWriter, type MmdbMap, mmdbTypes } from '@svc/mmdb-writer';
import { describe, expect, it } from 'vitest';
import { testDatabase } from '../testing/fixtures.js';
import { openMmdbBackend } from './mmdb.js';
import { maxmindCitySchema } from './mmdb-schemas.js';

/** A one-record file, and the position of `marker` (a field's encoded bytes) in it. */
function fileWith(record: MmdbMap, marker: number[] = []): { bytes: Buffer; at: number } {
  const writer = createMmdbWriter({ databaseType: 'GeoIP2-City', ipVersion: 4, recordSize: 24 });
  writer.insert('1.2.3.0/24', record);
  const bytes = writer.toBuffer();
  const at = bytes.indexOf(Buffer.from(marker));
  if (at < 0) throw new Error('marker not found');
  return { bytes, at };
}

const open = (source: Buffer) => openMmdbBackend({ source, schema: maxmindCitySchema });

describe('data section type and size rules', () => {
  it("refuses MaxMind's Broken-Double-Format file (the reader serves 1.79e-52 as a latitude)", async () => {
    await expect(
      openMmdbBackend({ source: testDatabase('GeoIP2-City-Test-Broken-Double-Format.mmdb') }),
    ).rejects.toThrow(/is corrupt: double of 5 bytes at data offset \d+ \(must be 8\)/);
  });

  it('accepts a well-formed file written by @svc/mmdb-writer with every type', async () => {
    const { bytes } = fileWith({
      f: mmdbTypes.float(1.5),
      d: 2.25,
      b: true,
      u16: mmdbTypes.uint16(7),
      u64: mmdbTypes.uint64(1n << 40n),
      u128: mmdbTypes.uint128(1n << 100n),
      i: mmdbTypes.int32(-5),
      list: ['x', { y: 'z' }],
    });
    const backend = await open(bytes);
    expect(backend.ipVersion).toBe(4);
  });

  it('refuses a float that is not 4 bytes', async () => {
    // Extended type 15 (float): control 0x04 (size 4), type byte 8, then 1.5 as binary32.
    const { bytes, at } = fileWith({ f: mmdbTypes.float(1.5) }, [0x04, 0x08, 0x3f, 0xc0, 0, 0]);
    await expect(open(bytes)).resolves.toBeDefined();
    bytes[at] = 0x03;
    await expect(open(bytes)).rejects.toThrow(/float of 3 bytes .* \(must be 4\)/);
  });

  it('refuses a double that is not 8 bytes', async () => {
    // Type 3 (double) with size 8: control 0x68, then 2.25 as binary64.
    const { bytes, at } = fileWith({ d: 2.25 }, [0x68, 0x40, 0x02, 0, 0, 0, 0, 0, 0]);
    bytes[at] = 0x64;
    await expect(open(bytes)).rejects.toThrow(/double of 4 bytes/);
  });

  it('refuses a boolean with a payload and an integer wider than its type', async () => {
    // Extended type 14 (boolean true): control 0x01, type byte 7.
    const flag = fileWith({ flag: true }, [0x01, 0x07]);
    flag.bytes[flag.at] = 0x02;
    await expect(open(flag.bytes)).rejects.toThrow(/boolean of size 2/);
    // Type 5 (uint16) holding 0x1234 in 2 bytes: control 0xa2.
    const wide = fileWith({ n: mmdbTypes.uint16(0x1234) }, [0xa2, 0x12, 0x34]);
    wide.bytes[wide.at] = 0xa3;
    await expect(open(wide.bytes)).rejects.toThrow(/integer of type 5 with 3 bytes/);
  });

  it('refuses a map key that is not a string', async () => {
    // The map {"k": "v"}: control 0xe1 (map of one pair), key "k" as 0x41 0x6b.
    const { bytes, at } = fileWith({ k: 'v' }, [0xe1, 0x41, 0x6b]);
    bytes[at + 1] = 0x81; // key becomes a 1-byte bytes field
    await expect(open(bytes)).rejects.toThrow(/map key at data offset \d+ is not a string/);
  });
});
