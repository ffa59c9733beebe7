export { toApiJob } from './api-job.js';
export {
  createWebhookDispatcher,
  type ResendOptions,
  type SendWebhookOptions,
  sendWebhookEvent,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookEnvelope,
  type WebhookSecretsQuery,
  webhookHeaders,
} from './delivery/dispatcher.js';
export {
  type AttemptResult,
  type PostOptions,
  postWebhook,
  type ResolvedAddress,
  systemLookup,
  type WebhookLookup,
} from './delivery/post.js';
export { DELIVERY_WINDOW_MS, nextAttemptAt, parseRetryAfter, RETRY_OFFSETS_MS } from './delivery/schedule.js';
export {
  STANDARD_WEBHOOK_HEADERS,
  signStandardWebhook,
  standardWebhookKey,
} from './delivery/standard-webhooks.js';
export {
  type BullMqDispatcher,
  type BullMqDispatcherOptions,
  createBullMqDispatcher,
} from './dispatchers/bullmq.js';
export {
  type BatchEnricher,
  createEnrichCompanyProcessor,
  createEnrichContactProcessor,
  type EnrichProcessorOptions,
} from './processors/enrich.js';
export { createGeoIpProcessor, type IpLocator } from './processors/geo-ip.js';
export { type BulkVerifier, createVerifyEmailProcessor } from './processors/verify-email.js';
export { type ChunkDispatcher, type ChunkOutcome, storeDispatcher } from './runner/chunk-dispatcher.js';
export type { Processor, ProcessorContext, ProcessorOutcome, ProcessorRecord } from './runner/processor.js';
export {
  createRetentionSweeper,
  type RetentionOptions,
  type RetentionSweeper,
} from './runner/retention.js';
export { type BatchRunner, type BatchRunnerOptions, createBatchRunner } from './runner/runner.js';
export {
  MAX_RECORD_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  type SubmitRequest,
  validateSubmit,
} from './runner/validate-submit.js';
export type {
  ChunkLease,
  Delivery,
  DeliveryAttempt,
  DeliveryOutcome,
  DeliveryState,
  EventView,
  JobQuota,
  JobRecord,
  JobScope,
  NewJob,
  Page,
  RecordResult,
  Store,
} from './store.js';
export { ATTEMPT_IN_PROGRESS, ATTEMPT_INTERRUPTED } from './stores/attempt-log.js';
export { createMemoryStore } from './stores/memory.js';
export { DEFAULT_BATCH_SCHEMA, type PostgresStoreOptions } from './stores/postgres/connect.js';
export {
  type MigratePostgresStoreOptions,
  migratePostgresStore,
  POSTGRES_STORE_MIGRATIONS,
  type PostgresStoreMigrationResult,
} from './stores/postgres/migrations.js';
export { createPostgresStore } from './stores/postgres/store.js';
export { checkJobQuota, IN_FLIGHT_RETRY_SECONDS, type QuotaCounts } from './stores/quota.js';
export { createSqliteStore, INSERT_SLICE_RECORDS, type SqliteStoreOptions } from './stores/sqlite.js';
