import { describe, expect, it } from 'vitest';
import { echoedAddress } from './ehlo-address.js';
import { reverseDnsName } from './reverse-name.js';

describe('echoedAddress', () => {
  it('reads the address Exim, Sendmail and Gmail echo', () => {
    expect(echoedAddress('mx.example Hello probe.example.com [203.0.113.5]')).toBe('203.0.113.5');
    expect(echoedAddress('mx.example Hello probe [203.0.113.5], pleased to meet you')).toBe('203.0.113.5');
    expect(echoedAddress('mx.google.com at your service, [2001:db8::5]')).toBe('2001:db8::5');
    expect(echoedAddress('mx.example Hello [IPv6:2001:DB8:0:0::7]')).toBe('2001:db8::7');
  });

  it('finds nothing where Postfix echoes nothing, or the brackets hold no address', () => {
    expect(echoedAddress('mx.example')).toBeNull();
    expect(echoedAddress('mx.example Hello [probe]')).toBeNull();
    expect(echoedAddress('mx.example Hello [999.1.1.1]')).toBeNull();
  });
});

describe('reverseDnsName', () => {
  it('reverses IPv4 octets and IPv6 nibbles', () => {
    expect(reverseDnsName('203.0.113.5')).toBe('5.113.0.203.in-addr.arpa');
    expect(reverseDnsName('2001:db8::1')).toBe(
      '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    );
  });
});
