import type { EnrichmentAdapter } from '../adapter.js';
import { createApolloAdapters } from './apollo.js';
import { createHunterAdapters } from './hunter.js';
import { createPeopleDataLabsAdapters } from './peopledatalabs.js';
import type { ProviderOptions } from './provider-http.js';

/** A paid enrichment provider: used only when its API key is given. */
export interface PaidProvider {
  /** The adapter id of its person adapter (its company adapter is `<id>_company`). */
  id: string;
  /** Its name for people. */
  name: string;
  /** The environment variable `svc serve` and `svc enrich` read its API key from. */
  envVar: `SVC_${string}_API_KEY`;
  /** Its person and company adapters for one key. */
  create(options: ProviderOptions): {
    person: EnrichmentAdapter<'person'>;
    company: EnrichmentAdapter<'company'>;
  };
}

/**
 * The paid providers, in their default priority order: the one registry `svc serve`'s
 * configuration, the CLI's `--adapters` and the docs read. A new provider is added here.
 * This module loads only the providers' adapters (a light `@svc/enricher/providers` subpath).
 */
export const PAID_PROVIDERS = [
  {
    id: 'peopledatalabs',
    name: 'People Data Labs',
    envVar: 'SVC_PEOPLEDATALABS_API_KEY',
    create: createPeopleDataLabsAdapters,
  },
  { id: 'hunter', name: 'Hunter', envVar: 'SVC_HUNTER_API_KEY', create: createHunterAdapters },
  { id: 'apollo', name: 'Apollo', envVar: 'SVC_APOLLO_API_KEY', create: createApolloAdapters },
] as const satisfies readonly PaidProvider[];

export type PaidProviderId = (typeof PAID_PROVIDERS)[number]['id'];

/** The adapters of every provider whose key is in `env`, in priority order. */
export function paidProviderAdapters(env: Record<string, string | undefined>): EnrichmentAdapter[] {
  return PAID_PROVIDERS.flatMap((provider) => {
    const apiKey = env[provider.envVar];
    if (!apiKey) return [];
    const { person, company } = provider.create({ apiKey });
    return [person as EnrichmentAdapter, company as EnrichmentAdapter];
  });
}
