import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { createMmdbWriter, MmdbWriterError, type MmdbWriterOptions, mmdbTypes } from './index.js';
import { mmdblookup, noMmdblookup, tempDir } from './testing/mmdblookup.js';

const temp = tempDir();
afterAll(() => temp.cleanup());

/** Runs `fn`, expecting an MmdbWriterError with `code`; returns its message. */
function errorOf(fn: () => unknown, code: string): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MmdbWriterError);
    expect((error as MmdbWriterError).code).toBe(code);
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('invalid options', () => {
  const make = (options: Partial<MmdbWriterOptions>) => () =>
    createMmdbWriter({ databaseType: 'Test', ...options } as MmdbWriterOptions);

  it.each([
    [{ databaseType: undefined }, 'Invalid option: databaseType must be a non-empty string, got undefined'],
    [{ databaseType: '' }, 'Invalid option: databaseType must be a non-empty string, got ""'],
    [{ ipVersion: 5 }, 'Invalid option: ipVersion must be 4 or 6, got 5'],
    [{ recordSize: 26 }, 'Invalid option: recordSize must be 24, 28 or 32, got 26'],
    [{ recordSize: '24' }, 'Invalid option: recordSize must be 24, 28 or 32, got "24"'],
    [{ languages: 'en' }, 'Invalid option: languages must be an array of non-empty strings'],
    [{ languages: ['en', 3] }, 'Invalid option: languages must be an array of non-empty strings'],
    [
      { description: 'hello' },
      'Invalid option: description must be an object of language code to text, got "hello"',
    ],
    [{ description: { en: 5 } }, 'Invalid option: description["en"] must be a string, got 5'],
    [
      { buildEpoch: -1 },
      'Invalid option: buildEpoch must be a Date or whole seconds since 1970 (>= 0), got -1',
    ],
    [
      { buildEpoch: 1.5 },
      'Invalid option: buildEpoch must be a Date or whole seconds since 1970 (>= 0), got 1.5',
    ],
    [
      { buildEpoch: new Date('nope') },
      'Invalid option: buildEpoch must be a valid Date at or after 1970-01-01',
    ],
    [{ ipv4Aliases: 'yes' }, 'Invalid option: ipv4Aliases must be a boolean, got "yes"'],
    [{ normalizeHostBits: 1 }, 'Invalid option: normalizeHostBits must be a boolean, got 1'],
  ] as [Record<string, unknown>, string][])('%j', (options, message) => {
    expect(errorOf(make(options as Partial<MmdbWriterOptions>), 'invalid_option')).toContain(message);
  });

  it('no options at all', () => {
    expect(errorOf(() => createMmdbWriter(undefined as never), 'invalid_option')).toBe(
      'createMmdbWriter needs an options object with at least databaseType',
    );
  });
});

describe('invalid networks', () => {
  const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 6 });

  it.each([
    [
      '10.0.0.0/33',
      'Invalid network "10.0.0.0/33": the prefix length must be a whole number from 0 to 32 for IPv4',
    ],
    ['1.2.3', 'Invalid network "1.2.3": "1.2.3" is not an IPv4 address'],
    ['10.0.0.1/8', 'Invalid network "10.0.0.1/8": host bits are set (the network is 10.0.0.0/8)'],
    ['2001:db8::1/32', 'Invalid network "2001:db8::1/32": host bits are set (the network is 2001:db8::/32)'],
    ['2001:db8:::1', 'Invalid network "2001:db8:::1": "2001:db8:::1" is not an IPv6 address'],
  ])('%s', (network, message) => {
    expect(errorOf(() => writer.insert(network, 'x'), 'invalid_network')).toContain(message);
  });

  it('normalizeHostBits: true stores the masked network instead', () => {
    const lenient = createMmdbWriter({ databaseType: 'Test', ipVersion: 4, normalizeHostBits: true });
    lenient.insert('10.0.0.1/8', 'ten');
    expect(new Reader<never>(lenient.toBuffer()).getWithPrefixLength('10.200.0.1')).toEqual(['ten', 8]);
  });

  it('an IPv6 network in an IPv4 database', () => {
    const v4 = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    for (const network of ['2001:db8::/32', '::1.2.3.0/120', '::ffff:1.2.3.4']) {
      expect(errorOf(() => v4.insert(network, 'x'), 'ip_version_mismatch')).toBe(
        `Cannot insert IPv6 network "${network}" into an IPv4 database (ipVersion: 4); use ipVersion: 6`,
      );
    }
  });

  it.each([
    ['::ffff:1.2.3.0/120', '::ffff:0:0/96 (IPv4-mapped)'],
    ['::ffff:0:0/96', '::ffff:0:0/96 (IPv4-mapped)'],
    ['2002::/16', '2002::/16 (6to4)'],
    ['2002:102:304::/48', '2002::/16 (6to4)'],
  ])('%s lies inside an alias', (network, alias) => {
    expect(errorOf(() => writer.insert(network, 'x'), 'aliased_network')).toContain(
      `it lies inside the alias ${alias}, which points at the IPv4 data; insert the IPv4 network instead, or set ipv4Aliases: false`,
    );
  });
});

