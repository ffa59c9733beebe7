import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { serializerCompiler, validatorCompiler } from './schema-compilers.js';

const compile = (schema: ReturnType<typeof Type.Object>, httpPart: string) =>
  validatorCompiler({ schema, httpPart, method: 'GET', url: '/x' });

describe('validatorCompiler', () => {
  const query = Type.Object({ limit: Type.Integer({ minimum: 1 }), cursor: Type.Optional(Type.String()) });

  it('passes a value that is valid as sent unchanged (the same object)', () => {
    const value = { limit: 5, cursor: 'abc' };
    const result = compile(query, 'querystring')(value) as { value: unknown };
    expect(result.value).toBe(value);
  });

  it('converts params and query strings only when they do not pass as sent', () => {
    const result = compile(query, 'querystring')({ limit: '10' }) as { value: unknown };
    expect(result.value).toEqual({ limit: 10 });
  });

  it('never converts a body: a string where an integer belongs is an error', () => {
    const result = compile(query, 'body')({ limit: '10' }) as { error?: unknown[] };
    expect(result.error).toBeDefined();
    expect(JSON.stringify(result.error)).toContain('/limit');
  });

  it('a body that fails is described by its first problem: a long list is not walked to its end', () => {
    const emails: unknown[] = Array.from({ length: 9_000 }, () => 7);
    let lastRead = false;
    Object.defineProperty(emails, 8_999, {
      get() {
        lastRead = true;
        return 7;
      },
    });
    const schema = Type.Object({ emails: Type.Array(Type.String(), { maxItems: 10_000 }) });
    const result = compile(schema, 'body')({ emails }) as { error?: { instancePath: string }[] };
    expect(result.error?.map((issue) => issue.instancePath)).toEqual(['/emails/0']);
    expect(lastRead).toBe(false);
  });

  it('reports what still fails after the conversion', () => {
    const result = compile(query, 'querystring')({ limit: 'ten' }) as { error?: unknown[] };
    expect(JSON.stringify(result.error)).toContain('/limit');
  });
});

describe('serializerCompiler', () => {
  it('writes what the handler returned as JSON, whatever the schema says', () => {
    const serialize = serializerCompiler({
      schema: Type.Object({ a: Type.String() }),
      method: 'GET',
      url: '/x',
      httpStatus: '200',
    });
    expect(serialize({ a: 'é"', b: null })).toBe('{"a":"é\\"","b":null}');
  });
});
