import { lookupSpecialPurpose, parseIp } from '@svc/ip-address';
import type { ResolvedDoctorOptions } from './options.js';
import type { DoctorCheck, ProbingIdentity } from './report.js';

// Addresses that only exist behind a NAT: receivers on the internet see another one.
const NATTED = new Set(['loopback', 'private_use', 'shared_address_space', 'link_local']);

/** Which address receivers see: the configured one, else the one the test host echoed. */
export function checkPublicAddress(
  o: ResolvedDoctorOptions,
  echoed: string | null,
): { check: DoctorCheck; identity: ProbingIdentity } {
  const address = o.publicAddress ?? echoed;
  const identity: ProbingIdentity = {
    public_address: address,
    public_address_source: o.publicAddress ? 'configured' : echoed ? 'ehlo_reply' : null,
    helo_name: o.heloName,
    mail_from: o.mailFrom,
    proxy: o.proxy ? `${o.proxy.host}:${o.proxy.port}` : null,
  };
  const check = (status: DoctorCheck['status'], message: string) => ({
    check: {
      id: 'public_address',
      group: 'identity' as const,
      title: 'Public address',
      status,
      message,
      details: { address, source: identity.public_address_source, echoed_address: echoed },
    },
    identity,
  });
  if (address === null) {
    return check(
      'warning',
      `The address receivers see is unknown: ${o.testHost} did not echo it (or could not be reached). Set it (--public-address, or publicAddress) so reverse DNS and blocklists can be checked.`,
    );
  }
  const block = lookupSpecialPurpose(parseIp(address));
  if (block && NATTED.has(block.category)) {
    return check(
      'warning',
      `${address} is a ${block.name} address: receivers on the internet see your NAT's public address instead. Set that one (--public-address) to check its reverse DNS and blocklists.`,
    );
  }
  if (o.publicAddress && echoed && echoed !== o.publicAddress) {
    return check(
      'warning',
      `${o.publicAddress} is configured, but ${o.testHost} saw ${echoed}: receivers see ${echoed}. Correct the configured address (or the proxy / NAT in between).`,
    );
  }
  return check(
    'ok',
    identity.public_address_source === 'configured'
      ? `Receivers see ${address} (configured).`
      : `Receivers see ${address} (echoed by ${o.testHost} in its EHLO reply${o.proxy ? ', through the proxy' : ''}).`,
  );
}
