import { describe, expect, it } from 'vitest';
import { formatAddress, parseNetwork } from './cidr.js';
import { MmdbWriterError } from './errors.js';

const show = (input: string, normalize = false) => {
  const parsed = parseNetwork(input, normalize);
  return `${formatAddress(parsed.bytes)}/${parsed.prefixLength}`;
};

describe('parseNetwork', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8', 4],
    ['0.0.0.0/0', '0.0.0.0/0', 4],
    ['255.255.255.255/32', '255.255.255.255/32', 4],
    ['1.2.3.4', '1.2.3.4/32', 4],
    ['2001:db8::/32', '2001:db8::/32', 6],
    ['2001:DB8:0:0:0:0:0:0/32', '2001:db8::/32', 6],
    ['::/0', '::/0', 6],
    ['::', '::/128', 6],
    ['::1', '::1/128', 6],
    ['1::', '1::/128', 6],
    ['::214.0.0.0/120', '::d600:0/120', 6],
    ['::ffff:1.2.3.4', '::ffff:102:304/128', 6],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304/128', 6],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', 6],
  ])('parses %s', (input, expected, family) => {
    expect(show(input)).toBe(expected);
    expect(parseNetwork(input).family).toBe(family);
  });

  it.each([
    ['10.0.0.0/33', 'the prefix length must be a whole number from 0 to 32 for IPv4'],
    ['2001:db8::/129', 'the prefix length must be a whole number from 0 to 128 for IPv6'],
    ['1.2.3.4/', 'the prefix length must be a whole number'],
    ['1.2.3.0/024', 'the prefix length must be a whole number'],
    ['1.2.3.0/-1', 'the prefix length must be a whole number'],
    ['1.2.3', '"1.2.3" is not an IPv4 address'],
    ['1.2.3.4.5', 'is not an IPv4 address'],
    ['256.1.1.1', 'is not an IPv4 address'],
    ['01.2.3.4', 'is not an IPv4 address'],
    [' 1.2.3.4', 'is not an IPv4 address'],
    ['', 'is not an IPv4 address'],
    ['example.com', 'is not an IPv4 address'],
    ['1::2::3', 'is not an IPv6 address'],
    ['1:2:3:4:5:6:7:8:9', 'is not an IPv6 address'],
    ['1:2:3:4:5:6:7', 'is not an IPv6 address'],
    ['1:2:3:4::5:6:7:8', 'is not an IPv6 address'],
    ['12345::', 'is not an IPv6 address'],
    ['fe80::1%eth0', 'is not an IPv6 address'],
    ['[::1]', 'is not an IPv6 address'],
    ['1.2.3.4::', 'is not an IPv6 address'],
    ['::1.2.3', 'is not an IPv6 address'],
  ])('rejects %j', (input, message) => {
    expect(() => parseNetwork(input)).toThrow(MmdbWriterError);
    expect(() => parseNetwork(input)).toThrow(message);
  });

  it('rejects host bits and names the network that was probably meant', () => {
    expect(() => parseNetwork('10.0.0.5/8')).toThrow(
      'Invalid network "10.0.0.5/8": host bits are set (the network is 10.0.0.0/8); fix the data or pass normalizeHostBits: true',
    );
    expect(() => parseNetwork('2001:db8::1/32')).toThrow('(the network is 2001:db8::/32)');
  });

  it('clears host bits when asked to', () => {
    expect(show('10.0.0.5/8', true)).toBe('10.0.0.0/8');
    expect(show('2001:db8:ffff::1/33', true)).toBe('2001:db8:8000::/33');
  });

  it('rejects a network that is not a string', () => {
    expect(() => parseNetwork(167772160 as unknown as string)).toThrow('A network must be a string');
  });
});

describe('formatAddress', () => {
  it('compresses the longest zero run, the first one on a tie', () => {
    expect(formatAddress(parseNetwork('1:0:0:2:0:0:0:3').bytes)).toBe('1:0:0:2::3');
    expect(formatAddress(parseNetwork('1:0:0:2:0:0:3:4').bytes)).toBe('1::2:0:0:3:4');
    expect(formatAddress(parseNetwork('1:0:2:3:4:5:6:7').bytes)).toBe('1:0:2:3:4:5:6:7');
  });
});
