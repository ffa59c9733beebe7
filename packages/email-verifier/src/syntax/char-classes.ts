// One byte of flags per ASCII code, so the scanners classify a character with one array read
// instead of a regex: parsing runs once per address in million-address batches.

/** RFC 5321 `atext`: allowed unquoted in a dot-atom local part. */
export const ATEXT = 1;
/** Letter, digit or hyphen: allowed in a domain label. */
export const LDH = 2;
/** 0-9 */
export const DIGIT = 4;
/** A-Z */
export const UPPER = 8;

/** Flags of ASCII codes 0..127; non-ASCII codes are handled by the callers. */
export const ASCII_FLAGS: Uint8Array = buildTable();

function buildTable(): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0x30; c <= 0x39; c++) table[c] = ATEXT | LDH | DIGIT;
  for (let c = 0x41; c <= 0x5a; c++) table[c] = ATEXT | LDH | UPPER;
  for (let c = 0x61; c <= 0x7a; c++) table[c] = ATEXT | LDH;
  table[0x2d] = ATEXT | LDH; // '-'
  for (const ch of "!#$%&'*+/=?^_`{|}~") table[ch.charCodeAt(0)] = ATEXT;
  return table;
}

/** True for a C0 control, DEL or a C1 control: never allowed anywhere in an address. */
export function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f);
}

/** True for the Unicode white space a pasted address tends to carry at its ends. */
export function isWhiteSpace(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** `U+000A`-style name of a code unit, for error details. */
export function codePointName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

const NOT_LOWER_LDH = /[^a-z0-9.-]/;

/**
 * The domain lowercased. Domains from parseAddress are lowercase already, and toLowerCase copies
 * the string even then, so the common case is answered by one native regex test.
 */
export function lowerDomain(domain: string): string {
  return NOT_LOWER_LDH.test(domain) ? domain.toLowerCase() : domain;
}
