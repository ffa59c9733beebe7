// Run as a child process by data/default-data.test.ts: opens the default backends on the files
// named in the environment, as a separate process sharing the cache dir would, and prints the
// ASN answer for 1.0.0.1, the city data's coordinates and radius for 8.8.8.8, and the worst event-loop delay while opening, as JSON. Paths not given
// are the defaults (the installed data packages).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDefaultBackends } from '../data/default-data.js';

const env = process.env;
if (env.CHILD_UMASK) process.umask(Number.parseInt(env.CHILD_UMASK, 8));
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const backends = await openDefaultBackends({
  cityIpv4: env.CHILD_CITY_IPV4,
  cityIpv6: env.CHILD_CITY_IPV6,
  asnCsv: env.CHILD_ASN_CSV?.split(','),
  cacheDir: env.CHILD_CACHE_DIR,
});
delay.disable();
const asn = backends[1]?.lookup('1.0.0.1', 4);
// The bundled DB-IP Lite city data has coordinates and no accuracy radius.
const city = backends[0]?.lookup('8.8.8.8', 4);
process.stdout.write(
  `${JSON.stringify({
    asn: asn?.asn ?? null,
    latitude: city?.latitude ?? null,
    accuracy_radius_km: city?.accuracy_radius_km ?? null,
    worst_delay_ms: delay.max / 1e6,
  })}\n`,
);
