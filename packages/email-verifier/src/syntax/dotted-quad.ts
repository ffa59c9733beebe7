/**
 * RFC 5321 IPv4-address-literal: four Snum (`1*3DIGIT`, value 0..255) separated by dots. Leading
 * zeros are allowed, since the grammar allows them; they are read as decimal.
 */
export function isDottedQuad(text: string): boolean {
  let parts = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || value > 255) return false;
      parts++;
      digits = 0;
      value = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits > 3) return false;
      value = value * 10 + (c - 0x30);
    } else {
      return false;
    }
  }
  return parts === 4;
}
