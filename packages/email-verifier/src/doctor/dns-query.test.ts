import { describe, expect, it } from 'vitest';
import { parseServer } from './dns-query.js';

describe('parseServer', () => {
  it('reads host:port, [v6]:port and bare addresses as node:dns getServers() gives them', () => {
    expect(parseServer('127.0.0.53')).toEqual({ host: '127.0.0.53', port: 53 });
    expect(parseServer('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(parseServer('2001:4860:4860::8888')).toEqual({ host: '2001:4860:4860::8888', port: 53 });
    expect(parseServer('[::1]:1053')).toEqual({ host: '::1', port: 1053 });
  });

  it('refuses what is none of those', () => {
    expect(() => parseServer('a:b:c:x')).toThrow(
      'dnsServer must be "host:port", "[v6]:port" or an address, got "a:b:c:x"',
    );
    expect(() => parseServer('127.0.0.1:99999')).toThrow(/dnsServer must be/);
  });
});
