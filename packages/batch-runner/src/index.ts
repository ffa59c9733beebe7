export { type AttemptResult, type PostOptions, postWebhook } from './delivery/post.js';
export { DELIVERY_WINDOW_MS, nextAttemptAt, parseRetryAfter, RETRY_OFFSETS_MS } from './delivery/schedule.js';
export type { ChunkLease, JobRecord, NewJob, Page, RecordResult, Store } from './store.js';
export { createMemoryStore } from './stores/memory.js';
export { createSqliteStore, type SqliteStoreOptions } from './stores/sqlite.js';