describe('invalid values', () => {
  const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  class Point {
    x = 1;
  }

  it.each([
    [() => 1, 'record is a function, which has no MaxMind DB type'],
    [undefined, 'record is undefined, which has no MaxMind DB type'],
    [null, 'record is null, which has no MaxMind DB type'],
    [Symbol('s'), 'record is a symbol, which has no MaxMind DB type'],
    [new Date(0), 'record is a Date, which has no MaxMind DB type'],
    [new Map(), 'record is a Map, which has no MaxMind DB type'],
    [new Point(), 'record is a Point, which has no MaxMind DB type'],
    [{ location: { metro_code: undefined } }, 'record.location.metro_code is undefined'],
    [{ names: { 'zh-CN': null } }, 'record.names["zh-CN"] is null'],
    [{ list: [1, 2, () => 3] }, 'record.list[2] is a function'],
    [Number.NaN, 'record is NaN; wrap it in mmdbTypes.double() if you really mean to store it'],
    [Number.POSITIVE_INFINITY, 'record is Infinity; wrap it in mmdbTypes.double()'],
    [-(2 ** 31) - 1, 'record is -2147483649, below the int32 range; use mmdbTypes.double() for it'],
    [2 ** 64, 'record is 18446744073709552000, above the uint64 range; use mmdbTypes.double() for it'],
    [-1n, 'record is -1n; negative bigints have no MaxMind DB type'],
    [2n ** 128n, 'record is 340282366920938463463374607431768211456n, above the uint128 range'],
    [{ bad: 'a\uD800b' }, 'record.bad is not valid UTF-16 (lone surrogate), so not valid UTF-8'],
    [circular, 'record.self is a circular reference'],
  ])('%s', (value, message) => {
    expect(errorOf(() => writer.insert('10.0.0.0/8', value as never), 'invalid_value')).toContain(message);
  });

  it('a rejected insert leaves the database unchanged', () => {
    const w = createMmdbWriter({ databaseType: 'Test', ipVersion: 4 });
    w.insert('10.0.0.0/8', 'kept');
    errorOf(() => w.insert('10.0.0.0/8', { nope: undefined } as never), 'invalid_value');
    expect(new Reader<never>(w.toBuffer()).get('10.1.1.1')).toBe('kept');
  });

  it.each([
    ['uint16(70000)', () => mmdbTypes.uint16(70_000), 'mmdbTypes.uint16(70000): outside 0..65535'],
    ['uint16(1.5)', () => mmdbTypes.uint16(1.5), 'mmdbTypes.uint16(1.5): expected an integer number'],
    ['uint32(-1)', () => mmdbTypes.uint32(-1), 'mmdbTypes.uint32(-1): outside 0..4294967295'],
    [
      'int32(2^31)',
      () => mmdbTypes.int32(2 ** 31),
      'mmdbTypes.int32(2147483648): outside -2147483648..2147483647',
    ],
    ['uint64(-1n)', () => mmdbTypes.uint64(-1n), 'mmdbTypes.uint64(-1n): outside 0..18446744073709551615'],
    [
      'uint64(2^60 as a number)',
      () => mmdbTypes.uint64(2 ** 60),
      'mmdbTypes.uint64(1152921504606847000): expected a bigint or a safe integer number',
    ],
    [
      'uint128(2n^128n)',
      () => mmdbTypes.uint128(2n ** 128n),
      'mmdbTypes.uint128(340282366920938463463374607431768211456n): outside 0..340282366920938463463374607431768211455',
    ],
    [
      'float(1e39)',
      () => mmdbTypes.float(1e39),
      'mmdbTypes.float(1e+39): outside the float32 range; use mmdbTypes.double',
    ],
    ['double("1")', () => mmdbTypes.double('1' as never), 'mmdbTypes.double("1"): expected a number'],
  ])('mmdbTypes.%s', (_label, make, message) => {
    expect(errorOf(make, 'invalid_value')).toBe(message);
  });
});

describe('limits', () => {
  // Two 8.5 MB strings push the third record past offset 2^24, beyond what 24-bit records hold.
  const fill = (writer: ReturnType<typeof createMmdbWriter>) => {
    writer.insert('1.0.0.0/8', 'a'.repeat(8_500_000));
    writer.insert('2.0.0.0/8', 'b'.repeat(8_500_000));
    writer.insert('3.0.0.0/8', 'after the big ones');
  };

  it('a database too big for 24-bit records', () => {
    const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4, recordSize: 24 });
    fill(writer);
    expect(errorOf(() => writer.toBuffer(), 'tree_too_large')).toMatch(
      /^The database does not fit 24-bit records: 9 nodes and data at offset 17000008 need record values up to \d+, but the largest is 16777215 \(try recordSize 28 or 32\)$/,
    );
  });

  it.skipIf(noMmdblookup).each([28, 32] as const)(
    'the same data fits %i-bit records (record values above 2^24)',
    async (recordSize) => {
      const writer = createMmdbWriter({ databaseType: 'Test', ipVersion: 4, recordSize });
      fill(writer);
      const buffer = writer.toBuffer();
      const reader = new Reader<never>(buffer);
      expect(reader.get('3.1.2.3')).toBe('after the big ones');
      expect((reader.get('2.1.2.3') as unknown as string).length).toBe(8_500_000);
      const file = temp.write(`big-${recordSize}.mmdb`, buffer);
      expect(await mmdblookup(file, '3.1.2.3')).toBe('"after the big ones" <utf8_string>');
    },
  );

  it('metadata over 128 KiB', () => {
    const writer = createMmdbWriter({ databaseType: 'Test', description: { en: 'x'.repeat(140_000) } });
    expect(errorOf(() => writer.toBuffer(), 'invalid_option')).toMatch(
      /^The metadata section would be \d+ bytes; the format allows 131072 \(shorten description or languages\)$/,
    );
  });
});
