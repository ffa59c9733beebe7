// The public API of @svc/email-verifier: what its README lists under "What this package
// exports". Everything else in src/ is internal.
export { type Classification, classify } from './classify/classify.js';
export type { DomainStatus, ProbeVerdict, VerificationFacts } from './classify/facts.js';
export { VERIFICATION_REASONS, type VerificationReason } from './classify/reasons.js';
export { MODIFIER_TABLE, STATE_SCORE_CAPS, VERDICT_TABLE } from './classify/table.js';
export { createDns2Resolver, type Dns2ResolverOptions } from './dns/backends/dns2.js';
export { createNodeDnsResolver, type NodeDnsResolverOptions } from './dns/backends/node-dns.js';
export { withDnsCache } from './dns/cached-resolver.js';
export { resolveMailHosts } from './dns/mail-hosts.js';
export { DnsQueryError, type DnsResolver } from './dns/resolver.js';
export {
  createResolverHealth,
  DEFAULT_DNS_CANARIES,
  type ResolverHealthSnapshot,
} from './dns/resolver-health.js';
export {
  blocklistForZone,
  DEFAULT_BLOCKLISTS,
  type DoctorOptions,
  type DoctorReport,
  runDoctor,
} from './doctor/index.js';
export { loadBuiltinLists } from './lists/builtin.js';
export { createLists, type EmailLists, type ListsOptions } from './lists/create-lists.js';
export { combineDisposableLists } from './lists/disposable-agreement.js';
export { DomainListError, loadDomainListFile, parseDomainList } from './lists/domain-list-file.js';
export { identifyMailHosts, mailProviderOf, mailProviders, mxProvider } from './providers/mail-providers.js';
export { createMemoryResultCache } from './result-cache/memory.js';
export { createPostgresResultCache } from './result-cache/postgres.js';
export {
  DEFAULT_RESULT_CACHE_TTLS,
  type ResultCache,
  type ResultCacheTtls,
} from './result-cache/result-cache.js';
export { createSqliteResultCache } from './result-cache/sqlite.js';
export { classifyRcptReply, explainRcptReply } from './smtp/classify-reply.js';
export type { SocketFactory } from './smtp/connection.js';
export type { SmtpDetail } from './smtp/probe.js';
export { checkProxyPoolOptions, MAX_PROXIES, type SmtpProxyOptions } from './smtp/proxy-options.js';
export type { ProxySelection } from './smtp/proxy-pool.js';
export { parseSocks5Url, type Socks5ProxyOptions } from './smtp/socks5.js';
export { suggestDomain } from './suggest/suggest-domain.js';
export { type ParsedAddress, parseAddress, parseAddressOrThrow } from './syntax/parse-address.js';
export { SYNTAX_PROBLEMS, type SyntaxProblem } from './syntax/problems.js';
export {
  checkBulkAddresses,
  createVerifier,
  MAX_BULK_ADDRESSES,
  UnprocessableAddressError,
  type VerificationResult,
  type Verifier,
  type VerifyCall,
} from './verifier.js';
export type { SmtpProbeOptions, VerifierOptions } from './verifier-options.js';
