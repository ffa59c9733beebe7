import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { createMmdbWriter, type MmdbWriterOptions } from './index.js';
import { mmdblookup, noMmdblookup, tempDir } from './testing/mmdblookup.js';

const open = (writer: { toBuffer(): Buffer }) => new Reader<never>(writer.toBuffer());
const v4 = (extra: Partial<MmdbWriterOptions> = {}) =>
  createMmdbWriter({ databaseType: 'Test', ipVersion: 4, ...extra });
const v6 = (extra: Partial<MmdbWriterOptions> = {}) =>
  createMmdbWriter({ databaseType: 'Test', ipVersion: 6, ...extra });

const temp = tempDir();
afterAll(() => temp.cleanup());

describe('overlapping inserts', () => {
  it('a smaller network inserted after a larger one wins inside itself only', () => {
    const writer = v4();
    writer.insert('10.0.0.0/8', 'A');
    writer.insert('10.1.0.0/16', 'B');
    const reader = open(writer);
    expect(reader.getWithPrefixLength('10.1.2.3')).toEqual(['B', 16]);
    expect(reader.get('10.0.0.0')).toBe('A');
    expect(reader.get('10.1.255.255')).toBe('B');
    expect(reader.get('10.2.0.0')).toBe('A');
    expect(reader.get('10.255.255.255')).toBe('A');
    expect(reader.get('11.0.0.0')).toBeNull();
  });

  it('a larger network inserted after a smaller one overwrites it', () => {
    const writer = v4();
    writer.insert('10.1.0.0/16', 'B');
    writer.insert('10.0.0.0/8', 'A');
    const reader = open(writer);
    expect(reader.getWithPrefixLength('10.1.2.3')).toEqual(['A', 8]);
    expect(reader.get('10.200.0.0')).toBe('A');
  });

  it('nested networks keep their most specific data until a later insert covers them', () => {
    const writer = v4();
    writer.insert('10.0.0.0/8', 'A');
    writer.insert('10.1.0.0/16', 'B');
    writer.insert('10.1.1.0/24', 'C');
    let reader = open(writer);
    expect([reader.get('10.9.0.0'), reader.get('10.1.9.0'), reader.get('10.1.1.1')]).toEqual(['A', 'B', 'C']);
    writer.insert('10.1.0.0/16', 'D');
    reader = open(writer);
    expect([reader.get('10.9.0.0'), reader.get('10.1.9.0'), reader.get('10.1.1.1')]).toEqual(['A', 'D', 'D']);
  });

  it('the same network inserted twice keeps the later record', () => {
    const writer = v4();
    writer.insert('192.0.2.0/24', { v: 1 });
    writer.insert('192.0.2.0/24', { v: 2 });
    expect(open(writer).get('192.0.2.7')).toEqual({ v: 2 });
  });

  it('0.0.0.0/0 covers the whole IPv4 space', () => {
    const writer = v4();
    writer.insert('0.0.0.0/0', 'all');
    writer.insert('8.8.8.8', 'one');
    const reader = open(writer);
    expect(reader.get('0.0.0.0')).toBe('all');
    expect(reader.get('255.255.255.255')).toBe('all');
    expect(reader.getWithPrefixLength('8.8.8.8')).toEqual(['one', 32]);
  });

  it('overwritten subtrees cost no nodes in the file', () => {
    const many = v4();
    for (let i = 0; i < 256; i++) many.insert(`10.${i}.0.0/16`, `net ${i}`);
    many.insert('10.0.0.0/8', 'A');
    const one = v4();
    one.insert('10.0.0.0/8', 'A');
    const reader = open(many);
    expect(reader.metadata.nodeCount).toBe(open(one).metadata.nodeCount);
    expect(reader.metadata.nodeCount).toBe(8);
    // Overwritten records are not written to the data section either.
    expect(many.toBuffer().includes('net 17')).toBe(false);
  });

  it('adjacent networks with equal records merge into one prefix', () => {
    const writer = v4();
    writer.insert('10.0.0.0/25', { same: true });
    writer.insert('10.0.0.128/25', { same: true });
    expect(open(writer).getWithPrefixLength('10.0.0.200')).toEqual([{ same: true }, 24]);
  });

  it.skipIf(noMmdblookup)('an empty database is valid and finds nothing', async () => {
    for (const writer of [v4(), v6()]) {
      const buffer = writer.toBuffer();
      const reader = new Reader<never>(buffer);
      expect(reader.metadata.nodeCount).toBe(1);
      expect(reader.get('1.2.3.4')).toBeNull();
      expect(
        await mmdblookup(temp.write(`empty-${reader.metadata.ipVersion}.mmdb`, buffer), '1.2.3.4'),
      ).toBeNull();
    }
  });

  it('the writer stays usable after toBuffer, and earlier buffers do not change', () => {
    const writer = v6();
    writer.insert('1.0.0.0/8', 'first');
    const before = writer.toBuffer();
    const copy = Buffer.from(before);
    writer.insert('1.2.0.0/16', 'second');
    const after = open(writer);
    expect(after.get('1.2.3.4')).toBe('second');
    expect(after.get('::ffff:1.2.3.4')).toBe('second');
    expect(before.equals(copy)).toBe(true);
    expect(new Reader<never>(before).get('1.2.3.4')).toBe('first');
  });
});

