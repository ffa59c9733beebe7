import { describe, expect, it } from 'vitest';
import { SmtpConnectionError } from '../smtp/connection.js';
import { classifyConnectError, classifyProxyError } from './check-outbound-smtp.js';

// The loopback tests (run-doctor.test.ts) produce RST, dropped SYNs and silence for real; a router's
// ICMP unreachable and a local firewall's EACCES cannot be produced on loopback without root, so
// their errno codes are classified here as node:net reports them.
const connectError = (code: string) =>
  new SmtpConnectionError('connect_failed', `cannot connect: connect ${code}`, {
    cause: Object.assign(new Error(`connect ${code} 192.0.2.1:25`), { code }),
  });

describe('classifyConnectError', () => {
  it('tells reset, silence, ICMP unreachable and the local firewall apart', () => {
    expect(classifyConnectError(connectError('ECONNREFUSED'))).toEqual({
      outcome: 'refused',
      reason: 'ECONNREFUSED',
    });
    expect(classifyConnectError(new SmtpConnectionError('timeout', 'connecting timed out'))).toMatchObject({
      outcome: 'timed_out',
    });
    expect(classifyConnectError(connectError('ETIMEDOUT')).outcome).toBe('timed_out');
    expect(classifyConnectError(connectError('EHOSTUNREACH'))).toEqual({
      outcome: 'filtered',
      reason: 'EHOSTUNREACH',
    });
    expect(classifyConnectError(connectError('ENETUNREACH')).outcome).toBe('filtered');
    expect(classifyConnectError(connectError('EACCES')).outcome).toBe('filtered');
    expect(classifyConnectError(connectError('ENOTFOUND')).outcome).toBe('host_not_found');
  });
});

describe('classifyProxyError', () => {
  it('reads the RFC 1928 reply code, or its words', () => {
    const proxyError = (message: string) =>
      new SmtpConnectionError('connect_failed', `SOCKS5 proxy 127.0.0.1:1080: ${message}`);
    expect(classifyProxyError(proxyError('connection refused (reply 5) for mx.test:25')).outcome).toBe(
      'refused',
    );
    expect(classifyProxyError(proxyError('network unreachable (reply 3) for mx.test:25')).outcome).toBe(
      'filtered',
    );
    expect(
      classifyProxyError(proxyError('connection not allowed by ruleset (reply 2) for mx.test:25')).outcome,
    ).toBe('proxy_refused');
    expect(classifyProxyError(proxyError('TTL expired')).outcome).toBe('timed_out');
    expect(classifyProxyError(proxyError('authentication rejected')).outcome).toBe('proxy_refused');
    expect(classifyProxyError(proxyError('general failure (reply 1) for mx.test:25')).outcome).toBe(
      'proxy_failed',
    );
  });
});
