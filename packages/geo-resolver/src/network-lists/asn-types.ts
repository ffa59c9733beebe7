import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { splitCsvLine } from '@svc/core';
import { NETWORK_TYPES, type NetworkType } from '../backend.js';
import { BUNDLED_LISTS_DIR } from './snapshot.js';

/** The name `sources` gives fields the ASN table set (`network_type`, `is_hosting`). */
export const ASN_NETWORK_TYPES_SOURCE = 'asn-network-types';

/** The bundled table of ASNs by network type (`data/network-lists/asn-network-types.csv`). */
export const BUNDLED_ASN_NETWORK_TYPES = join(BUNDLED_LISTS_DIR, 'asn-network-types.csv');

/**
 * Reads a table of ASNs by network type: `asn,network_type,organisation,evidence` per line, `#`
 * comments. A row without evidence, an unknown type or a repeated ASN is an error naming the line.
 */
export async function loadAsnNetworkTypes(
  path: string = BUNDLED_ASN_NETWORK_TYPES,
): Promise<ReadonlyMap<number, NetworkType>> {
  const table = new Map<number, NetworkType>();
  const known: ReadonlySet<string> = new Set(NETWORK_TYPES);
  (await readFile(path, 'utf8')).split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const [asnText = '', type = '', , evidence = ''] = splitCsvLine(line);
    const asn = Number(asnText);
    const where = `${path}:${index + 1}`;
    if (!/^\d{1,10}$/.test(asnText) || !known.has(type) || evidence.trim() === '')
      throw new Error(
        `${where}: expected "asn,network_type,organisation,evidence" with a type of ${NETWORK_TYPES.join('|')}`,
      );
    if (table.has(asn)) throw new Error(`${where}: AS${asn} is listed twice`);
    table.set(asn, type as NetworkType);
  });
  return table;
}
