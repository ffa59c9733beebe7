import type { ParsedIp } from './types.js';

/** The address in network byte order: 4 bytes for IPv4, 16 for IPv6. */
export function addressToBytes(address: ParsedIp): Uint8Array {
  if (address.family === 4) {
    const { value } = address;
    return Uint8Array.of(value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);
  }
  const bytes = new Uint8Array(16);
  address.words.forEach((word, index) => {
    bytes[index * 2] = word >>> 8;
    bytes[index * 2 + 1] = word & 255;
  });
  return bytes;
}

/** The address as an unsigned integer (32 bits for IPv4, 128 for IPv6). */
export function addressToBigInt(address: ParsedIp): bigint {
  if (address.family === 4) return BigInt(address.value);
  let value = 0n;
  for (const word of address.words) value = (value << 16n) | BigInt(word);
  return value;
}
