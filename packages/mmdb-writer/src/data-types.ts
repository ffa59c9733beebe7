/** Type numbers from the MaxMind DB spec ("Output Data Section"). */
export const DataType = {
  pointer: 1,
  utf8String: 2,
  double: 3,
  bytes: 4,
  uint16: 5,
  uint32: 6,
  map: 7,
  int32: 8,
  uint64: 9,
  uint128: 10,
  array: 11,
  boolean: 14,
  float: 15,
} as const;

/** Largest payload (or entry count) one field's size header can express. */
export const MAX_FIELD_SIZE = 65_821 + 0xff_ffff;

/** One distinct value, children referenced by id so equal subtrees are stored once. */
export type PoolEntry =
  | { readonly type: typeof DataType.utf8String; readonly value: Buffer }
  | { readonly type: typeof DataType.double | typeof DataType.float; readonly value: number }
  | { readonly type: typeof DataType.bytes; readonly value: Uint8Array }
  | {
      readonly type: typeof DataType.uint16 | typeof DataType.uint32 | typeof DataType.int32;
      readonly value: number;
    }
  | { readonly type: typeof DataType.uint64 | typeof DataType.uint128; readonly value: bigint }
  | { readonly type: typeof DataType.boolean; readonly value: boolean }
  /** Key id, value id, key id, value id, … in the caller's key order. */
  | { readonly type: typeof DataType.map; readonly value: readonly number[] }
  | { readonly type: typeof DataType.array; readonly value: readonly number[] };
