/**
 * The API version this server implements (spec §9: the newest release, v2.3.1), reported by
 * GET /v2/health and the OpenAPI document's `info.version`.
 */
export const API_VERSION = '2.3.1';
