import { expect } from 'vitest';

/** An ISO 8601 UTC time as the API writes it. */
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Asserts the API's JSON conventions on a whole document: every key snake_case, and every time
 * (a key ending in `_at`, or `at`) an ISO 8601 string or null, never epoch milliseconds.
 */
export function expectApiJson(value: unknown, path = '$'): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) expectApiJson(item, `${path}[${index}]`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    expect(key, `${path}.${key} is not snake_case`).toMatch(/^[a-z][a-z0-9_]*$/);
    if (key === 'at' || key.endsWith('_at')) {
      if (item !== null) expect(item, `${path}.${key} is not ISO 8601`).toMatch(ISO_8601);
    } else expectApiJson(item, `${path}.${key}`);
  }
}
