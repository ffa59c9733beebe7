/**
 * A bounded cache keyed by data-section offsets: each key has one slot (a hash of the key), and a
 * key arriving in an occupied slot replaces the one there. A lookup is one typed-array read and a
 * compare, with no eviction bookkeeping. With as many keys in use as slots, about 63% of lookups
 * hit (1 - 1/e), more than a Map emptied whenever it is full.
 */
export class SlotCache<V> {
  private readonly keys: Float64Array;
  private readonly values: (V | undefined)[];
  private readonly shift: number;

  /** @param bits log2 of the number of slots */
  constructor(bits: number) {
    if (!Number.isInteger(bits) || bits < 1 || bits > 24)
      throw new RangeError(`slot bits must be 1 to 24, got ${bits}`);
    // NaN equals nothing, so empty slots never match a key.
    this.keys = new Float64Array(1 << bits).fill(Number.NaN);
    this.values = new Array<V | undefined>(1 << bits).fill(undefined);
    this.shift = 32 - bits;
  }

  get(key: number): V | undefined {
    const slot = Math.imul(key | 0, 0x9e3779b1) >>> this.shift;
    return this.keys[slot] === key ? this.values[slot] : undefined;
  }

  set(key: number, value: V): void {
    const slot = Math.imul(key | 0, 0x9e3779b1) >>> this.shift;
    this.keys[slot] = key;
    this.values[slot] = value;
  }
}
