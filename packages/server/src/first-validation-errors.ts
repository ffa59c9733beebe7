import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ValidationIssue } from './plugins/validation-message.js';

/** Unknown property names reported at most (an object may carry tens of thousands). */
const UNKNOWN_NAMES_REPORTED = 5;

type Checker = ReturnType<typeof Compile>;
const checkers = new WeakMap<object, Checker>();

/** The compiled check of a (sub-)schema, compiled once. */
function checkerOf(schema: TSchema): Checker {
  let checker = checkers.get(schema);
  if (!checker) {
    checker = Compile(schema);
    checkers.set(schema, checker);
  }
  return checker;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `/emails` + `3` → `/emails/3` (JSON Pointer escaping). */
const child = (pointer: string, key: string | number) =>
  `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * The first problem of a value that failed its schema's check, in the order TypeBox's `Errors`
 * reports them (required, unknown properties, then each property; an array's size before its
 * items), found without walking the rest of the value. TypeBox's `Errors` walks all of it, every
 * item of a list included, even past the few errors it keeps: 500,000 numbers where strings
 * belong took about 0.7 s of the event loop before the 400 (issue 24). Here an object's
 * properties and an array's items are tried with their compiled checks until one fails, and only
 * that one is described; what has no such structure (a string, a union) is described by TypeBox,
 * on that part of the value only.
 */
export function firstValidationErrors(schema: TSchema, value: unknown, pointer = ''): ValidationIssue[] {
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' && isPlainObject(value) && isPlainObject(s.properties)) {
    const properties = s.properties as Record<string, TSchema>;
    const missing = ((s.required as string[] | undefined) ?? []).filter(
      (name) => !Object.hasOwn(value, name),
    );
    if (missing.length > 0) {
      return [
        {
          keyword: 'required',
          instancePath: pointer,
          params: { requiredProperties: missing },
          message: `must have required properties ${missing.join(', ')}`,
        },
      ];
    }
    if (s.additionalProperties === false) {
      const unknown: string[] = [];
      for (const name in value) {
        if (!Object.hasOwn(properties, name)) unknown.push(name);
        if (unknown.length === UNKNOWN_NAMES_REPORTED) break;
      }
      if (unknown.length > 0) {
        return [
          {
            keyword: 'additionalProperties',
            instancePath: pointer,
            params: { additionalProperties: unknown },
            message: 'must not have additional properties',
          },
        ];
      }
    }
    for (const [name, propertySchema] of Object.entries(properties)) {
      if (!Object.hasOwn(value, name)) continue;
      if (!checkerOf(propertySchema).Check(value[name]))
        return firstValidationErrors(propertySchema, value[name], child(pointer, name));
    }
  } else if (s.type === 'array' && Array.isArray(value)) {
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) {
      return [
        {
          keyword: 'maxItems',
          instancePath: pointer,
          params: { limit: s.maxItems },
          message: `must not have more than ${s.maxItems} items`,
        },
      ];
    }
    if (typeof s.minItems === 'number' && value.length < s.minItems) {
      return [
        {
          keyword: 'minItems',
          instancePath: pointer,
          params: { limit: s.minItems },
          message: `must not have fewer than ${s.minItems} items`,
        },
      ];
    }
    if (isPlainObject(s.items)) {
      const items = s.items as TSchema;
      const check = checkerOf(items);
      const at = value.findIndex((item) => !check.Check(item));
      if (at >= 0) return firstValidationErrors(items, value[at], child(pointer, at));
    }
  }
  // No structure to narrow down (or a keyword the steps above do not look at): TypeBox describes it.
  return checkerOf(schema)
    .Errors(value)
    .map((issue) => ({ ...issue, instancePath: pointer + issue.instancePath }));
}
