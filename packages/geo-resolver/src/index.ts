export * from '@svc/ip-address';
export type {
  FieldLayout,
  GeoBackend,
  GeoDatabaseDescription,
  GeoField,
  GeoFields,
  GeoPartial,
  MatchedNetwork,
  NetworkType,
  SharedAnswer,
} from './backend.js';
export { NETWORK_TYPES } from './backend.js';
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
  networkListsSchema,
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
export { type DatasetInUse, describeDefaultDatasets } from './data/describe-datasets.js';
export { extractMmdb, installMmdb } from './data/install.js';
export { rangeToCidrs } from './data/ranges.js';
export {
  type AsnTableDataset,
  GEO_DATASETS,
  type GeoDataset,
  geoDataset,
  NETWORK_LIST_DATASETS,
  type NetworkListDataset,
  type NetworkListFlag,
  type NetworkListFormat,
  type PackagedDataset,
  requiredAttributions,
} from './datasets.js';
export { continentOf, countryName, type TimezoneFinder } from './fill.js';
export {
  type GeofeedBackend,
  type GeofeedBackendOptions,
  openGeofeedBackend,
} from './geofeed/backend.js';
export { withGeofeed } from './geofeed/overlay.js';
export {
  type GeofeedEntry,
  GeofeedError,
  type GeofeedLimits,
  type GeofeedProblem,
  type ParsedGeofeed,
  parseGeofeed,
} from './geofeed/parse.js';
export { ASN_NETWORK_TYPES_SOURCE, loadAsnNetworkTypes } from './network-lists/asn-types.js';
export {
  type NetworkListsBackendOptions,
  openNetworkListsBackend,
  updatedListsPath,
} from './network-lists/backend.js';
export {
  type CompiledListInput,
  compileNetworkLists,
  NETWORK_LISTS_DATABASE_TYPE,
} from './network-lists/compile.js';
export { NETWORK_LIST_FLAGS } from './network-lists/flags.js';
export {
  type ListedRange,
  NetworkListError,
  type ParsedNetworkList,
  parseNetworkList,
} from './network-lists/parse.js';
export {
  type ListDownload,
  type ListUpdateOutcome,
  MIN_KEPT_SHARE,
  type NetworkListsUpdate,
  type UpdateNetworkListsOptions,
  updateNetworkLists,
} from './network-lists/update.js';
export { createGeoResolver, type GeoResolver, type GeoResolverOptions, type GeoResult } from './resolver.js';
