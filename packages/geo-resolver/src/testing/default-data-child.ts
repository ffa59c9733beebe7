// Run as a child process by data/default-data.test.ts: opens the default backends on the files
// named in the environment, as a separate process sharing the cache dir would, and prints the
// ASN answer for 1.0.0.1 as JSON.
import { openDefaultBackends } from '../data/default-data.js';

const env = process.env;
if (env.CHILD_UMASK) process.umask(Number.parseInt(env.CHILD_UMASK, 8));
const backends = await openDefaultBackends({
  cityIpv4: env.CHILD_CITY_IPV4,
  cityIpv6: env.CHILD_CITY_IPV6,
  asnCsv: env.CHILD_ASN_CSV?.split(','),
  cacheDir: env.CHILD_CACHE_DIR,
});
const asn = backends[1]?.lookup('1.0.0.1', 4);
process.stdout.write(`${JSON.stringify({ asn: asn?.asn ?? null })}\n`);
