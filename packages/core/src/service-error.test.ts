import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_TABLE, isErrorCode } from './errors-table.js';
import { ServiceError } from './service-error.js';

// The spec's table (§7), written out independently so a drift in ERROR_TABLE fails here.
const SPEC: Array<[string, number]> = [
  ['invalid_request', 400],
  ['invalid_ip', 400],
  ['invalid_api_key', 401],
  ['quota_exceeded', 402],
  ['endpoint_not_in_plan', 403],
  ['not_found', 404],
  ['unprocessable', 422],
  ['rate_limited', 429],
  ['internal_error', 500],
  ['upstream_timeout', 503],
];

describe('error table', () => {
  it('has exactly the spec codes, in the spec order', () => {
    expect(ERROR_CODES).toEqual(SPEC.map(([code]) => code));
  });

  it.each(SPEC)('%s maps to HTTP %i and produces the spec body', (code, status) => {
    if (!isErrorCode(code)) throw new Error(`not a code: ${code}`);
    const error = new ServiceError(code, `something about ${code}`);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.toBody('req_x')).toStrictEqual({
      error: { code, message: `something about ${code}`, request_id: 'req_x' },
    });
  });

  it('marks only server-side, rate and upstream failures retryable by default', () => {
    const retryable = ERROR_CODES.filter((code) => new ServiceError(code, 'x').retryable);
    expect(retryable).toEqual(['rate_limited', 'internal_error', 'upstream_timeout']);
  });

  it('rejects strings that are not codes', () => {
    expect(isErrorCode('teapot')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(404)).toBe(false);
  });
});

describe('ServiceError', () => {
  it('keeps cause, retryable override, request id and retry-after', () => {
    const cause = new Error('ETIMEOUT');
    const error = new ServiceError('upstream_timeout', 'DNS did not answer', {
      cause,
      retryable: false,
      requestId: 'req_1',
      retryAfterSeconds: 3,
    });
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(false);
    expect(error.retryAfterSeconds).toBe(3);
    expect(error.toBody()).toStrictEqual({
      error: { code: 'upstream_timeout', message: 'DNS did not answer', request_id: 'req_1' },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ServiceError');
  });

  it('never leaks the cause or stack into the body', () => {
    const error = new ServiceError('internal_error', 'failed', { cause: new Error('secret path /etc/x') });
    expect(JSON.stringify(error.toBody('req_1'))).not.toContain('secret');
  });

  it('is recognised by ServiceError.is, also across copies, and nothing else is', () => {
    expect(ServiceError.is(new ServiceError('not_found', 'no such batch'))).toBe(true);
    const foreign = { [Symbol.for('@svc/core/ServiceError')]: true };
    expect(ServiceError.is(foreign)).toBe(true);
    expect(ServiceError.is(new Error('x'))).toBe(false);
    expect(ServiceError.is(null)).toBe(false);
    expect(ServiceError.is({ code: 'not_found' })).toBe(false);
  });

  it('refuses unknown codes, empty messages, and a body without a request id', () => {
    // @ts-expect-error: not a code
    expect(() => new ServiceError('teapot', 'x')).toThrow('Unknown error code: "teapot"');
    expect(() => new ServiceError('not_found', '')).toThrow('non-empty message');
    expect(() => new ServiceError('not_found', 'x').toBody()).toThrow('needs a request id');
  });

  it('has a meaning for every code', () => {
    for (const code of ERROR_CODES) expect(ERROR_TABLE[code].meaning.length).toBeGreaterThan(10);
  });
});
