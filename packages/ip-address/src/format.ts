/** Dotted-decimal text of an unsigned 32-bit IPv4 value. */
export function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** RFC 5952 text of eight 16-bit groups: lowercase, no leading zeros, longest zero run (≥ 2, first on ties) as `::`. */
export function formatIpv6(words: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let index = 0; index <= 8; index++) {
    if (index < 8 && words[index] === 0) {
      if (runStart < 0) runStart = index;
    } else if (runStart >= 0) {
      if (index - runStart > bestLength) {
        bestStart = runStart;
        bestLength = index - runStart;
      }
      runStart = -1;
    }
  }
  let text = '';
  for (let index = 0; index < 8; index++) {
    if (index === bestStart) {
      text += '::';
      index += bestLength - 1;
      continue;
    }
    if (text.length > 0 && !text.endsWith(':')) text += ':';
    text += (words[index] ?? 0).toString(16);
  }
  return text;
}
