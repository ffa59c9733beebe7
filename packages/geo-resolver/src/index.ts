export * from '@svc/ip-address';
export type {
  FieldLayout,
  GeoBackend,
  GeoDatabaseDescription,
  GeoField,
  GeoFields,
  GeoPartial,
  MatchedNetwork,
  SharedAnswer,
} from './backend.js';
export { byFamily } from './backends/by-family.js';
export {
  type CidrFlag,
  type CidrListBackendOptions,
  type CidrListSource,
  openCidrListBackend,
} from './backends/cidr-list.js';
export { type MmdbBackend, type MmdbBackendOptions, openMmdbBackend } from './backends/mmdb.js';
export {
  ipinfoLiteSchema,
  ipinfoSchema,
  ipLocationDbSchema,
  MMDB_SCHEMAS,
  type MmdbSchema,
  maxmindAnonymousSchema,
  maxmindAsnSchema,
  maxmindCitySchema,
  maxmindIspSchema,
  maxmindResidentialProxySchema,
  mmdbSchemaByName,
  schemaForDatabaseType,
} from './backends/mmdb-schemas.js';
export { COMPILED_ASN_DATABASE_TYPE, compileAsnCsv } from './data/compile-asn.js';
export {
  DEFAULT_DATA_ATTRIBUTION,
  type DefaultGeoDataOptions,
  openDefaultBackends,
} from './data/default-data.js';
export {
  type DefaultDataFiles,
  defaultDataFiles,
  defaultGeoCacheDir,
  svcDataDir,
} from './data/default-location.js';
export {
  createDefaultGeoResolver,
  type DefaultGeoResolverOptions,
} from './data/default-resolver.js';
export { extractMmdb, installMmdb } from './data/install.js';
export { rangeToCidrs } from './data/ranges.js';
export { continentOf, countryName, type TimezoneFinder } from './fill.js';
export { createGeoResolver, type GeoResolver, type GeoResolverOptions, type GeoResult } from './resolver.js';
