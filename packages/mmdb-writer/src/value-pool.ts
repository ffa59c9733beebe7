import { DataType, MAX_FIELD_SIZE, type PoolEntry } from './data-types.js';
import { MmdbWriterError } from './errors.js';
import { describe, type MmdbNumericType, MmdbTypedValue } from './values.js';

const UINT16_MAX = 0xffff;
const UINT32_MAX = 0xffff_ffff;
const INT32_MIN = -0x8000_0000;
const UINT64_LIMIT = 2 ** 64;
const UINT64_MAX = (1n << 64n) - 1n;
const UINT128_MAX = (1n << 128n) - 1n;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Hash-consing store for record values. Every distinct value (by type and content) gets one
 * id, and containers refer to their children by id, so "is this subtree already written?"
 * is a map lookup on a short key instead of a deep comparison. This is what makes the data
 * section deduplication cheap.
 */
export class ValuePool {
  readonly entries: PoolEntry[] = [];
  /** One lookup table per data type, keyed by content (the string itself, child ids, …). */
  private readonly ids = new Map<number, Map<string | number | bigint, number>>();
  private readonly scratch = new DataView(new ArrayBuffer(8));

  /** Validates `value` and returns its id; `label` prefixes the path in error messages. */
  add(value: unknown, label = 'record'): number {
    return this.intern(value, [label], new Set());
  }

  get(id: number): PoolEntry {
    const entry = this.entries[id];
    if (entry === undefined) throw new RangeError(`No pooled value with id ${id}`);
    return entry;
  }

  private intern(value: unknown, path: (string | number)[], ancestors: Set<object>): number {
    switch (typeof value) {
      case 'string':
        return this.addString(value, path);
      case 'boolean':
        return this.put(value ? 1 : 0, { type: DataType.boolean, value });
      case 'number':
        return this.addNumber(value, path);
      case 'bigint':
        return this.addBigint(value, path);
      case 'object':
        if (value === null) break;
        if (value instanceof MmdbTypedValue) return this.addTyped(value.type, value.value);
        if (value instanceof Uint8Array) return this.addBytes(value, path);
        if (ancestors.has(value)) throw invalid(path, 'is a circular reference');
        if (Array.isArray(value)) return this.addContainer(DataType.array, value, path, ancestors);
        if (isPlainObject(value)) return this.addContainer(DataType.map, value, path, ancestors);
        break;
    }
    throw invalid(
      path,
      `is ${describe(value)}, which has no MaxMind DB type (use strings, numbers, booleans, bigints, Uint8Arrays, arrays, plain objects or mmdbTypes)`,
    );
  }

  private addString(value: string, path: (string | number)[]): number {
    const known = this.table(DataType.utf8String).get(value);
    if (known !== undefined) return known;
    if (LONE_SURROGATE.test(value))
      throw invalid(path, 'is not valid UTF-16 (lone surrogate), so not valid UTF-8');
    const bytes = Buffer.from(value, 'utf8');
    if (bytes.length > MAX_FIELD_SIZE) {
      throw invalid(path, `is ${bytes.length} bytes of UTF-8; one field holds at most ${MAX_FIELD_SIZE}`);
    }
    return this.put(value, { type: DataType.utf8String, value: bytes });
  }

  private addNumber(value: number, path: (string | number)[]): number {
    if (!Number.isFinite(value)) {
      throw invalid(path, `is ${value}; wrap it in mmdbTypes.double() if you really mean to store it`);
    }
    if (!Number.isInteger(value)) return this.addTyped('double', value);
    if (value < 0) {
      if (value < INT32_MIN) {
        throw invalid(path, `is ${value}, below the int32 range; use mmdbTypes.double() for it`);
      }
      return this.addTyped('int32', value);
    }
    if (value <= UINT16_MAX) return this.addTyped('uint16', value === 0 ? 0 : value);
    if (value <= UINT32_MAX) return this.addTyped('uint32', value);
    if (value < UINT64_LIMIT) return this.addTyped('uint64', BigInt(value));
    throw invalid(path, `is ${value}, above the uint64 range; use mmdbTypes.double() for it`);
  }

  private addBigint(value: bigint, path: (string | number)[]): number {
    if (value < 0n) throw invalid(path, `is ${value}n; negative bigints have no MaxMind DB type`);
    if (value <= UINT64_MAX) return this.addTyped('uint64', value);
    if (value <= UINT128_MAX) return this.addTyped('uint128', value);
    throw invalid(path, `is ${value}n, above the uint128 range`);
  }

  private addTyped(type: MmdbNumericType, value: number | bigint): number {
    switch (type) {
      case 'uint16':
      case 'uint32':
      case 'int32': {
        const dataType = DataType[type];
        // -0 and 0 are the same integer; one key keeps them one value.
        const n = (value as number) === 0 ? 0 : (value as number);
        return this.put(n, { type: dataType, value: n });
      }
      case 'uint64':
      case 'uint128': {
        const dataType = DataType[type];
        return this.put(value as bigint, { type: dataType, value: value as bigint });
      }
      case 'double': {
        // Keyed by bit pattern: 0 and -0 differ, and NaN equals itself.
        this.scratch.setFloat64(0, value as number);
        const bits = `${this.scratch.getUint32(0)}.${this.scratch.getUint32(4)}`;
        return this.put(bits, { type: DataType.double, value: value as number });
      }
      case 'float': {
        this.scratch.setFloat32(0, value as number);
        const bits = this.scratch.getUint32(0);
        return this.put(bits, { type: DataType.float, value: value as number });
      }
    }
  }

  private addBytes(value: Uint8Array, path: (string | number)[]): number {
    if (value.length > MAX_FIELD_SIZE) {
      throw invalid(path, `is ${value.length} bytes; one field holds at most ${MAX_FIELD_SIZE}`);
    }
    const copy = new Uint8Array(value);
    const key = Buffer.from(copy.buffer, copy.byteOffset, copy.length).toString('latin1');
    return this.put(key, { type: DataType.bytes, value: copy });
  }

  private addContainer(
    type: typeof DataType.map | typeof DataType.array,
    value: object,
    path: (string | number)[],
    ancestors: Set<object>,
  ): number {
    ancestors.add(value);
    const children: number[] = [];
    if (type === DataType.array) {
      const items = value as readonly unknown[];
      for (let i = 0; i < items.length; i++) {
        path.push(i);
        children.push(this.intern(items[i], path, ancestors));
        path.pop();
      }
    } else {
      for (const [key, item] of Object.entries(value)) {
        path.push(key);
        children.push(this.addString(key, path), this.intern(item, path, ancestors));
        path.pop();
      }
    }
    ancestors.delete(value);
    const count = type === DataType.map ? children.length / 2 : children.length;
    if (count > MAX_FIELD_SIZE)
      throw invalid(path, `has ${count} entries; one field holds at most ${MAX_FIELD_SIZE}`);
    return this.put(children.join(','), { type, value: children });
  }

  private table(type: number): Map<string | number | bigint, number> {
    let table = this.ids.get(type);
    if (table === undefined) {
      table = new Map();
      this.ids.set(type, table);
    }
    return table;
  }

  private put(key: string | number | bigint, entry: PoolEntry): number {
    const table = this.table(entry.type);
    const known = table.get(key);
    if (known !== undefined) return known;
    const id = this.entries.length;
    this.entries.push(entry);
    table.set(key, id);
    return id;
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function invalid(path: readonly (string | number)[], why: string): MmdbWriterError {
  return new MmdbWriterError('invalid_value', `${formatPath(path)} ${why}`);
}

function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (out === '') out = part;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}
