export { csvField, flatten, splitCsvLine } from './csv.js';
export { chooseDataDir, type DataDirChoice, type EarlierDataDir, homeDir, svcDataDir } from './data-dir.js';
export { ERROR_CODES, ERROR_TABLE, type ErrorCode, isErrorCode } from './errors-table.js';
export { createId, ID_PREFIXES, type IdPrefix, idTimestamp, isId } from './ids.js';
export {
  isJobTypeId,
  JOB_TYPE_IDS,
  JOB_TYPES,
  type JobRecordKind,
  type JobTypeId,
  type JobTypeSpec,
  jobTypeList,
} from './job-types.js';
export { importOptionalPeer, type OptionalPeer } from './optional-peer.js';
export {
  createPrivateDatabaseFile,
  makePrivateDir,
  openPrivateFileForWriting,
  writePrivateFileAtomic,
  writePrivateFileOnce,
} from './private-file.js';
export type { RedisClient } from './redis-client.js';
export * from './schemas/batch.js';
export * from './schemas/common.js';
export * from './schemas/email.js';
export * from './schemas/enrichment.js';
export * from './schemas/error.js';
export * from './schemas/geo.js';
export { ServiceError, type ServiceErrorOptions } from './service-error.js';
export type { SqliteDriver } from './sqlite-driver.js';
export * from './types/enrichment.js';
export { urlWithoutPassword } from './url-without-password.js';
