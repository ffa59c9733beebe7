import { ipToBigInt } from '../backends/ip-number.js';

/** The CIDR blocks that exactly cover the inclusive range start..end (same family). */
export function rangeToCidrs(start: string, end: string, family: 4 | 6): string[] {
  const low = ipToBigInt(start, family);
  const high = ipToBigInt(end, family);
  if (low > high) throw new RangeError(`range ${start}-${end} ends before it starts`);
  return numericRangeToCidrs(low, high, family);
}

/** rangeToCidrs on the addresses' numbers (inclusive). */
export function numericRangeToCidrs(first: bigint, high: bigint, family: 4 | 6): string[] {
  const bits = family === 4 ? 32 : 128;
  let low = first;
  const blocks: string[] = [];
  while (low <= high) {
    // The largest block aligned at `low` that does not pass `high`.
    let size = 0;
    while (
      size < bits &&
      (low & ((1n << BigInt(size + 1)) - 1n)) === 0n &&
      low + (1n << BigInt(size + 1)) - 1n <= high
    ) {
      size++;
    }
    blocks.push(`${formatBigInt(low, family)}/${bits - size}`);
    low += 1n << BigInt(size);
  }
  return blocks;
}

export function formatBigInt(value: bigint, family: 4 | 6): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => Number((value >> shift) & 255n)).join('.');
  }
  const words: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n)
    words.push(Number((value >> shift) & 0xffffn).toString(16));
  // Uncompressed but valid; the writer parses it.
  return words.join(':');
}
