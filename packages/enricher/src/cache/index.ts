export { createMemoryCache, type MemoryCacheOptions } from './memory.js';
export { createPostgresCache, type PostgresCacheOptions } from './postgres.js';
export { createSqliteCache, type SqliteCacheOptions } from './sqlite.js';
export {
  type CacheEntry,
  type CacheOptions,
  DEFAULT_RETENTION_SECONDS,
  type EnrichmentCache,
} from './types.js';
