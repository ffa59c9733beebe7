export { hashIdentifier } from './hash.js';
export { candidateIdentifiers } from './subjects.js';
export {
  createMemorySuppression,
  createSqliteSuppression,
  type SqliteSuppressionOptions,
  type SuppressionList,
} from './suppression.js';
export { createPostgresSuppression, type PostgresSuppressionOptions } from './suppression-postgres.js';
