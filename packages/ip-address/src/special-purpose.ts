import { parseOrNull, readIpv6 } from './parse.js';
import { IPV4_SPECIAL_PURPOSE_BLOCKS, IPV6_SPECIAL_PURPOSE_BLOCKS } from './special-purpose-data.js';
import type { ParsedIp, SpecialPurposeBlock } from './types.js';

/** A table block as a closed range of addresses. */
export interface BlockRange {
  readonly block: SpecialPurposeBlock;
  readonly start: bigint;
  readonly end: bigint;
  readonly prefixLength: number;
}

/** The range a table block covers; throws if the CIDR is malformed or has host bits set. */
export function blockRange(block: SpecialPurposeBlock): BlockRange {
  const bits = block.family === 4 ? 32 : 128;
  const [base = '', lengthText = ''] = block.cidr.split('/');
  const prefixLength = Number(lengthText);
  if (!/^\d{1,3}$/.test(lengthText) || prefixLength > bits)
    throw new Error(`Bad prefix length in ${block.cidr}`);
  let start: bigint;
  if (block.family === 4) {
    const parsed = parseOrNull(base);
    if (parsed?.family !== 4) throw new Error(`Bad IPv4 base in ${block.cidr}`);
    start = BigInt(parsed.value);
  } else {
    // Read the groups directly: the parser would turn ::ffff:0:0 into an IPv4 address.
    const words = [0, 0, 0, 0, 0, 0, 0, 0];
    if (!readIpv6(base, words)) throw new Error(`Bad IPv6 base in ${block.cidr}`);
    start = words.reduce((value, word) => (value << 16n) | BigInt(word), 0n);
  }
  const hostMask = (1n << BigInt(bits - prefixLength)) - 1n;
  if ((start & hostMask) !== 0n) throw new Error(`Host bits set in ${block.cidr}`);
  return { block, start, end: start | hostMask, prefixLength };
}

/**
 * Flattens nested blocks into disjoint segments that cover the whole address space, each owned by
 * its most specific block (or null for ordinary addresses), so a lookup is one binary search.
 */
export function flattenBlocks(
  blocks: readonly SpecialPurposeBlock[],
  bits: number,
): { starts: bigint[]; owners: (SpecialPurposeBlock | null)[] } {
  const ranges = blocks.map(blockRange);
  const seen = new Set<string>();
  for (const range of ranges) {
    const key = `${range.start}/${range.prefixLength}`;
    if (seen.has(key)) throw new Error(`Duplicate block ${range.block.cidr}`);
    seen.add(key);
  }
  const limit = 1n << BigInt(bits);
  const boundaries = new Set<bigint>([0n]);
  for (const range of ranges) {
    boundaries.add(range.start);
    if (range.end + 1n < limit) boundaries.add(range.end + 1n);
  }
  const sorted = [...boundaries].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const starts: bigint[] = [];
  const owners: (SpecialPurposeBlock | null)[] = [];
  for (const boundary of sorted) {
    let owner: BlockRange | null = null;
    for (const range of ranges) {
      if (
        range.start <= boundary &&
        boundary <= range.end &&
        (!owner || range.prefixLength > owner.prefixLength)
      ) {
        owner = range;
      }
    }
    const block = owner?.block ?? null;
    if (owners.length > 0 && owners[owners.length - 1] === block) continue;
    starts.push(boundary);
    owners.push(block);
  }
  return { starts, owners };
}

const v4 = flattenBlocks(IPV4_SPECIAL_PURPOSE_BLOCKS, 32);
const v4Starts = Uint32Array.from(v4.starts, Number);
const v4Owners = v4.owners;

const v6 = flattenBlocks(IPV6_SPECIAL_PURPOSE_BLOCKS, 128);
// Each start as four 32-bit words, most significant first, so lookups compare numbers, not bigints.
const v6Starts = new Uint32Array(v6.starts.length * 4);
v6.starts.forEach((start, index) => {
  for (let word = 0; word < 4; word++)
    v6Starts[index * 4 + word] = Number((start >> BigInt(96 - 32 * word)) & 0xffffffffn);
});
const v6Owners = v6.owners;

/** The most specific block holding an IPv4 value, or null. */
export function lookupIpv4Block(value: number): SpecialPurposeBlock | null {
  let low = 0;
  let high = v4Starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((v4Starts[middle] ?? 0) <= value) low = middle;
    else high = middle - 1;
  }
  return v4Owners[low] ?? null;
}

/** The most specific block holding an IPv6 address given as eight 16-bit groups, or null. */
export function lookupIpv6Block(words: readonly number[]): SpecialPurposeBlock | null {
  const a0 = (((words[0] ?? 0) << 16) | (words[1] ?? 0)) >>> 0;
  const a1 = (((words[2] ?? 0) << 16) | (words[3] ?? 0)) >>> 0;
  const a2 = (((words[4] ?? 0) << 16) | (words[5] ?? 0)) >>> 0;
  const a3 = (((words[6] ?? 0) << 16) | (words[7] ?? 0)) >>> 0;
  let low = 0;
  let high = v6Owners.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    const offset = middle * 4;
    const s0 = v6Starts[offset] ?? 0;
    const s1 = v6Starts[offset + 1] ?? 0;
    const s2 = v6Starts[offset + 2] ?? 0;
    const s3 = v6Starts[offset + 3] ?? 0;
    // start <= address, compared word by word.
    const startFits = s0 !== a0 ? s0 < a0 : s1 !== a1 ? s1 < a1 : s2 !== a2 ? s2 < a2 : s3 <= a3;
    if (startFits) low = middle;
    else high = middle - 1;
  }
  return v6Owners[low] ?? null;
}

/**
 * The most specific special-purpose block holding an address, whatever its flags (a globally
 * reachable anycast block is returned too), or null for an ordinary address.
 */
export function lookupSpecialPurpose(address: ParsedIp): SpecialPurposeBlock | null {
  return address.family === 4 ? lookupIpv4Block(address.value) : lookupIpv6Block(address.words);
}
