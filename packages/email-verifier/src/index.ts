export { type Classification, classify } from './classify/classify.js';
export {
  DOMAIN_STATUSES,
  type DomainStatus,
  PROBE_VERDICTS,
  type ProbeVerdict,
  type VerificationFacts,
} from './classify/facts.js';
export { VERIFICATION_REASONS, type VerificationReason } from './classify/reasons.js';
export {
  type FactFlags,
  MODIFIER_TABLE,
  type ModifierRow,
  STATE_SCORE_CAPS,
  STATE_SEVERITY,
  VERDICT_TABLE,
  type VerdictRow,
} from './classify/table.js';
export { createDns2Resolver, type Dns2ResolverOptions } from './dns/backends/dns2.js';
export { createNodeDnsResolver, type NodeDnsResolverOptions } from './dns/backends/node-dns.js';
export { type CachedDnsResolver, type DnsCacheOptions, withDnsCache } from './dns/cached-resolver.js';
export { type MailDomainStatus, type MailHost, type MailHosts, resolveMailHosts } from './dns/mail-hosts.js';
export {
  type DnsAnswer,
  type DnsFailureKind,
  DnsQueryError,
  type DnsResolver,
  type MxRecord,
} from './dns/resolver.js';
export {
  type CanaryOutcome,
  createResolverHealth,
  DEFAULT_DNS_CANARIES,
  type ResolverHealth,
  type ResolverHealthContext,
  type ResolverHealthOptions,
  type ResolverHealthSnapshot,
} from './dns/resolver-health.js';
export {
  type BlocklistSpec,
  blocklistForZone,
  DEFAULT_BLOCKLISTS,
  type DecodedAnswer,
  type DoctorCheck,
  type DoctorGroup,
  type DoctorOptions,
  type DoctorReport,
  type DoctorStatus,
  decodeBlocklistAnswer,
  echoedAddress,
  type OutboundOutcome,
  type ProbingIdentity,
  reverseDnsName,
  runDoctor,
} from './doctor/index.js';
export {
  type BuiltinLists,
  DISPOSABLE_DATA_FILE,
  type DisposableListSource,
  loadBuiltinLists,
  readBuiltinLists,
} from './lists/builtin.js';
export {
  createLists,
  type DisposableMatch,
  type EmailLists,
  type ListsOptions,
  type PreferredHost,
} from './lists/create-lists.js';
export {
  type CombinedDisposableList,
  combineDisposableLists,
  type DisposableSourceList,
  MIN_AGREEING_VOTERS,
} from './lists/disposable-agreement.js';
export { registrableDomain } from './lists/domain-chain.js';
export {
  DomainListError,
  type DomainListProblem,
  loadDomainListFile,
  parseDomainList,
} from './lists/domain-list-file.js';
export {
  identifyMailHosts,
  MAIL_PROVIDER_KINDS,
  type MailHostsProvider,
  type MailProvider,
  type MailProviderKind,
  mailProviderIds,
  mailProviderOf,
  mailProviders,
  mxProvider,
} from './providers/mail-providers.js';
export { createMemoryResultCache, type MemoryResultCacheOptions } from './result-cache/memory.js';
export { createPostgresResultCache, type PostgresResultCacheOptions } from './result-cache/postgres.js';
export {
  type CachedResult,
  DEFAULT_RESULT_CACHE_TTLS,
  type ResultCache,
  type ResultCacheKey,
  type ResultCacheOptions,
  type ResultCacheTtls,
  resultCacheVariant,
} from './result-cache/result-cache.js';
export { createSqliteResultCache, type SqliteResultCacheOptions } from './result-cache/sqlite.js';
export {
  classifyRcptReply,
  classifySessionRefusal,
  explainRcptReply,
  PERMANENT_REPLY_RULES,
  type RcptOutcome,
  type ReplyReading,
  type ReplyRule,
  SESSION_REFUSALS,
  type SessionRefusal,
  TEMPORARY_REPLY_RULES,
} from './smtp/classify-reply.js';
export type { SocketFactory } from './smtp/connection.js';
export {
  MAILBOX_PHRASES,
  type MailboxPhrase,
  type MailboxVerdict,
  mailboxVerdictOf,
} from './smtp/mailbox-phrases.js';
export type { ProbeOutcome, SmtpDetail } from './smtp/probe.js';
export {
  checkProxyPoolOptions,
  MAX_PROXIES,
  type ProxyCooldownOptions,
  type SmtpProxyOptions,
} from './smtp/proxy-options.js';
export type { ProxyPoolEvent, ProxySelection } from './smtp/proxy-pool.js';
export { enhancedStatus, ReplyReader, type SmtpReply } from './smtp/reply.js';
export { normaliseReplyText, replyTextForMatching } from './smtp/reply-text.js';
export type { StartTlsPolicy } from './smtp/session.js';
export { parseSocks5Url, type Socks5ProxyOptions } from './smtp/socks5.js';
export { boundedDistance } from './suggest/distance.js';
export { suggestDomain } from './suggest/suggest-domain.js';
export { checkAddressLiteral } from './syntax/address-literal.js';
export { checkDomainName, MAX_DOMAIN_OCTETS, MAX_LABEL_OCTETS } from './syntax/domain-name.js';
export { MAX_LOCAL_OCTETS } from './syntax/local-part.js';
export {
  MAX_ADDRESS_OCTETS,
  type ParseAddressOptions,
  type ParseAddressResult,
  type ParsedAddress,
  parseAddress,
  parseAddressOrThrow,
} from './syntax/parse-address.js';
export { SYNTAX_PROBLEMS, type SyntaxFailure, type SyntaxProblem } from './syntax/problems.js';
export {
  checkBulkAddresses,
  createVerifier,
  MAX_BULK_ADDRESSES,
  type ProgressListener,
  UnprocessableAddressError,
  type VerificationResult,
  type Verifier,
  type VerifyCall,
} from './verifier.js';
export type { SmtpProbeOptions, VerifierOptions } from './verifier-options.js';
