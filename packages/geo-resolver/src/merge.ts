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
    city: null,
    latitude: null,
    longitude: null,
    timezone: null,
    asn: null,
    org: null,
    is_proxy: null,
    is_vpn: null,
    network: null,
    accuracy_radius: null,
    postal_code: null,
    isp: null,
    is_hosting: null,
    is_tor: null,
    sources,
  };
}

/**
 * Takes the fields of one backend's answer that no earlier backend supplied, and records the
 * backend in `sources` for each. Iterates the answer's own keys (about ten), in their order, which
 * is the order `sources` lists them in; keys that are not fields are ignored.
 */
export function mergeAnswer(draft: ResultDraft, answer: Readonly<GeoPartial>, backendId: string): void {
  const { sources } = draft;
  for (const key in answer) {
    const field = key as GeoField;
    const value = answer[field];
    if (value === null || value === undefined || draft[field] !== null) continue;
    (draft as Record<GeoField, GeoFields[GeoField]>)[field] = value;
    sources[field] = backendId;
  }
}

/**
 * mergeAnswer for shared answers, field by field in code: the draft always has the same shape and
 * each schema's answers another one, so these named reads and writes stay on V8's fast paths,
 * where a loop over keys does a generic lookup per field. `sources` is not touched; the resolver
 * takes it from the SourcesMemo, which applies the same first-non-null rule to the layouts.
 */
export function takeFields(draft: ResultDraft, answer: Readonly<GeoPartial>): void {
  if (draft.continent === null) draft.continent = answer.continent ?? null;
  if (draft.country === null) draft.country = answer.country ?? null;
  if (draft.country_name === null) draft.country_name = answer.country_name ?? null;
  if (draft.region === null) draft.region = answer.region ?? null;
  if (draft.city === null) draft.city = answer.city ?? null;
  if (draft.latitude === null) draft.latitude = answer.latitude ?? null;
  if (draft.longitude === null) draft.longitude = answer.longitude ?? null;
  if (draft.timezone === null) draft.timezone = answer.timezone ?? null;
  if (draft.asn === null) draft.asn = answer.asn ?? null;
  if (draft.org === null) draft.org = answer.org ?? null;
  if (draft.is_proxy === null) draft.is_proxy = answer.is_proxy ?? null;
  if (draft.is_vpn === null) draft.is_vpn = answer.is_vpn ?? null;
  if (draft.accuracy_radius === null) draft.accuracy_radius = answer.accuracy_radius ?? null;
  if (draft.postal_code === null) draft.postal_code = answer.postal_code ?? null;
  if (draft.isp === null) draft.isp = answer.isp ?? null;
  if (draft.is_hosting === null) draft.is_hosting = answer.is_hosting ?? null;
  if (draft.is_tor === null) draft.is_tor = answer.is_tor ?? null;
}
