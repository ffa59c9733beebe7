import { describe, expect, it } from 'vitest';
import { NetworkListError, parseNetworkList } from './parse.js';

// A few lines of each source's real format (copied from the published files' layout).
const TOR_BULK_LIST = '185.220.101.33\n2a0b:f4c2:2::33\n192.42.116.174\n';
const APPLE_EGRESS_CSV =
  '172.225.0.0/27,US,US-CA,Los Angeles,\n2a02:26f7:b3c0:4000::/64,GB,GB-EN,London,\n104.28.28.0/26,DE,DE-BE,Berlin,\n';
const AWS_JSON = JSON.stringify({
  syncToken: '1700000000',
  createDate: '2026-08-22-10-00-00',
  prefixes: [
    { ip_prefix: '3.5.0.0/18', region: 'us-east-1', service: 'AMAZON', network_border_group: 'us-east-1' },
  ],
  ipv6_prefixes: [{ ipv6_prefix: '2600:1f18::/33', region: 'us-east-1', service: 'EC2' }],
});
const GOOGLE_CLOUD_JSON = JSON.stringify({
  syncToken: '1',
  prefixes: [{ ipv4Prefix: '34.1.208.0/20', service: 'Google Cloud', scope: 'africa-south1' }],
});
const FASTLY_JSON = JSON.stringify({ addresses: ['151.101.0.0/16'], ipv6_addresses: ['2a04:4e40::/32'] });
const GEOFEED_CSV = '# geofeed\n45.32.0.0/20,US,US-NJ,Piscataway,\n192.0.2.0/24,US,,,\n';

describe('parseNetworkList', () => {
  it('reads the Tor bulk exit list, one address per line', () => {
    const { ranges } = parseNetworkList(TOR_BULK_LIST, 'lines', 'tor');
    expect(ranges.map((range) => range.family)).toEqual([4, 6, 4]);
    expect(ranges[0]?.start).toBe(ranges[0]?.end);
  });

  it("reads Apple's egress CSV and geofeeds by their first column", () => {
    expect(parseNetworkList(APPLE_EGRESS_CSV, 'csv', 'apple').ranges).toHaveLength(3);
  });

  it('takes every network string from JSON (AWS, Google, Fastly)', () => {
    expect(parseNetworkList(AWS_JSON, 'json', 'aws').ranges).toHaveLength(2);
    expect(parseNetworkList(GOOGLE_CLOUD_JSON, 'json', 'google').ranges).toHaveLength(1);
    expect(parseNetworkList(FASTLY_JSON, 'json', 'fastly').ranges).toHaveLength(2);
  });

  it('leaves out and reports networks in private, reserved or documentation blocks', () => {
    const parsed = parseNetworkList(`${GEOFEED_CSV}10.0.0.0/8,,,,\n`, 'csv', 'feed');
    expect(parsed.ranges).toHaveLength(1);
    expect(parsed.dropped).toEqual([
      expect.stringContaining('"192.0.2.0/24" is in 192.0.2.0/24'),
      expect.stringContaining('"10.0.0.0/8" is in 10.0.0.0/8'),
    ]);
  });

  it('refuses a list with a line that is not a network, host bits, or a huge network', () => {
    expect(() => parseNetworkList('<html>Not found</html>\n', 'lines', 'x')).toThrow(NetworkListError);
    expect(() => parseNetworkList('3.5.0.1/18\n', 'lines', 'x')).toThrow(/host bits/);
    expect(() => parseNetworkList('0.0.0.0/1\n', 'lines', 'x')).toThrow(/too large/);
    expect(() => parseNetworkList('{"prefixes": [', 'json', 'x')).toThrow(/not JSON/);
  });
});
