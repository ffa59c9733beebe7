import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CompanyEnrichmentRequestSchema,
  CompanyEnrichmentResultSchema,
  ContactEnrichmentRequestSchema,
  ContactEnrichmentResultSchema,
  ErrorBodySchema,
  ServiceError,
} from '@svc/core';
import { adapterOutcomes, type Enricher, type EnrichOutcome, MISS_REASONS } from '@svc/enricher';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createSandboxEnricher } from '../sandbox-enricher.js';

/** The header a 204 (and the 503 of `all_adapters_failed`) says why there is no match in. */
export const ENRICHMENT_OUTCOME_HEADER = 'X-Enrichment-Outcome';

const outcomeHeaderDoc = {
  type: 'string',
  enum: [...MISS_REASONS],
  description:
    'Why there is no match: `no_match` (the sources that answered do not know the subject, or not confidently enough), `not_found_on_site` (the company’s own site was read and does not have it), `site_unreachable` (the company’s site could not be read; other sources answered), `suppressed` (the subject was erased; nothing was looked up). `all_adapters_failed` comes with a 503 instead: no source could be reached.',
};

/**
 * Puts how each adapter answered on the request's log line, and for a miss the reason in the
 * `X-Enrichment-Outcome` header. A miss where no adapter reached its source is no verdict: 503
 * `upstream_timeout`, not billed (DESIGN §12), instead of a 204. A contact match's company lookup
 * is logged apart (`enrichment_company_adapters`).
 */
function explain(request: FastifyRequest, reply: FastifyReply, outcome: EnrichOutcome<unknown>): void {
  request.logFields = {
    enrichment_outcome: outcome.match ? 'match' : outcome.miss,
    enrichment_adapters: adapterOutcomes(outcome.adapters),
    // A contact's company lookup (its company domain's waterfall), when one ran.
    ...(outcome.companyAdapters
      ? { enrichment_company_adapters: adapterOutcomes(outcome.companyAdapters) }
      : {}),
  };
  if (outcome.match || !outcome.miss) return;
  reply.header(ENRICHMENT_OUTCOME_HEADER, outcome.miss);
  if (outcome.miss === 'all_adapters_failed') {
    const tried = outcome.adapters.map((report) => report.adapter).join(', ');
    throw new ServiceError(
      'upstream_timeout',
      `no enrichment source could be reached (${tried}): nothing was looked at, so this is no verdict and is not billed; try again later`,
    );
  }
}

/**
 * POST /v2/enrich/contact and POST /v2/enrich/company over `app.svc.enricher` (live keys) or the
 * sandbox enricher (test keys: magic inputs, no network). A match is 200 `{ person }` /
 * `{ company }`; no match is 204 with no body and the reason in `X-Enrichment-Outcome`; no source
 * reached at all is 503 `upstream_timeout`, never billed. Billing (live keys): a contact 204 is
 * billed (the spec says so); a company 204 is not (the spec is silent; DESIGN §7 favours the
 * customer) unless the account's plan says `bill_company_misses`. An invalid query is 400
 * `invalid_request` naming the field (the enricher's own validation). The request's log line
 * carries the outcome and each adapter's answer (`enrichment_outcome`, `enrichment_adapters`).
 */
export const enrichRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sandbox = createSandboxEnricher({ now: () => app.svc.now() });
  const enricherFor = (request: FastifyRequest): Enricher => {
    if (request.auth?.environment === 'test') return sandbox;
    if (!app.svc.enricher) {
      throw new ServiceError(
        'internal_error',
        'this server has no enricher configured (ServerServices.enricher)',
      );
    }
    return app.svc.enricher;
  };
  const noContent = {
    ...Type.Null({ description: 'No match: no body; why in `X-Enrichment-Outcome`' }),
    headers: { [ENRICHMENT_OUTCOME_HEADER]: outcomeHeaderDoc },
  } as unknown as ReturnType<typeof Type.Null>;

  app.post(
    '/v2/enrich/contact',
    {
      config: { endpoint: 'enrich_contact' },
      schema: {
        operationId: 'enrichContact',
        tags: ['enrichment'],
        summary: 'Enrich a person',
        description:
          'One of `{ email }`, `{ domain, full_name }` or `{ profile_url }`. 200 `{ person }` with the spec’s fields plus names, email, profile URL, location and the source of each field; its `company` carries the company lookup of the person’s company domain (every field of `POST /v2/enrich/company` but confidence and sources; their sources are in `sources` as `company_<field>`); 204 with no body when nothing matches, billed all the same (spec), its reason in the `X-Enrichment-Outcome` header; 503 `upstream_timeout`, not billed, when no source could be reached at all. A body that is none of the three forms is 400 `invalid_request` naming the field.',
        body: ContactEnrichmentRequestSchema,
        response: { 200: ContactEnrichmentResultSchema, 204: noContent, 400: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const outcome = await enricherFor(request).enrichContact(request.body, {
        signal: request.deadlineSignal ?? undefined,
      });
      explain(request, reply, outcome);
      if (!outcome.match) return reply.code(204).send(null);
      return { person: outcome.match };
    },
  );

  app.post(
    '/v2/enrich/company',
    {
      config: { endpoint: 'enrich_company' },
      schema: {
        operationId: 'enrichCompany',
        tags: ['enrichment'],
        summary: 'Enrich a company by domain',
        description:
          '`{ domain }`: a domain, or any URL or host on it (reduced to the registrable domain). 200 `{ company }` with name, domain, description, employee count, founding year, industry, location, technologies, social profiles, the site’s language, logo and the source of each field; 204 with no body when nothing matches, not billed unless the plan bills company misses, its reason in the `X-Enrichment-Outcome` header; 503 `upstream_timeout`, not billed, when no source could be reached at all.',
        body: CompanyEnrichmentRequestSchema,
        response: { 200: CompanyEnrichmentResultSchema, 204: noContent, 400: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const outcome = await enricherFor(request).enrichCompany(request.body, {
        signal: request.deadlineSignal ?? undefined,
      });
      explain(request, reply, outcome);
      if (!outcome.match) {
        if (!request.auth?.plan.bill_company_misses) request.billableUnits = 0;
        return reply.code(204).send(null);
      }
      return { company: outcome.match };
    },
  );
};
