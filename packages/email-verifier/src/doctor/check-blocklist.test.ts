import { describe, expect, it } from 'vitest';
import { DEFAULT_BLOCKLISTS } from './blocklists.js';
import { decodeBlocklistAnswer } from './check-blocklist.js';

const zen = DEFAULT_BLOCKLISTS.find((list) => list.zone === 'zen.spamhaus.org');
if (!zen) throw new Error('Spamhaus ZEN is a default list');

describe('decodeBlocklistAnswer', () => {
  it('decodes listing codes with their meaning', () => {
    expect(decodeBlocklistAnswer(zen, '127.0.0.10')).toEqual({
      code: '127.0.0.10',
      kind: 'listed',
      meaning: 'PBL (ISP maintained): an end-user range that should not send mail directly',
    });
    expect(decodeBlocklistAnswer(zen, '127.0.0.4').meaning).toMatch(/^XBL/);
    expect(decodeBlocklistAnswer(zen, '127.0.0.99')).toMatchObject({
      kind: 'listed',
      meaning: /not documented/,
    });
  });

  it("reads Spamhaus's 127.255.255.x as a refused query, never as a listing", () => {
    expect(decodeBlocklistAnswer(zen, '127.255.255.254')).toMatchObject({
      kind: 'refused',
      meaning: /public or open resolver/,
    });
    expect(decodeBlocklistAnswer(zen, '127.255.255.255')).toMatchObject({
      kind: 'refused',
      meaning: /too many queries/,
    });
    const other = DEFAULT_BLOCKLISTS.find((list) => list.zone === 'bl.spamcop.net');
    expect(other && decodeBlocklistAnswer(other, '127.255.255.253').kind).toBe('refused');
  });

  it('calls an answer outside 127/8 unexpected (a resolver rewriting NXDOMAIN)', () => {
    expect(decodeBlocklistAnswer(zen, '198.51.100.7')).toMatchObject({
      kind: 'unexpected',
      meaning: /rewrite/,
    });
  });

  it('every default list names a zone, its codes and where to delist', () => {
    for (const list of DEFAULT_BLOCKLISTS) {
      expect(list.zone).toMatch(/\./);
      expect(Object.keys(list.codes).length).toBeGreaterThan(0);
      expect(list.delisting).toMatch(/^https:\/\//);
    }
  });
});
