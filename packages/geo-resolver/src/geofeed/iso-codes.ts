import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `data/iso-3166/` of this package (from src/ and dist/ alike): CLDR's lists, Unicode License v3. */
const ISO_DIR = fileURLToPath(new URL('../../data/iso-3166/', import.meta.url));

/**
 * Expands CLDR's compact notation: `ad02~8` is ad02 to ad08, `AL~M` is AL and AM (the last
 * character runs up to the one after the tilde). `#` starts a comment.
 */
export function expandCldrCodes(text: string): Set<string> {
  const codes = new Set<string>();
  for (const line of text.split('\n')) {
    for (const item of line.replace(/#.*/, '').trim().split(/\s+/)) {
      if (item === '') continue;
      const tilde = item.indexOf('~');
      if (tilde < 0) {
        codes.add(item);
        continue;
      }
      const first = item.slice(0, tilde);
      const stem = first.slice(0, -1);
      const from = first.charCodeAt(first.length - 1);
      const to = item.charCodeAt(tilde + 1);
      for (let code = from; code <= to; code++) codes.add(stem + String.fromCharCode(code));
    }
  }
  return codes;
}

let countries: Set<string> | undefined;
let subdivisions: Set<string> | undefined;

/** Whether `code` (upper case) is an ISO 3166-1 alpha-2 country code (CLDR's regular regions, with XK). */
export function isCountryCode(code: string): boolean {
  countries ??= expandCldrCodes(readFileSync(`${ISO_DIR}regions.txt`, 'utf8'));
  return countries.has(code);
}

/** Whether `code` (`US-CA`, any case) is an ISO 3166-2 subdivision code (CLDR's regular subdivisions). */
export function isSubdivisionCode(code: string): boolean {
  subdivisions ??= expandCldrCodes(readFileSync(`${ISO_DIR}subdivisions.txt`, 'utf8'));
  return subdivisions.has(code.replace('-', '').toLowerCase());
}
