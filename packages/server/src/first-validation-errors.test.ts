import { BatchJobRequestSchema, BulkVerifyRequestSchema, VerifyEmailRequestSchema } from '@svc/core';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { firstValidationErrors } from './first-validation-errors.js';
import { validationMessage } from './plugins/validation-message.js';

/** An array whose item at `index` counts its reads: proof that validation did (not) walk to it. */
function watchedList(length: number, item: unknown, index: number) {
  const list: unknown[] = Array.from({ length }, () => item);
  const reads = { count: 0 };
  Object.defineProperty(list, index, {
    get() {
      reads.count++;
      return item;
    },
  });
  return { list, reads };
}

describe('firstValidationErrors', () => {
  it('500,000 numbers where strings belong: the size is reported first, no item is described', () => {
    const { list, reads } = watchedList(500_000, 7, 499_999);
    const issues = firstValidationErrors(BulkVerifyRequestSchema, { emails: list });
    expect(issues).toHaveLength(1);
    expect(validationMessage(issues)).toBe('emails must not have more than 10000 items');
    expect(reads.count).toBe(0);
  });

  it('a list within its size stops at its first wrong item (the last one is never read)', () => {
    const { list, reads } = watchedList(50_000, 7, 49_999);
    const issues = firstValidationErrors(BatchJobRequestSchema, { type: 'geo_ip', records: list });
    expect(validationMessage(issues)).toBe('records[0] must be string');
    expect(reads.count).toBe(0);
  });

  it("reports the first wrong item past valid ones, with TypeBox's own message for it", () => {
    const records = ['8.8.8.8', '1.1.1.1', { ip: 'x' }, 4];
    expect(validationMessage(firstValidationErrors(BatchJobRequestSchema, { type: 'geo_ip', records }))).toBe(
      'records[2] must be string',
    );
  });

  it('an object with 60,000 unknown keys names a few of them, not all', () => {
    const body: Record<string, unknown> = { email: 'a@b.example' };
    for (let i = 0; i < 60_000; i++) body[`k${i}`] = i;
    const issues = firstValidationErrors(VerifyEmailRequestSchema, body);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.params?.additionalProperties).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(validationMessage(issues)).toBe('k0, k1, k2, k3, k4 are not known fields');
  });

  it('says what TypeBox says first for small values: required, unknown fields, nested fields, constants', () => {
    const schema = Type.Object(
      {
        a: Type.String(),
        b: Type.Array(Type.Integer(), { minItems: 1, maxItems: 2 }),
        c: Type.Optional(Type.Union([Type.Literal('x'), Type.Literal('y')])),
        d: Type.Optional(Type.Object({ e: Type.Boolean() }, { additionalProperties: false })),
      },
      { additionalProperties: false },
    );
    const values = [
      { b: [1], z: 1 },
      { a: 'q', b: [1], z: 1, y: 2 },
      { a: 1, b: [1] },
      { a: 'q', b: [] },
      { a: 'q', b: [1, 'two'] },
      { a: 'q', b: [1], c: 'z' },
      { a: 'q', b: [1], d: { e: 'yes' } },
      { a: 'q', b: [1], d: { f: true } },
      [],
      'text',
    ];
    for (const value of values) {
      expect(validationMessage(firstValidationErrors(schema, value))).toBe(
        validationMessage(Compile(schema).Errors(value)),
      );
    }
  });
});
