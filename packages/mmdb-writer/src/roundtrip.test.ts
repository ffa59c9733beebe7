import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { createMmdbWriter, type MmdbValue, mmdbTypes } from './index.js';
import { mmdblookup, noMmdblookup, tempDir } from './testing/mmdblookup.js';

const LONG_29 = 'x'.repeat(29); // first size that needs one extra size byte
const LONG_300 = 'y'.repeat(300); // needs two size bytes
const LONG_70K = 'z'.repeat(70_000); // needs three size bytes
const WIDE_MAP = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
const WIDE_ARRAY = Array.from({ length: 300 }, (_, i) => `item ${i}`);

/** One record holding every type, through the default mapping and through mmdbTypes. */
const record: MmdbValue = {
  string: 'unicode! ☯ - ♫',
  empty_string: '',
  yes: true,
  no: false,
  zero: 0,
  small: 100,
  medium: 70_000,
  large: 2 ** 40,
  negative: -5,
  int32_min: -2_147_483_648,
  double: 42.123456,
  big64: 2n ** 63n,
  big128: 2n ** 100n,
  bytes: Buffer.from([0, 0, 0, 42]),
  uint8array: new Uint8Array([0xde, 0xad]),
  empty_bytes: new Uint8Array(0),
  array: [1, 'two', [3]],
  empty_array: [],
  empty_map: {},
  nested: { map: { deep: { x: 1 } } },
  forced: {
    uint16: mmdbTypes.uint16(7),
    uint32: mmdbTypes.uint32(7),
    int32: mmdbTypes.int32(7),
    uint64: mmdbTypes.uint64(7n),
    uint128: mmdbTypes.uint128(7),
    double: mmdbTypes.double(37),
    float: mmdbTypes.float(1.5),
  },
  limits: {
    uint16: mmdbTypes.uint16(65_535),
    uint32: mmdbTypes.uint32(4_294_967_295),
    int32_max: mmdbTypes.int32(2_147_483_647),
    int32_minus_one: mmdbTypes.int32(-1),
    uint64: mmdbTypes.uint64(2n ** 64n - 1n),
    uint128: mmdbTypes.uint128(2n ** 128n - 1n),
  },
  sizes: { s29: LONG_29, s300: LONG_300, s70k: LONG_70K, map40: WIDE_MAP, array300: WIDE_ARRAY },
};

/** What the `maxmind` reader must decode: uint64/uint128 come back as bigint, bytes as Buffer. */
const expectedJs = {
  string: 'unicode! ☯ - ♫',
  empty_string: '',
  yes: true,
  no: false,
  zero: 0,
  small: 100,
  medium: 70_000,
  large: 2n ** 40n,
  negative: -5,
  int32_min: -2_147_483_648,
  double: 42.123456,
  big64: 2n ** 63n,
  big128: 2n ** 100n,
  bytes: Buffer.from([0, 0, 0, 42]),
  uint8array: Buffer.from([0xde, 0xad]),
  empty_bytes: Buffer.alloc(0),
  array: [1, 'two', [3]],
  empty_array: [],
  empty_map: {},
  nested: { map: { deep: { x: 1 } } },
  forced: { uint16: 7, uint32: 7, int32: 7, uint64: 7n, uint128: 7n, double: 37, float: 1.5 },
  limits: {
    uint16: 65_535,
    uint32: 4_294_967_295,
    int32_max: 2_147_483_647,
    int32_minus_one: -1,
    uint64: 2n ** 64n - 1n,
    uint128: 2n ** 128n - 1n,
  },
  sizes: { s29: LONG_29, s300: LONG_300, s70k: LONG_70K, map40: WIDE_MAP, array300: WIDE_ARRAY },
};

const hex128 = (n: bigint) => `0x${n.toString(16).toUpperCase().padStart(32, '0')}`;
const str = (s: string) => `"${s}" <utf8_string>`;

