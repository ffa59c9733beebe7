export { type BlocklistSpec, blocklistForZone, DEFAULT_BLOCKLISTS } from './blocklists.js';
export { type DecodedAnswer, decodeBlocklistAnswer } from './check-blocklist.js';
export type { OutboundOutcome } from './check-outbound-smtp.js';
export { echoedAddress } from './ehlo-address.js';
export type { DoctorOptions } from './options.js';
export type { DoctorCheck, DoctorGroup, DoctorReport, DoctorStatus, ProbingIdentity } from './report.js';
export { reverseDnsName } from './reverse-name.js';
export { runDoctor } from './run-doctor.js';
