import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CompanyEnrichmentRequestSchema,
  CompanyEnrichmentResultSchema,
  ContactEnrichmentRequestSchema,
  ContactEnrichmentResultSchema,
  ErrorBodySchema,
  ServiceError,
} from '@svc/core';
import type { Enricher } from '@svc/enricher';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createSandboxEnricher } from '../sandbox-enricher.js';

/**
 * POST /v2/enrich/contact and POST /v2/enrich/company over `app.svc.enricher` (live keys) or the
 * sandbox enricher (test keys: magic inputs, no network). A match is 200 `{ person }` /
 * `{ company }`; no match is 204 with no body. Billing (live keys): a contact 204 is billed (the
 * spec says so); a company 204 is not (the spec is silent; DESIGN §7 favours the customer) unless
 * the account's plan says `bill_company_misses`. An invalid query is 400 `invalid_request` naming
 * the field (the enricher's own validation).
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
  const noContent = Type.Null({ description: 'No match: no body' });

  app.post(
    '/v2/enrich/contact',
    {
      config: { endpoint: 'enrich_contact' },
      schema: {
        operationId: 'enrichContact',
        tags: ['enrichment'],
        summary: 'Enrich a person',
        description:
          'One of `{ email }`, `{ domain, full_name }` or `{ profile_url }`. 200 `{ person }` with the spec’s fields plus names, email, profile URL, location and the source of each field; 204 with no body when nothing matches, billed all the same (spec). A body that is none of the three forms is 400 `invalid_request` naming the field.',
        body: ContactEnrichmentRequestSchema,
        response: { 200: ContactEnrichmentResultSchema, 204: noContent, 400: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const outcome = await enricherFor(request).enrichContact(request.body, {
        signal: request.deadlineSignal ?? undefined,
      });
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
          '`{ domain }`: a domain, or any URL or host on it (reduced to the registrable domain). 200 `{ company }` with name, domain, description, employee count, founding year, industry, location, technologies, social profiles, the site’s language, logo and the source of each field; 204 with no body when nothing matches, not billed unless the plan bills company misses.',
        body: CompanyEnrichmentRequestSchema,
        response: { 200: CompanyEnrichmentResultSchema, 204: noContent, 400: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const outcome = await enricherFor(request).enrichCompany(request.body, {
        signal: request.deadlineSignal ?? undefined,
      });
      if (!outcome.match) {
        if (!request.auth?.plan.bill_company_misses) request.billableUnits = 0;
        return reply.code(204).send(null);
      }
      return { company: outcome.match };
    },
  );
};
