export { MmdbWriterError, type MmdbWriterErrorCode } from './errors.js';
export {
  type MmdbMap,
  type MmdbNumericType,
  MmdbTypedValue,
  type MmdbValue,
  mmdbTypes,
} from './values.js';
export { createMmdbWriter, type MmdbWriter, type MmdbWriterOptions } from './writer.js';
