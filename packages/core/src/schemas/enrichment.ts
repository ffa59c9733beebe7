import { Type } from 'typebox';
import { Nullable } from './common.js';

/**
 * Request and response bodies of POST /enrich/contact and POST /enrich/company as TypeBox
 * schemas (the server validates, serialises and documents with them). The TypeScript types stay
 * in `types/enrichment.ts`; `schemas.test.ts` checks the two agree. Fields beyond spec §2.4 are
 * the extras it allows: names, email, profile URL, location and where each field came from.
 */

const SenioritySchema = Type.Union(
  [
    Type.Literal('executive'),
    Type.Literal('vp'),
    Type.Literal('director'),
    Type.Literal('manager'),
    Type.Literal('senior'),
    Type.Literal('entry'),
    Type.Literal('intern'),
    Type.Literal('unknown'),
  ],
  { description: 'Level classified from the title by our own rules' },
);

const DepartmentSchema = Type.Union(
  [
    Type.Literal('engineering'),
    Type.Literal('sales'),
    Type.Literal('marketing'),
    Type.Literal('finance'),
    Type.Literal('hr'),
    Type.Literal('operations'),
    Type.Literal('legal'),
    Type.Literal('product'),
    Type.Literal('design'),
    Type.Literal('support'),
    Type.Literal('executive'),
    Type.Literal('education'),
    Type.Literal('health'),
    Type.Literal('other'),
  ],
  {
    description:
      'Function classified from the title by our own rules (`other`: a named function outside the list); null when the title names none',
  },
);

/** Where one field came from: the adapter and when it answered (cached answers keep their time). */
export const FieldSourceSchema = Type.Object({
  adapter: Type.String({ description: 'Adapter id (`website`, `dns`, `dataset`, `peopledatalabs`, …)' }),
  retrieved_at: Type.String({ format: 'date-time' }),
  evidence: Type.Optional(
    Type.String({
      description:
        'What within the source gave the field, when the adapter says (`og:site_name`, `schema.org Organization (identity)`, `about page text (…)`)',
    }),
  ),
});

const SourcesSchema = Type.Record(Type.String(), FieldSourceSchema, {
  description: 'Field (flat name, e.g. `title`, `company_name`) → the adapter that supplied it and when',
});

/** The body of POST /enrich/contact: exactly one of the three forms (the enricher checks which). */
export const ContactEnrichmentRequestSchema = Type.Object(
  {
    email: Type.Optional(Type.String({ description: 'The person’s email address' })),
    domain: Type.Optional(
      Type.String({ description: 'The company’s domain (any URL or host), with `full_name`' }),
    ),
    full_name: Type.Optional(Type.String({ description: 'The person’s full name, with `domain`' })),
    profile_url: Type.Optional(Type.String({ description: 'A professional-network profile URL' })),
  },
  {
    additionalProperties: false,
    description: 'One of `{ email }`, `{ domain, full_name }` or `{ profile_url }`',
  },
);

/** The body of POST /enrich/company. */
export const CompanyEnrichmentRequestSchema = Type.Object(
  { domain: Type.String({ description: 'The company’s domain, or any URL or host on it' }) },
  { additionalProperties: false },
);

export const PersonSchema = Type.Object(
  {
    full_name: Nullable(Type.String()),
    title: Nullable(Type.String()),
    seniority: SenioritySchema,
    department: Type.Optional(Nullable(DepartmentSchema)),
    company: Nullable(
      Type.Object(
        {
          name: Nullable(Type.String()),
          domain: Nullable(Type.String()),
          employee_count: Nullable(Type.Integer()),
          founded: Nullable(Type.Integer({ description: 'year' })),
          technologies: Type.Array(Type.String()),
          description: Type.Optional(Nullable(Type.String())),
          industry: Type.Optional(Nullable(Type.String())),
          location: Type.Optional(Nullable(Type.String())),
          social: Type.Optional(
            Type.Record(Type.String(), Type.String(), {
              description: 'Network (`linkedin`, `x`, …) → the company’s profile URL',
            }),
          ),
          language: Type.Optional(
            Nullable(
              Type.String({
                description: 'The company site’s language as a BCP 47 primary language subtag (`en`, `de`)',
              }),
            ),
          ),
          logo: Type.Optional(Nullable(Type.String())),
        },
        {
          description:
            'The person’s company: what the person’s sources say, completed from the company lookup for the company’s domain (as `POST /v2/enrich/company` answers it, cached per domain); each field’s source is in `sources` as `company_<field>`',
        },
      ),
    ),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    first_name: Type.Optional(Nullable(Type.String())),
    last_name: Type.Optional(Nullable(Type.String())),
    email: Type.Optional(Nullable(Type.String())),
    profile_url: Type.Optional(Nullable(Type.String())),
    location: Type.Optional(Nullable(Type.String())),
    sources: Type.Optional(SourcesSchema),
  },
  { description: 'A person profile (spec §2.4 plus the extras it allows)' },
);

export const CompanyProfileSchema = Type.Object(
  {
    name: Nullable(Type.String()),
    domain: Type.String({ description: 'Registrable domain' }),
    description: Nullable(Type.String()),
    employee_count: Nullable(Type.Integer()),
    founded: Nullable(Type.Integer({ description: 'year' })),
    industry: Nullable(Type.String()),
    location: Nullable(Type.String()),
    technologies: Type.Array(Type.String()),
    social: Type.Record(Type.String(), Type.String(), {
      description: 'Network (`linkedin`, `x`, …) → profile URL',
    }),
    language: Nullable(
      Type.String({
        description:
          'The site’s language as a BCP 47 primary language subtag (`en`, `de`): its declared language, checked against its text',
      }),
    ),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    logo: Type.Optional(Nullable(Type.String())),
    sources: Type.Optional(SourcesSchema),
  },
  { description: 'A company profile' },
);

export const ContactEnrichmentResultSchema = Type.Object({ person: PersonSchema });
export const CompanyEnrichmentResultSchema = Type.Object({ company: CompanyProfileSchema });
