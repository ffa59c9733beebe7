import { describe, expect, it } from 'vitest';
import { decodeHtml } from './charset.js';

const latin1 = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));

describe('decodeHtml', () => {
  it('uses the header charset, then <meta charset>', () => {
    expect(decodeHtml(latin1('<p>Café</p>'), 'text/html; charset=ISO-8859-1')).toBe('<p>Café</p>');
    expect(decodeHtml(latin1('<meta charset="windows-1252"><p>Müller</p>'), 'text/html')).toContain('Müller');
    expect(
      decodeHtml(latin1('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">ñ'), null),
    ).toContain('ñ');
  });

  it('falls back to windows-1252 when a page declaring UTF-8 is not UTF-8', () => {
    expect(decodeHtml(latin1('<p>Gründer</p>'), 'text/html; charset=utf-8')).toBe('<p>Gründer</p>');
  });

  it('keeps valid UTF-8, even cut inside a character at the size cap, and honours a BOM', () => {
    const bytes = new TextEncoder().encode('<p>Zoë</p>');
    expect(decodeHtml(bytes, 'text/html')).toBe('<p>Zoë</p>');
    expect(decodeHtml(bytes.subarray(0, 6), 'text/html')).toBe('<p>Zo');
    expect(decodeHtml(Uint8Array.from([0xef, 0xbb, 0xbf, 0x41]), 'text/html; charset=iso-8859-1')).toBe('A');
    expect(decodeHtml(latin1('ok'), 'text/html; charset=x-unknown')).toBe('ok');
  });
});
