import { TextDecoder } from 'node:util';
import { Parser } from 'htmlparser2';

/** The charset a Content-Type header names, lower-cased, or null. */
function headerCharset(contentType: string | null): string | null {
  if (!contentType) return null;
  for (const part of contentType.split(';').slice(1)) {
    const [key, value] = part.split('=', 2);
    if (key?.trim().toLowerCase() === 'charset' && value)
      return value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return null;
}

/** `<meta charset>` or `<meta http-equiv="content-type">` in the first 1024 bytes (the HTML prescan window). */
function metaCharset(bytes: Uint8Array): string | null {
  // Latin-1 maps every byte to one code unit, so ASCII markup reads correctly whatever the real charset.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  let found: string | null = null;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (found || name !== 'meta') return;
      if (attrs.charset) found = attrs.charset.trim().toLowerCase();
      else if (attrs['http-equiv']?.toLowerCase() === 'content-type')
        found = headerCharset(attrs.content ?? null);
    },
  });
  parser.write(head);
  parser.end();
  return found;
}

function decoder(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label);
  } catch {
    return null; // a label TextDecoder does not know ("utf-7", a typo): fall through
  }
}

/**
 * Decodes an HTML body: BOM, then the header's charset, then `<meta charset>`, then UTF-8 when the
 * bytes are valid UTF-8, else windows-1252 (what browsers assume for unlabelled Western pages).
 * A page that lies about its charset (declares UTF-8, sends Latin-1) falls back the same way.
 */
export function decodeHtml(bytes: Uint8Array, contentType: string | null): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return new TextDecoder('utf-8').decode(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  const declared = headerCharset(contentType) ?? metaCharset(bytes);
  const chosen = declared ? decoder(declared) : null;
  if (chosen && chosen.encoding !== 'utf-8') return chosen.decode(bytes);
  try {
    // stream: a body cut at the size cap may end inside a character; that is not invalid UTF-8.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}
