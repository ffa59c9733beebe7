export {
  classificationMessage,
  classifyAddress,
  type EmbeddedIpv4,
  embeddedIpv4,
  isGloballyReachable,
} from './classify.js';
export { guardedLookup, type HostLookup, type ResolvedAddress, systemLookup } from './connect-guard.js';
export { InvalidIpError, type IpRule } from './errors.js';
export { formatIpv4, formatIpv6 } from './format.js';
export { isPublicIp } from './is-public.js';
export {
  checkIp,
  type IpCheck,
  type IpCheckFailure,
  type NormalizedIp,
  normalizeIp,
  parseIp,
} from './normalize.js';
export { addressToBigInt, addressToBytes } from './numeric.js';
export { IP_SYNTAX_MESSAGES } from './parse.js';
export { lookupSpecialPurpose } from './special-purpose.js';
export { IPV4_SPECIAL_PURPOSE_BLOCKS, IPV6_SPECIAL_PURPOSE_BLOCKS } from './special-purpose-data.js';
export type {
  AddressClassification,
  AddressRegistry,
  EmbeddedVia,
  EmbeddingKind,
  IpSyntaxRule,
  ParsedIp,
  ParsedIpv4,
  ParsedIpv6,
  SpecialPurposeBlock,
  SpecialPurposeCategory,
} from './types.js';
