import type DNS from 'dns2';
import { Packet } from 'dns2';
import type { ServedSoa } from './fields.js';
import type { ServedRecords } from './validate.js';
import type { DnsRecordType } from './zone.js';

/** A resource record as dns2 encodes it. */
export type ResourceRecord = DNS.Packet.Resource;

/** Response codes (RFC 1035 §4.1.1); dns2 has them at run time but not in its typings. */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** The record types served, by their wire type number. */
export const SERVED_TYPES: ReadonlyMap<number, DnsRecordType> = new Map(
  (['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'PTR', 'SRV', 'SOA'] as const).map((type) => [
    Packet.TYPE[type],
    type,
  ]),
);

/** The textual name of a query type number (`TYPE123` for types without a name, as in RFC 3597). */
export function typeName(type: number): string {
  const known = Object.entries(Packet.TYPE).find(([, value]) => value === type);
  return known ? known[0] : `TYPE${type}`;
}

/** The resource records of `type` held by a name, owned by `owner`. */
export function resourcesOf(
  records: ServedRecords,
  type: DnsRecordType,
  owner: string,
  ttl: number,
): ResourceRecord[] {
  const base = { name: owner, type: Packet.TYPE[type], class: Packet.CLASS.IN, ttl };
  switch (type) {
    case 'A':
    case 'AAAA':
      return records[type].map((address) => new Packet.Resource({ ...base, address }));
    case 'CNAME':
      return records.CNAME === undefined ? [] : [new Packet.Resource({ ...base, domain: records.CNAME })];
    case 'PTR':
      return records.PTR.map((domain) => new Packet.Resource({ ...base, domain }));
    case 'NS':
      return records.NS.map((ns) => new Packet.Resource({ ...base, ns }));
    case 'MX':
      return records.MX.map((mx) => new Packet.Resource({ ...base, ...mx }));
    case 'TXT':
      return records.TXT.map((data) => new Packet.Resource({ ...base, data }));
    case 'SRV':
      return records.SRV.map((srv) => new Packet.Resource({ ...base, ...srv }));
    case 'SOA':
      return records.SOA === undefined ? [] : [soaResource(records.SOA, owner, ttl)];
  }
}

/** An SOA resource; its `minimum` defaults to the TTL it is served with. */
export function soaResource(soa: ServedSoa, owner: string, ttl: number): ResourceRecord {
  return new Packet.Resource({
    name: owner,
    type: Packet.TYPE.SOA,
    class: Packet.CLASS.IN,
    ttl,
    ...soa,
    minimum: soa.minimum ?? ttl,
  });
}