describe('IPv4 data in an IPv6 tree', () => {
  it('stores a.b.c.d/n at ::a.b.c.d/(96+n); both spellings address the same network', () => {
    const writer = v6();
    writer.insert('1.2.3.0/24', 'dotted');
    writer.insert('::5.6.7.0/120', 'embedded');
    const reader = open(writer);
    expect(reader.getWithPrefixLength('::1.2.3.4')).toEqual(['dotted', 120]);
    expect(reader.get('1.2.3.4')).toBe('dotted');
    expect(reader.get('5.6.7.8')).toBe('embedded');
    expect(reader.get('::5.6.7.8')).toBe('embedded');
  });

  it.skipIf(noMmdblookup)('aliases ::ffff:0:0/96 and 2002::/16 to the IPv4 data by default', async () => {
    const writer = v6();
    writer.insert('1.2.3.0/24', { city: 'x' });
    writer.insert('2001:db8::/32', 'v6');
    const buffer = writer.toBuffer();
    const reader = new Reader<never>(buffer);
    const file = temp.write('aliases.mmdb', buffer);
    for (const ip of ['::ffff:1.2.3.4', '::ffff:102:304', '2002:102:304::', '2002:102:3ff:1234::1']) {
      expect(reader.get(ip), ip).toEqual({ city: 'x' });
      expect(await mmdblookup(file, ip), ip).toEqual({ city: '"x" <utf8_string>' });
    }
    expect(reader.getWithPrefixLength('2002:102:304::')[1]).toBe(40);
    expect(reader.getWithPrefixLength('::ffff:1.2.3.4')[1]).toBe(120);
    expect(reader.get('::ffff:1.2.4.0')).toBeNull();
    expect(reader.get('2002:102:400::')).toBeNull();
    expect(reader.get('2001:db8::1')).toBe('v6');
  });

  it('aliases do not add nodes to a tree without IPv4 data', () => {
    const withAliases = v6();
    const without = v6({ ipv4Aliases: false });
    for (const writer of [withAliases, without]) writer.insert('2001:db8::/32', 'v6');
    expect(open(withAliases).metadata.nodeCount).toBe(open(without).metadata.nodeCount);
  });

  it('ipv4Aliases: false leaves both ranges without data and lets you fill them', () => {
    const writer = v6({ ipv4Aliases: false });
    writer.insert('1.2.3.0/24', 'v4');
    let reader = open(writer);
    expect(reader.get('::ffff:1.2.3.4')).toBeNull();
    expect(reader.get('2002:102:304::')).toBeNull();
    writer.insert('::ffff:1.2.3.0/120', 'mapped');
    writer.insert('2002::/16', '6to4');
    reader = open(writer);
    expect(reader.get('::ffff:1.2.3.4')).toBe('mapped');
    expect(reader.get('2002:102:304::')).toBe('6to4');
    expect(reader.get('1.2.3.4')).toBe('v4');
  });

  it('an insert covering an alias range applies around it, not inside it', () => {
    const writer = v6();
    writer.insert('2000::/3', 'global unicast');
    writer.insert('1.2.3.0/24', 'v4');
    const reader = open(writer);
    expect(reader.get('2001:db8::1')).toBe('global unicast');
    expect(reader.get('2003::1')).toBe('global unicast');
    expect(reader.get('2002:102:304::')).toBe('v4');
    expect(reader.get('2002:808:808::')).toBeNull();
  });

  it('::/0 also covers the IPv4 space, which the aliases then mirror', () => {
    const writer = v6();
    writer.insert('::/0', 'everything');
    writer.insert('9.9.9.0/24', 'quad9');
    const reader = open(writer);
    expect(reader.get('2001:db8::')).toBe('everything');
    expect(reader.get('8.8.8.8')).toBe('everything');
    expect(reader.get('::ffff:8.8.8.8')).toBe('everything');
    expect(reader.get('2002:909:909::')).toBe('quad9');
  });
});
