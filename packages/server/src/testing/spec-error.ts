import { expect } from 'vitest';

/**
 * Checks an error response: `status`, the spec's body (`{ error }` and nothing else) with `code`,
 * and the request id of the body in `X-Request-Id`. Returns the message for the test to check.
 */
export function specError(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status);
  const body = JSON.parse(response.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(response.headers['x-request-id']);
  return body.error.message as string;
}
