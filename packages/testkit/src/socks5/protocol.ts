import { isIPv4, isIPv6 } from 'node:net';

// RFC 1928 / RFC 1929 message parsing. Each parser takes the bytes received so far and returns
// null while the message is incomplete, so the server can feed it TCP chunks as they come.

export const SOCKS_VERSION = 5;
export const METHOD_NONE = 0;
export const METHOD_USERNAME = 2;
export const NO_ACCEPTABLE_METHOD = 0xff;

/** SOCKS5 reply codes (RFC 1928 §6). */
export const REPLY = {
  succeeded: 0,
  generalFailure: 1,
  notAllowed: 2,
  networkUnreachable: 3,
  hostUnreachable: 4,
  connectionRefused: 5,
  ttlExpired: 6,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;

export class Socks5ProtocolError extends Error {
  override name = 'Socks5ProtocolError';
}

/** The client's greeting: VER NMETHODS METHODS… */
export function parseGreeting(buffer: Buffer): { methods: number[]; length: number } | null {
  if (buffer.length < 2) return null;
  if (buffer[0] !== SOCKS_VERSION) throw new Socks5ProtocolError(`version ${buffer[0]} is not SOCKS5`);
  const count = buffer[1] as number;
  if (buffer.length < 2 + count) return null;
  return { methods: [...buffer.subarray(2, 2 + count)], length: 2 + count };
}

/** The username/password request (RFC 1929): VER ULEN UNAME PLEN PASSWD. */
export function parseUserPass(buffer: Buffer): { username: string; password: string; length: number } | null {
  if (buffer.length < 2) return null;
  if (buffer[0] !== 1) throw new Socks5ProtocolError(`username/password version ${buffer[0]} is not 1`);
  const userLength = buffer[1] as number;
  if (buffer.length < 3 + userLength) return null;
  const passLength = buffer[2 + userLength] as number;
  const length = 3 + userLength + passLength;
  if (buffer.length < length) return null;
  return {
    username: buffer.subarray(2, 2 + userLength).toString('utf8'),
    password: buffer.subarray(3 + userLength, length).toString('utf8'),
    length,
  };
}

/** A request: VER CMD RSV ATYP DST.ADDR DST.PORT; `host` is an IP or a domain name. */
export function parseRequest(
  buffer: Buffer,
): { command: number; addressType: number; host: string; port: number; length: number } | null {
  if (buffer.length < 5) return null;
  if (buffer[0] !== SOCKS_VERSION) throw new Socks5ProtocolError(`request version ${buffer[0]} is not 5`);
  const command = buffer[1] as number;
  const addressType = buffer[3] as number;
  let addressLength: number;
  let offset = 4;
  if (addressType === 1) addressLength = 4;
  else if (addressType === 4) addressLength = 16;
  else if (addressType === 3) {
    addressLength = buffer[4] as number;
    offset = 5;
  } else return { command, addressType, host: '', port: 0, length: buffer.length };
  const length = offset + addressLength + 2;
  if (buffer.length < length) return null;
  const raw = buffer.subarray(offset, offset + addressLength);
  let host: string;
  if (addressType === 1) host = [...raw].join('.');
  else if (addressType === 4) {
    const groups: string[] = [];
    for (let index = 0; index < 16; index += 2) groups.push(raw.readUInt16BE(index).toString(16));
    host = groups.join(':');
  } else host = raw.toString('latin1');
  return { command, addressType, host, port: buffer.readUInt16BE(offset + addressLength), length };
}

/** A reply with the given code and bound address (0.0.0.0:0 unless the relay is up). */
export function encodeReply(code: number, bound?: { address: string; port: number }): Buffer {
  const port = bound?.port ?? 0;
  const address = bound?.address ?? '0.0.0.0';
  if (isIPv6(address) && !isIPv4(address)) {
    const expanded = expandIpv6(address);
    return Buffer.concat([Buffer.from([SOCKS_VERSION, code, 0, 4]), expanded, portBytes(port)]);
  }
  const octets = isIPv4(address) ? address.split('.').map(Number) : [0, 0, 0, 0];
  return Buffer.concat([Buffer.from([SOCKS_VERSION, code, 0, 1, ...octets]), portBytes(port)]);
}

function portBytes(port: number): Buffer {
  return Buffer.from([port >> 8, port & 0xff]);
}

function expandIpv6(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = address.includes('::') && tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array(Math.max(0, missing)).fill('0'), ...tailGroups];
  const out = Buffer.alloc(16);
  for (let index = 0; index < 8; index++)
    out.writeUInt16BE(Number.parseInt(groups[index] ?? '0', 16) || 0, index * 2);
  return out;
}

/** True for 127/8, ::1 and IPv4-mapped loopback: the only targets relayed by default. */
export function isLoopback(address: string): boolean {
  if (isIPv4(address)) return address.startsWith('127.');
  const lower = address.toLowerCase();
  return lower === '::1' || lower === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(lower);
}
