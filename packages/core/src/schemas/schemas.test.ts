import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ERROR_CODES } from '../errors-table.js';
import { ServiceError } from '../service-error.js';
import {
  type BatchJob,
  BatchJobRequestSchema,
  BatchJobSchema,
  type WebhookEvent,
  WebhookEventSchema,
} from './batch.js';
import { type Page, PageSchema } from './common.js';
import {
  BulkVerifyRequestSchema,
  BulkVerifyResultSchema,
  type EmailVerificationResult,
  EmailVerificationResultSchema,
  VERIFICATION_STATES,
  VerifyEmailRequestSchema,
} from './email.js';
import { ErrorBodySchema } from './error.js';
import { type GeoLocationResult, GeoLocationResultSchema } from './geo.js';

const result: EmailVerificationResult = {
  email: 'alice@example.com',
  deliverable: true,
  state: 'deliverable',
  quality_score: 0.97,
  reasons: [],
  is_disposable: false,
  is_catch_all: false,
  mx: { accepts_mail: true, records: ['mx1.example.com'] },
  checked_at: '2026-01-15T09:30:00.000Z',
  request_id: 'req_01jh3k9a2b',
};

const job: BatchJob = {
  id: 'batch_01jh3k9a2b',
  object: 'batch_job',
  type: 'verify_email',
  status: 'completed',
  total: 2,
  processed: 2,
  failed: 0,
  counts: { deliverable: 2 },
  created_at: '2026-01-15T09:30:00.000Z',
  started_at: '2026-01-15T09:30:01.000Z',
  completed_at: '2026-01-15T09:30:02.000Z',
  webhook_url: null,
  results_url: '/v2/batch/batch_01jh3k9a2b/results',
  error: null,
};

describe('the API schemas', () => {
  it('are plain JSON Schema (what Fastify, ajv and OpenAPI read)', () => {
    const text = JSON.stringify(EmailVerificationResultSchema);
    expect(JSON.parse(text)).toEqual(EmailVerificationResultSchema);
    expect(EmailVerificationResultSchema.required).toEqual([
      'email',
      'deliverable',
      'state',
      'quality_score',
      'reasons',
      'is_disposable',
      'is_catch_all',
      'mx',
      'checked_at',
      'request_id',
    ]);
  });

  it('accept the objects the packages produce and refuse a wrong state', () => {
    const check = Compile(EmailVerificationResultSchema);
    expect(check.Check(result)).toBe(true);
    expect(check.Check({ ...result, smtp: null, suggestion: 'gmail.com', is_role_account: false })).toBe(
      true,
    );
    expect(check.Check({ ...result, state: 'valid' })).toBe(false);
    expect(check.Check({ ...result, mx: { accepts_mail: true } })).toBe(false);
    expect(Compile(BatchJobSchema).Check(job)).toBe(true);
    expect(Compile(BatchJobSchema).Check({ ...job, status: 'done' })).toBe(false);
    const event: WebhookEvent = {
      id: 'evt_01jh3k9a2b',
      object: 'event',
      type: 'batch.completed',
      created: 1_768_469_402,
      data: { object: job },
    };
    expect(Compile(WebhookEventSchema).Check(event)).toBe(true);
  });

  it('bound the request bodies as the spec does', () => {
    const bulk = Compile(BulkVerifyRequestSchema);
    expect(bulk.Check({ emails: Array(10_000).fill('a@example.com') })).toBe(true);
    expect(bulk.Check({ emails: Array(10_001).fill('a@example.com') })).toBe(false);
    expect(bulk.Check({ emails: [] })).toBe(false);
    const verify = Compile(VerifyEmailRequestSchema);
    expect(verify.Check({ email: 'a@example.com', options: { probe_mailbox: true } })).toBe(true);
    expect(verify.Check({ email: 'a@example.com', options: { probe: true } })).toBe(false);
    expect(verify.Check({ options: {} })).toBe(false);
    const batch = Compile(BatchJobRequestSchema);
    expect(batch.Check({ type: 'geo_ip', records: ['8.8.8.8'] })).toBe(true);
    expect(batch.Check({ type: 'geo', records: ['8.8.8.8'] })).toBe(false);
    expect(batch.Check({ type: 'geo_ip', records: Array(50_001).fill('8.8.8.8') })).toBe(false);
  });

  it('describe the bulk summary with every state', () => {
    expect(Object.keys(BulkVerifyResultSchema.properties.summary.properties)).toEqual([
      'total',
      ...VERIFICATION_STATES,
    ]);
  });

  it('ErrorBody is exactly what ServiceError.toBody produces, with the spec codes only', () => {
    const check = Compile(ErrorBodySchema);
    expect(check.Check(new ServiceError('invalid_ip', 'private').toBody('req_x'))).toBe(true);
    expect(check.Check({ error: { code: 'teapot', message: 'x', request_id: 'req_x' } })).toBe(false);
    expect(check.Check({ error: { code: 'not_found', message: 'x', request_id: 'req_x', stack: '…' } })).toBe(
      false,
    );
    expect(ErrorBodySchema.properties.error.properties.code.enum).toEqual(ERROR_CODES);
  });

  it('GeoLocationResult has every spec §2.3 field as required', () => {
    const spec = ['ip', 'continent', 'country', 'country_name', 'region', 'city', 'latitude', 'longitude'];
    const more = ['timezone', 'asn', 'org', 'is_proxy', 'is_vpn'];
    for (const name of [...spec, ...more]) expect(GeoLocationResultSchema.required).toContain(name);
  });

  it('the generic types agree with their schemas', () => {
    const stringPage = PageSchema(Type.String());
    expectTypeOf<Page<string>>().toEqualTypeOf<Static<typeof stringPage>>();
    expectTypeOf<WebhookEvent>().toEqualTypeOf<Static<typeof WebhookEventSchema>>();
    expectTypeOf<GeoLocationResult['asn']>().toEqualTypeOf<number | null>();
    const page: Page<string> = { data: ['a'], next_cursor: null, has_more: false };
    expect(Compile(stringPage).Check(page)).toBe(true);
    expect(Compile(stringPage).Check({ data: [1], next_cursor: null, has_more: false })).toBe(false);
  });
});
