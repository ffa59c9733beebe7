import { MmdbWriterError } from './errors.js';

/** The numeric types a caller can force with {@link mmdbTypes}. */
export type MmdbNumericType = 'uint16' | 'uint32' | 'int32' | 'uint64' | 'uint128' | 'double' | 'float';

const UINT16_MAX = 0xffff;
const UINT32_MAX = 0xffff_ffff;
const INT32_MIN = -0x8000_0000;
const INT32_MAX = 0x7fff_ffff;
const UINT64_MAX = (1n << 64n) - 1n;
const UINT128_MAX = (1n << 128n) - 1n;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * A number pinned to one MaxMind DB type. Create it with {@link mmdbTypes}; the constructor
 * checks the range so an impossible value fails where it is made, not at `toBuffer()`.
 */
export class MmdbTypedValue {
  readonly type: MmdbNumericType;
  /** `bigint` for uint64/uint128, `number` for every other type. */
  readonly value: number | bigint;

  constructor(type: MmdbNumericType, value: number | bigint) {
    this.type = type;
    this.value = checkTyped(type, value);
    Object.freeze(this);
  }
}

/** A map's values; keys are always UTF-8 strings in the format. */
export interface MmdbMap {
  readonly [key: string]: MmdbValue;
}

/**
 * Anything the writer can store. Plain JS values pick a type by the default mapping (see the
 * README); wrap a number in {@link mmdbTypes} to force another one.
 */
export type MmdbValue =
  | string
  | number
  | bigint
  | boolean
  | Uint8Array
  | MmdbTypedValue
  | readonly MmdbValue[]
  | MmdbMap;

/** Typed wrappers for numbers whose default mapping is not the type you want. */
export const mmdbTypes = {
  /** Unsigned 16-bit integer (0..65535). */
  uint16: (value: number): MmdbTypedValue => new MmdbTypedValue('uint16', value),
  /** Unsigned 32-bit integer (0..4294967295). */
  uint32: (value: number): MmdbTypedValue => new MmdbTypedValue('uint32', value),
  /** Signed 32-bit integer (-2147483648..2147483647). */
  int32: (value: number): MmdbTypedValue => new MmdbTypedValue('int32', value),
  /** Unsigned 64-bit integer; readers return it as a `bigint`. */
  uint64: (value: bigint | number): MmdbTypedValue => new MmdbTypedValue('uint64', value),
  /** Unsigned 128-bit integer; readers return it as a `bigint`. */
  uint128: (value: bigint | number): MmdbTypedValue => new MmdbTypedValue('uint128', value),
  /** IEEE-754 binary64, also for whole numbers such as a latitude of 37. */
  double: (value: number): MmdbTypedValue => new MmdbTypedValue('double', value),
  /** IEEE-754 binary32; the value is rounded to float precision when written. */
  float: (value: number): MmdbTypedValue => new MmdbTypedValue('float', value),
} as const;

function checkTyped(type: MmdbNumericType, value: number | bigint): number | bigint {
  switch (type) {
    case 'uint16':
      return checkInteger(type, value, 0, UINT16_MAX);
    case 'uint32':
      return checkInteger(type, value, 0, UINT32_MAX);
    case 'int32':
      return checkInteger(type, value, INT32_MIN, INT32_MAX);
    case 'uint64':
      return checkBigInteger(type, value, UINT64_MAX);
    case 'uint128':
      return checkBigInteger(type, value, UINT128_MAX);
    case 'double':
      if (typeof value !== 'number') throw invalidTyped(type, value, 'expected a number');
      return value;
    case 'float':
      if (typeof value !== 'number') throw invalidTyped(type, value, 'expected a number');
      if (Number.isFinite(value) && Math.abs(value) > FLOAT32_MAX) {
        throw invalidTyped(type, value, 'outside the float32 range; use mmdbTypes.double');
      }
      return value;
    default:
      throw new MmdbWriterError('invalid_value', `Unknown MaxMind DB numeric type ${JSON.stringify(type)}`);
  }
}

function checkInteger(type: MmdbNumericType, value: number | bigint, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalidTyped(type, value, 'expected an integer number');
  }
  if (value < min || value > max) throw invalidTyped(type, value, `outside ${min}..${max}`);
  return value;
}

function checkBigInteger(type: MmdbNumericType, value: number | bigint, max: bigint): bigint {
  if (typeof value === 'number') {
    // Above 2^53 a number may already have lost digits; insist on a bigint there.
    if (!Number.isSafeInteger(value)) {
      throw invalidTyped(type, value, 'expected a bigint or a safe integer number');
    }
    value = BigInt(value);
  }
  if (typeof value !== 'bigint') throw invalidTyped(type, value, 'expected a bigint');
  if (value < 0n || value > max) throw invalidTyped(type, value, `outside 0..${max}`);
  return value;
}

function invalidTyped(type: string, value: unknown, why: string): MmdbWriterError {
  return new MmdbWriterError('invalid_value', `mmdbTypes.${type}(${describe(value)}): ${why}`);
}

/** A short, safe rendering of any value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor
      ?.name;
    return name ? `a ${name}` : 'an object';
  }
  return String(value);
}
