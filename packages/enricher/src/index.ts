export type {
  AdapterContext,
  AdapterError,
  AdapterKind,
  Candidate,
  CompanyFields,
  CompanyQuery,
  EnrichmentAdapter,
  EnrichmentDns,
  EnrichmentQuery,
  FieldsOf,
  LookupOutcome,
  PersonFields,
  PersonQuery,
  QueryForm,
  QueryOf,
} from './adapter.js';
export { type ApolloOptions, createApolloAdapters } from './adapters/apollo.js';
export type { DatasetKind } from './adapters/dataset/columns.js';
export { createDatasetAdapters, type DatasetAdapterOptions } from './adapters/dataset/dataset.js';
export {
  type DatasetIndex,
  type DatasetIndexOptions,
  type ImportOptions,
  type ImportSummary,
  openDatasetIndex,
} from './adapters/dataset/dataset-index.js';
export {
  type DatasetReader,
  type WatchedDatasetIndex,
  watchDatasetIndex,
} from './adapters/dataset/watched-index.js';
export { createDnsAdapter, type DnsAdapterOptions } from './adapters/dns/dns.js';
export { DNS_SIGNATURES, type DnsSignature } from './adapters/dns/signatures.js';
export { createHunterAdapters, type HunterOptions } from './adapters/hunter.js';
export {
  PAID_PROVIDERS,
  type PaidProvider,
  type PaidProviderId,
  paidProviderAdapters,
} from './adapters/paid-providers.js';
export { createPeopleDataLabsAdapters, type PeopleDataLabsOptions } from './adapters/peopledatalabs.js';
export type { ProviderOptions } from './adapters/provider-http.js';
export { extractCompanyFromHtml, type SiteCrawl } from './adapters/website/company.js';
export {
  type CrawlFailure,
  createWebsiteCrawler,
  type WebsiteCrawler,
  type WebsiteCrawlerOptions,
} from './adapters/website/crawler.js';
export {
  builtInFingerprints,
  createFingerprintMatcher,
  type DetectedTechnology,
  detectTechnologies,
  type Fingerprint,
  type SiteSignals,
} from './adapters/website/fingerprint.js';
export { createWebsitePersonAdapter } from './adapters/website/people.js';
export { createWebsiteAdapter, type WebsiteAdapterOptions } from './adapters/website/website.js';
export {
  type CacheEntry,
  type CacheOptions,
  createMemoryCache,
  createPostgresCache,
  createSqliteCache,
  DEFAULT_RETENTION_SECONDS,
  type EnrichmentCache,
  type MemoryCacheOptions,
  type PostgresCacheOptions,
  type SqliteCacheOptions,
} from './cache/index.js';
export {
  type AdapterReport,
  type AnyEnrichmentAdapter,
  createEnricher,
  type EnrichCallOptions,
  type EnrichedCompany,
  type EnrichedPerson,
  type Enricher,
  type EnricherOptions,
  type EnrichOutcome,
  type EraseResult,
} from './enricher.js';
export {
  createGuardedFetch,
  DEFAULT_USER_AGENT,
  GuardedFetchError,
  type GuardedFetchOptions,
  type HostLookup,
  type ResolvedAddress,
  systemLookup,
} from './fetch/guarded-fetch.js';
export type { BreakerOptions } from './orchestrator/breaker.js';
export type { FieldSource } from './orchestrator/merge.js';
export { adapterOutcomes, MISS_REASONS, type MissReason } from './orchestrator/miss-reason.js';
export type { EnrichedPersonCompany } from './orchestrator/person-company.js';
export {
  DEFAULT_ENRICH_SCHEMA,
  ENRICH_POSTGRES_MIGRATIONS,
  type EnrichPostgresOptions,
  migrateEnrichPostgres,
} from './postgres/connect.js';
export {
  candidateIdentifiers,
  createMemorySuppression,
  createPostgresSuppression,
  createSqliteSuppression,
  hashIdentifier,
  type PostgresSuppressionOptions,
  type SqliteSuppressionOptions,
  type SuppressionList,
} from './privacy/index.js';
export {
  identifiersOf,
  normaliseCompanyQuery,
  normaliseEmail,
  normaliseName,
  normalisePersonQuery,
  normaliseProfileUrl,
  registrableDomain,
} from './query.js';
export { classifySeniority, type SeniorityClassification } from './seniority/index.js';
