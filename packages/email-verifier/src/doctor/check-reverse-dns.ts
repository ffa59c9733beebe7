import { parseIp } from '@svc/ip-address';
import { type DoctorDnsAsk, describeDnsFailure, rcodeName } from './dns-query.js';
import type { ResolvedDoctorOptions } from './options.js';
import type { DoctorCheck } from './report.js';
import { reverseDnsName } from './reverse-name.js';

/** At most this many PTR names are confirmed (an address normally has one). */
const MAX_PTR_NAMES = 5;

/**
 * The public address's PTR, whether that name resolves back to the address (forward-confirmed
 * reverse DNS, which Gmail and Outlook require) and whether it is the HELO name.
 */
export async function checkReverseDns(
  o: ResolvedDoctorOptions,
  address: string | null,
  ask: DoctorDnsAsk,
): Promise<DoctorCheck> {
  const check = (status: DoctorCheck['status'], message: string, details: Record<string, unknown> = {}) => ({
    id: 'reverse_dns',
    group: 'identity' as const,
    title: 'Reverse DNS (PTR)',
    status,
    message,
    details: { address, helo_name: o.heloName, ...details },
  });
  if (address === null) {
    return check('warning', 'Not checked: the public address is unknown (see the public address check).', {
      skipped: true,
    });
  }
  const family = parseIp(address).family;
  const ptrName = reverseDnsName(address);
  let names: string[];
  try {
    const reply = await ask(ptrName, 'PTR');
    if (reply.rcode !== 0 && reply.rcode !== 3) {
      return check(
        'warning',
        `Could not look up the PTR of ${address}: the resolver answered ${rcodeName(reply.rcode)}. Run again later.`,
        {
          ptr_query: ptrName,
        },
      );
    }
    names = reply.values.slice(0, MAX_PTR_NAMES);
  } catch (error) {
    return check(
      'warning',
      `Could not look up the PTR of ${address} (${describeDnsFailure(error)}). Run again later.`,
      {
        ptr_query: ptrName,
      },
    );
  }
  const fix = `Ask whoever owns ${address} (your hosting or VPS provider) to set its PTR to ${o.heloName}, and give ${o.heloName} an ${family === 4 ? 'A' : 'AAAA'} record for ${address}.`;
  if (names.length === 0) {
    return check(
      'failed',
      `${address} has no reverse DNS (PTR): Gmail, Outlook and many others refuse or distrust such clients. ${fix}`,
      {
        ptr_query: ptrName,
        ptr: [],
        forward_confirmed: false,
        matches_helo: false,
      },
    );
  }
  const confirmed: string[] = [];
  for (const name of names) {
    try {
      const reply = await ask(name, family === 4 ? 'A' : 'AAAA');
      if (reply.values.some((value) => sameAddress(value, address))) confirmed.push(name);
    } catch {
      // unconfirmed
    }
  }
  const helo = o.heloName.toLowerCase();
  const matchesHelo = confirmed.includes(helo);
  const details = {
    ptr_query: ptrName,
    ptr: names,
    forward_confirmed: confirmed.length > 0,
    matches_helo: matchesHelo,
  };
  if (confirmed.length === 0) {
    return check(
      'failed',
      `${address} has the PTR ${names.join(', ')}, but that name does not resolve back to ${address} (forward-confirmed reverse DNS fails), which receivers treat like no PTR. Add an ${family === 4 ? 'A' : 'AAAA'} record ${names[0]} → ${address}, or have the PTR changed.`,
      details,
    );
  }
  if (!matchesHelo) {
    return check(
      'warning',
      `${address} has a forward-confirmed PTR ${confirmed[0]}, but the HELO name is ${o.heloName}: some receivers refuse a HELO that does not match. Set the HELO name to ${confirmed[0]} (--helo).`,
      details,
    );
  }
  return check(
    'ok',
    `${address} has the PTR ${helo}, which resolves back to it and is the HELO name.`,
    details,
  );
}

function sameAddress(a: string, b: string): boolean {
  try {
    return parseIp(a).canonical === parseIp(b).canonical;
  } catch {
    return false;
  }
}
