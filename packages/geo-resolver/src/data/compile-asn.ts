import { createReadStream } from 'node:fs';
import { isIP } from 'node:net';
import { createInterface } from 'node:readline';
import { splitCsvLine } from '@svc/core';
import { createMmdbWriter, mmdbTypes } from '@svc/mmdb-writer';
import { rangeToCidrs } from './ranges.js';

/** The database_type of compiled ASN files; the mmdb backend maps it with the MaxMind ASN schema. */
export const COMPILED_ASN_DATABASE_TYPE = 'svc-ASN';

/**
 * Compiles ip-location-db ASN CSV files (`first,last,asn,organisation` per line, IPv4 and IPv6
 * files) into one IPv6 mmdb with GeoLite2-ASN field names, so lookups are tree walks instead of
 * range searches over half a million rows.
 */
export async function compileAsnCsv(paths: readonly string[], description: string): Promise<Buffer> {
  const writer = createMmdbWriter({
    databaseType: COMPILED_ASN_DATABASE_TYPE,
    ipVersion: 6,
    recordSize: 32,
    description: { en: description },
  });
  for (const path of paths) {
    const lines = createInterface({
      input: createReadStream(path, 'utf8'),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let number = 0;
    for await (const line of lines) {
      number++;
      if (line.trim() === '') continue;
      const [first = '', last = '', asnText = '', organisation = ''] = splitCsvLine(line);
      const family = isIP(first);
      const asn = Number(asnText);
      if ((family !== 4 && family !== 6) || isIP(last) !== family || !Number.isInteger(asn) || asn < 0) {
        throw new Error(
          `${path}:${number}: expected "first,last,asn,organisation", got ${JSON.stringify(line.slice(0, 120))}`,
        );
      }
      const record = {
        autonomous_system_number: mmdbTypes.uint32(asn),
        autonomous_system_organization: organisation,
      };
      for (const cidr of rangeToCidrs(first, last, family)) {
        // Ranges inside the IPv4-mapped and 6to4 aliases are IPv4 data the tree already holds.
        if (family === 6 && /^(0:0:0:0:0:ffff|2002):/i.test(cidr)) continue;
        writer.insert(cidr, record);
      }
    }
  }
  return writer.toBuffer();
}
