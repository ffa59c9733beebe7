import { checkIp } from './normalize.js';

/**
 * True when `input` is a valid, globally reachable unicast address: what may be geolocated, used
 * as an implicit MX, or connected to by a webhook sender. Tunnel addresses count by the IPv4
 * they carry.
 */
export function isPublicIp(input: string): boolean {
  return checkIp(input).ok;
}
