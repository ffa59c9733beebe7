export {
  applyHistory,
  type HistoryEvidence,
  type HistoryField,
  type HistoryPolicy,
  type VerdictChange,
} from './apply-history.js';
export { type CsvImportRow, readFeedbackCsv } from './csv-import.js';
export {
  createDeliveryHistory,
  type DeliveryHistory,
  type DeliveryHistoryOptions,
  type WithHistory,
} from './delivery-history.js';
export {
  checkFeedbackEvent,
  FEEDBACK_KINDS,
  FEEDBACK_LIMITS,
  type FeedbackEvent,
  type FeedbackKind,
  normaliseFeedbackAddress,
} from './event.js';
export { type LocalPartPattern, localPartPattern, type PatternCount, wilsonInterval } from './pattern.js';
export type {
  FeedbackProvider,
  FeedbackRequest,
  ProviderCredentials,
  VerifyContext,
} from './providers/provider.js';
export { FEEDBACK_PROVIDER_IDS, FEEDBACK_PROVIDERS, feedbackProvider } from './providers/registry.js';
export { snsSubscribeUrl } from './providers/ses.js';
export { type BounceLevel, type BounceReading, readBounce } from './read-bounce.js';
export { createMemoryFeedbackStore, type MemoryFeedbackStoreOptions } from './stores/memory.js';
export { createPostgresFeedbackStore, type PostgresFeedbackStoreOptions } from './stores/postgres.js';
export { createSqliteFeedbackStore, type SqliteFeedbackStoreOptions } from './stores/sqlite.js';
export type { FeedbackScope, FeedbackStats, FeedbackStore } from './stores/store.js';
export { type AddressSummary, type RecordedFeedbackEvent, recordedEvent } from './summary.js';
