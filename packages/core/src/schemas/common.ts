import { type TNull, type TSchema, type TUnion, Type } from 'typebox';

/** `T | null`: the API spells an absent value as null, never by leaving the field out. */
export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}

/** An ISO 8601 UTC timestamp string, as every time in an HTTP body is. */
export const TimestampSchema = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC timestamp',
  examples: ['2026-01-15T09:30:00.000Z'],
});

/**
 * One page of a list endpoint (DESIGN §8 "Pagination"): pass `next_cursor` back as `?cursor=` to
 * get the next page; cursors are opaque and expire after 24 hours.
 */
export function PageSchema<T extends TSchema>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item),
      next_cursor: Nullable(Type.String({ description: 'Opaque; null on the last page' })),
      has_more: Type.Boolean(),
    },
    { description: 'One page of a cursor-paginated list' },
  );
}

/**
 * One page of a list endpoint: `{ data, next_cursor, has_more }`. Generic, so written out; a
 * type test checks it equals `Static<ReturnType<typeof PageSchema>>`.
 */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}
