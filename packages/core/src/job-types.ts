/**
 * Every batch job type, described once: what the server's upload route, `svc batch run`, the
 * dashboard and plan gating read. A new job type is added here (and gets a processor in
 * `@svc/batch-runner`); the lists elsewhere derive from this table, and a guard test fails when a
 * hard-coded copy of it appears.
 *
 * This module has no imports, so a browser bundle (the dashboard) can take it alone through the
 * `@svc/core/job-types` subpath.
 */

/** What one record of a job is. */
export type JobRecordKind = 'email' | 'ip' | 'domain';

export interface JobTypeSpec {
  /** A short human label (the dashboard's choice, help texts). */
  label: string;
  /** What each record is. */
  record: JobRecordKind;
  /** What the processor takes from each record, in words (help texts, error messages). */
  input: string;
  /**
   * The API endpoint the job type stands for: a plan without it may not run the job type either
   * (the server's plan gating checks this id as it checks the endpoint's own route).
   */
  endpoint: string;
  /**
   * The count keys whose records are credited back when a job ends, not billed (batch billing in
   * the server): answers that are not verdicts, because our own side could not look (a verify
   * job's `dns_unavailable`: the resolver was not trusted; an enrich job's `all_adapters_failed`:
   * no source could be reached), and a company job's `no_match` (company misses, unless the plan
   * has `bill_company_misses`). Absent: all billed.
   */
  creditedCounts?: readonly string[];
}

/** The job types in a stable order (DESIGN §6); the order is the API's enum order. */
export const JOB_TYPES = {
  verify_email: {
    label: 'Verify emails',
    record: 'email',
    input: 'an email address',
    endpoint: 'verify_email',
    creditedCounts: ['dns_unavailable'],
  },
  geo_ip: {
    label: 'Geolocate IPs',
    record: 'ip',
    input: 'an IPv4 or IPv6 address',
    endpoint: 'geo_ip',
  },
  enrich_contact: {
    label: 'Enrich contacts (emails)',
    record: 'email',
    input: 'an email address',
    endpoint: 'enrich_contact',
    // Contact misses are billed (the spec); a record no source could be looked up for is not.
    creditedCounts: ['all_adapters_failed'],
  },
  enrich_company: {
    label: 'Enrich companies (domains)',
    record: 'domain',
    input: 'a domain (or a URL or host name)',
    endpoint: 'enrich_company',
    creditedCounts: ['no_match', 'all_adapters_failed'],
  },
} as const satisfies Record<string, JobTypeSpec>;

/** A job type's id. */
export type JobTypeId = keyof typeof JOB_TYPES;

/** The job type ids in the table's order. */
export const JOB_TYPE_IDS = Object.keys(JOB_TYPES) as JobTypeId[];

export function isJobTypeId(value: unknown): value is JobTypeId {
  return typeof value === 'string' && Object.hasOwn(JOB_TYPES, value);
}

/** The job type ids for messages and help: `verify_email, geo_ip, …`. */
export function jobTypeList(separator = ', '): string {
  return JOB_TYPE_IDS.join(separator);
}
