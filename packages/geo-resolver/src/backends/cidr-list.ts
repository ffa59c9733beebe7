import { readFile } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import type { GeoBackend, GeoPartial } from '../backend.js';
import { ipToBigInt } from './ip-number.js';

/** The flag a list sets for every address in it. */
export type CidrFlag = 'is_vpn' | 'is_proxy' | 'is_tor' | 'is_hosting';

/** One list: a file (one network per line, `#` comments) or inline networks. */
export interface CidrListSource {
  flag: CidrFlag;
  /** Path of a text file with one CIDR or address per line. */
  path?: string;
  /** Networks given inline. */
  networks?: string[];
}

/** Options of the CIDR-list backend. */
export interface CidrListBackendOptions {
  lists: CidrListSource[];
  /** @default 'cidr-lists' */
  id?: string;
}

interface Ranges {
  starts: bigint[];
  ends: bigint[];
}

/**
 * A backend for open VPN/proxy/Tor/hosting lists. Networks are merged into sorted disjoint ranges
 * and looked up by binary search. A listed address gets `true`; unlisted addresses get nothing
 * (null), so another backend's answer can still apply.
 */
export async function openCidrListBackend(options: CidrListBackendOptions): Promise<GeoBackend> {
  const id = options.id ?? 'cidr-lists';
  let tables = await build(options.lists);
  let generation = 0;
  return {
    id,
    provides: [...new Set(options.lists.map((list) => list.flag))],
    get generation() {
      return generation;
    },
    lookup(ip, family) {
      const value = ipToBigInt(ip, family);
      let answer: GeoPartial | null = null;
      for (const [flag, byFamily] of tables) {
        if (contains(family === 4 ? byFamily.v4 : byFamily.v6, value)) {
          answer ??= {};
          answer[flag] = true;
        }
      }
      return answer;
    },
    describe: () => [
      {
        id,
        databaseType: 'cidr-list',
        buildEpoch: null,
        source: options.lists.map((list) => list.path ?? 'inline').join(', '),
      },
    ],
    async reload() {
      tables = await build(options.lists);
      generation++;
    },
  };
}

async function build(lists: CidrListSource[]): Promise<Map<CidrFlag, { v4: Ranges; v6: Ranges }>> {
  const collected = new Map<CidrFlag, { v4: Array<[bigint, bigint]>; v6: Array<[bigint, bigint]> }>();
  for (const list of lists) {
    if (!list.path && !list.networks) throw new TypeError(`a ${list.flag} list needs a path or networks`);
    const entry = collected.get(list.flag) ?? { v4: [], v6: [] };
    collected.set(list.flag, entry);
    const lines = list.networks ?? (await readFile(list.path as string, 'utf8')).split(/\r?\n/);
    lines.forEach((raw, index) => {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') return;
      const where = list.path ? `${list.path}:${index + 1}` : `${list.flag} networks[${index}]`;
      const [start, end, family] = parseNetwork(line, where);
      entry[family === 4 ? 'v4' : 'v6'].push([start, end]);
    });
  }
  const tables = new Map<CidrFlag, { v4: Ranges; v6: Ranges }>();
  for (const [flag, { v4, v6 }] of collected) tables.set(flag, { v4: merge(v4), v6: merge(v6) });
  return tables;
}

function parseNetwork(text: string, where: string): [bigint, bigint, 4 | 6] {
  const [address = '', prefixText, extra] = text.split('/');
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  const bits = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? `${bits}`) || prefix > bits) {
    throw new Error(`${where}: "${text}" is not a network (expected e.g. 192.0.2.0/24 or 2001:db8::/32)`);
  }
  const value = ipToBigInt(address, family);
  const hostBits = BigInt(bits - prefix);
  const start = (value >> hostBits) << hostBits;
  return [start, start + (1n << hostBits) - 1n, family];
}

function merge(ranges: Array<[bigint, bigint]>): Ranges {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const starts: bigint[] = [];
  const ends: bigint[] = [];
  for (const [start, end] of ranges) {
    const last = ends.length - 1;
    if (last >= 0 && start <= (ends[last] as bigint) + 1n) {
      if (end > (ends[last] as bigint)) ends[last] = end;
    } else {
      starts.push(start);
      ends.push(end);
    }
  }
  return { starts, ends };
}

function contains(ranges: Ranges, value: bigint): boolean {
  let low = 0;
  let high = ranges.starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((ranges.starts[middle] as bigint) <= value) low = middle + 1;
    else high = middle - 1;
  }
  return high >= 0 && value <= (ranges.ends[high] as bigint);
}
