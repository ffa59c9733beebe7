import { isIPv4, isIPv6 } from 'node:net';
import { classifyAddress, parseIp } from '@svc/ip-address';
import { ipToBigInt } from '../backends/ip-number.js';
import { formatBigInt } from '../data/ranges.js';
import type { NetworkListFormat } from '../datasets.js';

/** One listed network as an inclusive range of numbers in its family. */
export interface ListedRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
}

/** Why a list was refused: a line that is not a network, a private range, too few networks, … */
export class NetworkListError extends Error {
  override readonly name = 'NetworkListError';
}

/** A parsed list: its public networks, and the special-purpose ones it named and that were left out. */
export interface ParsedNetworkList {
  ranges: ListedRange[];
  /** `where: why` for each network in a private, reserved or documentation block (never compiled). */
  dropped: string[];
}

/**
 * Reads a list in its format and checks every network: valid syntax, host bits clear, and not
 * shorter than /8 (IPv4) or /16 (IPv6); any other line makes the whole list invalid
 * (NetworkListError naming the line). Networks in a private, reserved or documentation block are
 * left out and reported in `dropped`: a list naming 10.0.0.0/8 would flag a site's own traffic
 * (published lists do carry such lines: Vultr's geofeed names 192.0.2.0/24).
 */
export function parseNetworkList(text: string, format: NetworkListFormat, where: string): ParsedNetworkList {
  const parsed: ParsedNetworkList = { ranges: [], dropped: [] };
  const take = (network: string, at: string) => {
    const range = parseNetwork(network, at);
    if (range instanceof SpecialPurposeNetwork) parsed.dropped.push(range.message);
    else parsed.ranges.push(range);
  };
  if (format === 'json') {
    for (const [network, at] of jsonNetworks(text, where)) take(network, at);
    return parsed;
  }
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const field = format === 'csv' ? (line.split(',')[0] ?? '').trim() : line;
    take(field, `${where}:${index + 1}`);
  });
  return parsed;
}

/** A network inside a special-purpose block: left out of a list, not an error. */
class SpecialPurposeNetwork {
  constructor(readonly message: string) {}
}

function jsonNetworks(text: string, where: string): Array<[string, string]> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new NetworkListError(`${where}: not JSON (${(error as Error).message})`);
  }
  const networks: Array<[string, string]> = [];
  // Every string that looks like a network is one (AWS ip_prefix, Google ipv4Prefix, Fastly addresses…).
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (/^[0-9a-f:.]+\/\d{1,3}$/i.test(value)) networks.push([value, where]);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  visit(document);
  return networks;
}

/** One network (`192.0.2.0/24`, `2001:db8::/32`) or address, checked as parseNetworkList says. */
function parseNetwork(text: string, where: string): ListedRange | SpecialPurposeNetwork {
  const [address = '', prefixText, extra] = text.split('/');
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  const bits = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? `${bits}`) || prefix > bits) {
    throw new NetworkListError(
      `${where}: "${text.slice(0, 80)}" is not a network (expected e.g. 192.0.2.0/24)`,
    );
  }
  const value = ipToBigInt(address, family);
  const hostBits = BigInt(bits - prefix);
  const start = (value >> hostBits) << hostBits;
  if (start !== value) throw new NetworkListError(`${where}: "${text}" has host bits set`);
  if (prefix < (family === 4 ? 8 : 16))
    throw new NetworkListError(
      `${where}: "${text}" is too large a network for a list (shorter than /${family === 4 ? 8 : 16})`,
    );
  const end = start + (1n << hostBits) - 1n;
  for (const edge of [start, end]) {
    const special = classifyAddress(parseIp(formatBigInt(edge, family)));
    if (special !== null)
      return new SpecialPurposeNetwork(`${where}: "${text}" is in ${special.block}, ${special.name}`);
  }
  return { family, start, end };
}
