/**
 * The shape of an address's local part, the only pattern that can be read without knowing the
 * person's name: `first.last` is two words joined by a dot (it may as well be last.first),
 * `f.last` one letter then a word, `first.l` a word then one letter, `word` a single word (first,
 * last or firstlast: they look alike), `initial` one letter, `with_digits` any digit, `three_part`
 * three or more parts, `other` anything else. A `+tag` is dropped first.
 */
export type LocalPartPattern = string;

const SEPARATORS = /[._-]/;

export function localPartPattern(address: string): LocalPartPattern {
  const at = address.lastIndexOf('@');
  const local = (at === -1 ? address : address.slice(0, at)).toLowerCase().replace(/\+.*$/, '');
  if (local === '') return 'other';
  if (/\d/.test(local)) return 'with_digits';
  if (!/^[\p{L}._-]+$/u.test(local)) return 'other';
  const parts = local.split(SEPARATORS);
  if (parts.some((part) => part === '')) return 'other';
  if (parts.length === 1) return local.length === 1 ? 'initial' : 'word';
  if (parts.length > 2) return 'three_part';
  const separator = local.charAt((parts[0] as string).length);
  const [first, second] = parts as [string, string];
  const left = first.length === 1 ? 'f' : 'first';
  const right = second.length === 1 ? 'l' : 'last';
  return `${left}${separator}${right}`;
}

/** Delivered and mailbox-bounced addresses of one pattern at one domain. */
export interface PatternCount {
  pattern: LocalPartPattern;
  /** Addresses whose latest decisive event is a delivery. */
  delivered: number;
  /** Addresses whose latest decisive event is a mailbox-level hard bounce. */
  bounced: number;
}

/**
 * The 95 % Wilson score interval of a delivery rate: how sure `delivered / (delivered + bounced)`
 * is, given how few addresses it rests on (3 of 3 is not 300 of 300).
 */
export function wilsonInterval(delivered: number, bounced: number): { low: number; high: number } {
  const n = delivered + bounced;
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.959964;
  const p = delivered / n;
  const denominator = 1 + (z * z) / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return {
    low: Math.max(0, (centre - spread) / denominator),
    high: Math.min(1, (centre + spread) / denominator),
  };
}
