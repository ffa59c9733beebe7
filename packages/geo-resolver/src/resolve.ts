import type { NormalizedIp } from '@svc/ip-address';
import type { FieldLayout, GeoBackend, MatchedNetwork, SharedAnswer } from './backend.js';
import { formatNetwork } from './backends/network.js';
import { fillDerivedFields, type TimezoneFinder } from './fill.js';
import { emptyDraft, mergeAnswer, type ResultDraft, takeFields } from './merge.js';
import type { GeoResult } from './resolver.js';
import {
  DERIVED_CONTINENT,
  DERIVED_COUNTRY_NAME,
  DERIVED_TIMEZONE,
  type Sources,
  SourcesMemo,
} from './sources-memo.js';

/** Answers one normalized address from the backends: merge, fill, freeze. No result cache. */
export type Resolve = (normalized: NormalizedIp) => Readonly<GeoResult>;

type FastLookup = (address: NormalizedIp['address'], match: MatchedNetwork) => SharedAnswer | null;

const NO_SOURCES: Readonly<Sources> = Object.freeze({});

/**
 * Builds the resolve step. When every backend has the fast path (mmdb files), answers are shared
 * records merged field by field in code and `sources` comes from a memo; otherwise each answer is
 * merged key by key. Both give the same results, `sources` key order included.
 */
export function createResolve(
  backends: readonly GeoBackend[],
  timezoneFinder: TimezoneFinder | undefined,
  onBackendError: ((backend: string, error: Error) => void) | undefined,
): Resolve {
  const match: MatchedNetwork = { prefixLength: 0 };

  /** Fills what the data lacks; returns the DERIVED_* bits of the fields it filled. */
  function fill(draft: ResultDraft): number {
    const hadName = draft.country_name !== null;
    const hadContinent = draft.continent !== null;
    const hadZone = draft.timezone !== null;
    fillDerivedFields(draft, timezoneFinder);
    return (
      (!hadName && draft.country_name !== null ? DERIVED_COUNTRY_NAME : 0) |
      (!hadContinent && draft.continent !== null ? DERIVED_CONTINENT : 0) |
      (!hadZone && draft.timezone !== null ? DERIVED_TIMEZONE : 0)
    );
  }

  function finish(draft: ResultDraft): Readonly<GeoResult> {
    // The spec's flags are booleans: no data about anonymity reads as "not flagged".
    draft.is_proxy ??= false;
    draft.is_vpn ??= false;
    return Object.freeze(draft) as Readonly<GeoResult>;
  }

  const fast = backends.map((backend) => backend.lookupAddress?.bind(backend));
  if (fast.every((lookup) => lookup !== undefined)) {
    const lookups = fast as FastLookup[];
    const ids = backends.map((backend) => backend.id);
    const memo = new SourcesMemo(ids);
    return ({ ip, address, embedded }) => {
      // 6to4, Teredo and NAT64 addresses are looked up by the IPv4 address they carry.
      const lookupAddress = embedded === null ? address : embedded.ipv4;
      const draft = emptyDraft(ip, NO_SOURCES);
      const layouts = new Array<FieldLayout | null>(lookups.length);
      for (let index = 0; index < lookups.length; index++) {
        let answer: SharedAnswer | null = null;
        try {
          answer = (lookups[index] as FastLookup)(lookupAddress, match);
        } catch (error) {
          onBackendError?.(ids[index] as string, error as Error);
        }
        layouts[index] = answer ? answer.layout : null;
        if (!answer) continue;
        takeFields(draft, answer.fields);
        // Formatted for the first answer only, as that is the network reported.
        if (draft.network === null) draft.network = formatNetwork(lookupAddress, match.prefixLength);
      }
      draft.sources = memo.get(layouts, fill(draft));
      return finish(draft);
    };
  }

  return ({ ip, address, embedded }) => {
    const lookupAddress = embedded === null ? address : embedded.ipv4;
    const sources: Sources = {};
    const draft = emptyDraft(ip, sources);
    backends.forEach((backend, index) => {
      try {
        const lookup = fast[index];
        if (lookup) {
          const answer = lookup(lookupAddress, match);
          if (answer === null) return;
          mergeAnswer(draft, answer.fields, backend.id);
          if (draft.network === null) {
            draft.network = formatNetwork(lookupAddress, match.prefixLength);
            sources.network = backend.id;
          }
        } else {
          const answer = backend.lookup(lookupAddress.canonical, lookupAddress.family);
          if (answer) mergeAnswer(draft, answer, backend.id);
        }
      } catch (error) {
        onBackendError?.(backend.id, error as Error);
      }
    });
    const derived = fill(draft);
    if (derived & DERIVED_COUNTRY_NAME) sources.country_name = 'derived';
    if (derived & DERIVED_CONTINENT) sources.continent = 'derived';
    if (derived & DERIVED_TIMEZONE) sources.timezone = 'derived';
    Object.freeze(sources);
    return finish(draft);
  };
}