/** What libmaxminddb must see: the value and the type the default mapping chose. */
const expectedTyped = {
  string: str('unicode! ☯ - ♫'),
  empty_string: str(''),
  yes: 'true <boolean>',
  no: 'false <boolean>',
  zero: '0 <uint16>',
  small: '100 <uint16>',
  medium: '70000 <uint32>',
  large: '1099511627776 <uint64>',
  negative: '-5 <int32>',
  int32_min: '-2147483648 <int32>',
  double: '42.123456 <double>',
  big64: '9223372036854775808 <uint64>',
  big128: `${hex128(2n ** 100n)} <uint128>`,
  bytes: '0000002A <bytes>',
  uint8array: 'DEAD <bytes>',
  empty_bytes: '<bytes>',
  array: ['1 <uint16>', str('two'), ['3 <uint16>']],
  empty_array: [],
  empty_map: {},
  nested: { map: { deep: { x: '1 <uint16>' } } },
  forced: {
    uint16: '7 <uint16>',
    uint32: '7 <uint32>',
    int32: '7 <int32>',
    uint64: '7 <uint64>',
    uint128: `${hex128(7n)} <uint128>`,
    double: '37.000000 <double>',
    float: '1.500000 <float>',
  },
  limits: {
    uint16: '65535 <uint16>',
    uint32: '4294967295 <uint32>',
    int32_max: '2147483647 <int32>',
    int32_minus_one: '-1 <int32>',
    uint64: '18446744073709551615 <uint64>',
    uint128: `${hex128(2n ** 128n - 1n)} <uint128>`,
  },
  sizes: {
    s29: str(LONG_29),
    s300: str(LONG_300),
    s70k: str(LONG_70K),
    map40: Object.fromEntries(Object.entries(WIDE_MAP).map(([k, v]) => [k, `${v} <uint16>`])),
    array300: WIDE_ARRAY.map(str),
  },
};

const temp = tempDir();
afterAll(() => temp.cleanup());

describe.each([
  { ipVersion: 4, recordSize: 24 },
  { ipVersion: 4, recordSize: 28 },
  { ipVersion: 4, recordSize: 32 },
  { ipVersion: 6, recordSize: 24 },
  { ipVersion: 6, recordSize: 28 },
  { ipVersion: 6, recordSize: 32 },
] as const)('round trip, ipVersion $ipVersion, recordSize $recordSize', ({ ipVersion, recordSize }) => {
  const writer = createMmdbWriter({ databaseType: 'RoundTrip', ipVersion, recordSize, languages: ['en'] });
  writer.insert('1.2.3.0/24', record);
  writer.insert('1.2.4.0/24', 'a bare string record');
  writer.insert('255.255.255.255/32', 12_345);
  if (ipVersion === 6) {
    writer.insert('2001:db8::/32', record);
    writer.insert('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', [true]);
  }
  const buffer = writer.toBuffer();
  const file = temp.write(`roundtrip-${ipVersion}-${recordSize}.mmdb`, buffer);
  const reader = new Reader(buffer);

  const lookups: [string, unknown, unknown][] = [
    ['1.2.3.0', expectedJs, expectedTyped],
    ['1.2.3.255', expectedJs, expectedTyped],
    ['1.2.4.77', 'a bare string record', str('a bare string record')],
    ['255.255.255.255', 12_345, '12345 <uint16>'],
    ['1.2.5.0', null, null],
    ['0.0.0.0', null, null],
  ];
  if (ipVersion === 6) {
    lookups.push(
      ['::1.2.3.9', expectedJs, expectedTyped],
      ['2001:db8:ffff::1', expectedJs, expectedTyped],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', [true], ['true <boolean>']],
      ['2001:db9::', null, null],
    );
  }

  it('decodes every value with the maxmind reader', () => {
    for (const [ip, js] of lookups) expect(reader.get(ip), ip).toEqual(js);
    expect(reader.metadata.recordSize).toBe(recordSize);
    expect(reader.metadata.ipVersion).toBe(ipVersion);
  });

  it.skipIf(noMmdblookup)('decodes every value and type with libmaxminddb (mmdblookup)', async () => {
    for (const [ip, , typed] of lookups) expect(await mmdblookup(file, ip), ip).toEqual(typed);
  });

  it('reports the inserted prefix lengths', () => {
    // The reader reports IPv4 lookups relative to the IPv4 subtree, also in an IPv6 tree.
    expect(reader.getWithPrefixLength('1.2.3.4')[1]).toBe(24);
    expect(reader.getWithPrefixLength('255.255.255.255')[1]).toBe(32);
    if (ipVersion === 6) {
      expect(reader.getWithPrefixLength('::1.2.3.4')[1]).toBe(120);
      expect(reader.getWithPrefixLength('2001:db8::')[1]).toBe(32);
    }
  });
});
