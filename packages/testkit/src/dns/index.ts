export type { DnsOutcome } from './answer.js';
export type { DnsServerOptions } from './options.js';
export { type DnsQueryRecord, type FakeDnsServer, startDnsServer } from './server.js';
export type {
  DnsFailure,
  DnsMxRecord,
  DnsNameRecords,
  DnsRecordType,
  DnsSoaRecord,
  DnsSrvRecord,
  DnsTxtRecord,
  DnsZoneEntry,
  DnsZones,
} from './zone.js';
