import type { NormalizedIp } from '@svc/ip-address';
import type { FieldLayout, GeoBackend, MatchedNetwork, NetworkType, SharedAnswer } from './backend.js';
import { formatNetwork } from './backends/network.js';
import { wrapAnswer } from './backends/shared-answer.js';
import { fillDerivedFields, type TimezoneFinder } from './fill.js';
import { emptyDraft, type ResultDraft, takeFields } from './merge.js';
import type { GeoResult } from './resolver.js';
import {
  DERIVED_CONTINENT,
  DERIVED_COUNTRY_NAME,
  DERIVED_HOSTING,
  DERIVED_NETWORK_TYPE,
  DERIVED_TIMEZONE,
  type Sources,
  SourcesMemo,
} from './sources-memo.js';

/** Answers one normalized address from the backends: merge, fill, freeze. No result cache. */
export type Resolve = (normalized: NormalizedIp) => Readonly<GeoResult>;

type Lookup = (address: NormalizedIp['address'], match: MatchedNetwork) => SharedAnswer | null;

const NO_SOURCES: Readonly<Sources> = Object.freeze({});

/**
 * Builds the resolve step: one merge for every backend. Backends with the fast path (mmdb files)
 * answer with shared records and report their network through `match`; the others' answers are
 * wrapped into the same form. Fields are merged field by field in code (first non-null wins) and
 * `sources` comes from a memo over the answers' layouts.
 */
export function createResolve(
  backends: readonly GeoBackend[],
  timezoneFinder: TimezoneFinder | undefined,
  onBackendError: ((backend: string, error: Error) => void) | undefined,
  asnNetworkTypes?: ReadonlyMap<number, NetworkType>,
): Resolve {
  const match: MatchedNetwork = { prefixLength: 0 };
  const ids = backends.map((backend) => backend.id);
  const memo = new SourcesMemo(ids);
  const lookups: Lookup[] = backends.map(
    (backend) =>
      backend.lookupAddress?.bind(backend) ??
      ((address) => {
        const answer = backend.lookup(address.canonical, address.family);
        return answer ? wrapAnswer(answer) : null;
      }),
  );
  // Whether a backend's answers get their network from `match` (tree lookups) or carry it.
  const matches = backends.map(
    (backend) => backend.lookupAddress !== undefined && backend.reportsNetwork !== false,
  );

  /** Fills what the data lacks; returns the DERIVED_* bits of the fields it filled. */
  function fill(draft: ResultDraft): number {
    const hadName = draft.country_name !== null;
    const hadContinent = draft.continent !== null;
    const hadZone = draft.timezone !== null;
    fillDerivedFields(draft, timezoneFinder);
    let derived =
      (!hadName && draft.country_name !== null ? DERIVED_COUNTRY_NAME : 0) |
      (!hadContinent && draft.continent !== null ? DERIVED_CONTINENT : 0) |
      (!hadZone && draft.timezone !== null ? DERIVED_TIMEZONE : 0);
    // The network type of the address's AS, where the table knows it and no list said more.
    if (asnNetworkTypes !== undefined && draft.asn !== null) {
      const type = asnNetworkTypes.get(draft.asn);
      if (type !== undefined) {
        if (draft.network_type === null) {
          draft.network_type = type;
          derived |= DERIVED_NETWORK_TYPE;
        }
        if (draft.is_hosting === null) {
          draft.is_hosting = type === 'hosting';
          derived |= DERIVED_HOSTING;
        }
      }
    }
    return derived;
  }

  return ({ ip, address, embedded }) => {
    // 6to4, Teredo and NAT64 addresses are looked up by the IPv4 address they carry.
    const lookupAddress = embedded === null ? address : embedded.ipv4;
    const draft = emptyDraft(ip, NO_SOURCES);
    const layouts = new Array<FieldLayout | null>(lookups.length);
    for (let index = 0; index < lookups.length; index++) {
      let answer: SharedAnswer | null = null;
      try {
        answer = (lookups[index] as Lookup)(lookupAddress, match);
      } catch (error) {
        onBackendError?.(ids[index] as string, error as Error);
      }
      layouts[index] = answer ? answer.layout : null;
      if (!answer) continue;
      takeFields(draft, answer.fields);
      // Formatted only when this answer's network is the one reported.
      if (draft.network === null && matches[index])
        draft.network = formatNetwork(lookupAddress, match.prefixLength);
    }
    draft.sources = memo.get(layouts, fill(draft));
    // The spec's flags are booleans: no data about anonymity reads as "not flagged".
    draft.is_proxy ??= false;
    draft.is_vpn ??= false;
    return Object.freeze(draft) as Readonly<GeoResult>;
  };
}
