import type { Reader } from 'maxmind';
import { recordReader } from './mmdb-verify.js';
import { ipv4ToNumber } from './network.js';

// resolveDataPointer is private in the typings but stable in mmdb-lib 3; verifyMmdb relies on it too.
type DataReader = { resolveDataPointer(pointer: number): Record<string, unknown> };

/**
 * IPv4 lookups by walking the search tree with the address as a number. The reader would parse
 * our (already validated, canonical) string again on every call; this skips that and its
 * generic walker, which is most of the cost of a lookup.
 */
export function ipv4Walker(bytes: Buffer, reader: Reader<Record<string, unknown>>) {
  const { nodeCount, recordSize, ipVersion } = reader.metadata;
  const nodeBytes = (recordSize * 2) / 8;
  const read = recordReader(bytes, recordSize);
  // In an IPv6 tree IPv4 lives at ::a.b.c.d: follow 96 zero bits from the root once.
  let start = 0;
  if (ipVersion === 6) {
    for (let depth = 0; depth < 96 && start < nodeCount; depth++) start = read(start * nodeBytes, 0);
  }
  const data = reader as unknown as DataReader;
  return (ip: string): [Record<string, unknown> | null, number] => {
    const value = ipv4ToNumber(ip);
    let node = start;
    let depth = 0;
    for (; depth < 32 && node < nodeCount; depth++) {
      node = read(node * nodeBytes, ((value >>> (31 - depth)) & 1) as 0 | 1);
    }
    if (node <= nodeCount) return [null, depth];
    return [data.resolveDataPointer(node), depth];
  };
}
