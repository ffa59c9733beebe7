export { csvField, flatten } from './csv.js';
export { ERROR_CODES, ERROR_TABLE, type ErrorCode, isErrorCode } from './errors-table.js';
export { createId, ID_PREFIXES, type IdPrefix, idTimestamp, isId } from './ids.js';
export { ServiceError, type ServiceErrorOptions } from './service-error.js';
export * from './types/batch.js';
export * from './types/email.js';
export * from './types/enrichment.js';
export type * from './types/error.js';
export * from './types/geo.js';
