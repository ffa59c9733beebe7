import type { GeoField, GeoFields, GeoPartial } from './backend.js';

/** A result while backends and fill-ins write to it: every field, null until one supplies it. */
export type ResultDraft = GeoFields & { ip: string; sources: Partial<Record<GeoField, string>> };

/**
 * An empty draft, its keys already in the order results list them. Creating every field up front
 * gives every lookup the same object shape, so writing a field changes a value, not the shape, and
 * the draft itself becomes the (frozen) result: nothing is copied.
 */
export function emptyDraft(ip: string, sources: ResultDraft['sources']): ResultDraft {
  return {
    ip,
    continent: null,
    country: null,
    country_name: null,
    region: null,
    region_code: null,
    city: null,
    latitude: null,
    longitude: null,
    timezone: null,
    asn: null,
    org: null,
    is_proxy: null,
    is_vpn: null,
    network: null,
    accuracy_radius_km: null,
    postal_code: null,
    isp: null,
    is_hosting: null,
    is_tor: null,
    is_relay: null,
    network_type: null,
    sources,
  };
}

/** The names of the fields a backend may supply (every key of a result but `ip` and `sources`). */
export const RESULT_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(emptyDraft('', {})).filter((key) => key !== 'ip' && key !== 'sources'),
);

/**
 * Takes the fields of one backend's answer that no earlier backend supplied (first non-null wins),
 * field by field in code: the draft always has the same shape and each schema's answers another
 * one, so these named reads and writes stay on V8's fast paths, where a loop over the answer's keys
 * does a generic lookup per field. `sources` is not touched; the resolver takes it from the
 * SourcesMemo, which applies the same rule to the answers' layouts.
 */
export function takeFields(draft: ResultDraft, answer: Readonly<GeoPartial>): void {
  // The radius belongs to the coordinates it was measured around: taken only from the answer whose
  // coordinates win (another file's radius would describe another location).
  const coordinatesHere = draft.latitude === null && answer.latitude != null;
  if (draft.continent === null) draft.continent = answer.continent ?? null;
  if (draft.country === null) draft.country = answer.country ?? null;
  if (draft.country_name === null) draft.country_name = answer.country_name ?? null;
  if (draft.region === null) draft.region = answer.region ?? null;
  if (draft.region_code === null) draft.region_code = answer.region_code ?? null;
  if (draft.city === null) draft.city = answer.city ?? null;
  if (draft.latitude === null) draft.latitude = answer.latitude ?? null;
  if (draft.longitude === null) draft.longitude = answer.longitude ?? null;
  if (draft.timezone === null) draft.timezone = answer.timezone ?? null;
  if (draft.asn === null) draft.asn = answer.asn ?? null;
  if (draft.org === null) draft.org = answer.org ?? null;
  if (draft.is_proxy === null) draft.is_proxy = answer.is_proxy ?? null;
  if (draft.is_vpn === null) draft.is_vpn = answer.is_vpn ?? null;
  // Only answers of backends without the fast path carry a network; tree answers report theirs
  // through MatchedNetwork.
  if (draft.network === null) draft.network = answer.network ?? null;
  if (draft.accuracy_radius_km === null && coordinatesHere)
    draft.accuracy_radius_km = answer.accuracy_radius_km ?? null;
  if (draft.postal_code === null) draft.postal_code = answer.postal_code ?? null;
  if (draft.isp === null) draft.isp = answer.isp ?? null;
  if (draft.is_hosting === null) draft.is_hosting = answer.is_hosting ?? null;
  if (draft.is_tor === null) draft.is_tor = answer.is_tor ?? null;
  if (draft.is_relay === null) draft.is_relay = answer.is_relay ?? null;
  if (draft.network_type === null) draft.network_type = answer.network_type ?? null;
}
