/** Added to the value of 1-, 2- and 3-byte pointers (MaxMind DB spec, "Pointers"). */
const POINTER_BASE = [0, 2048, 526_336, 0] as const;
/** Maps, arrays and pointers nested deeper than this are a cycle or garbage (real files nest < 10). */
const MAX_DEPTH = 64;
/** Largest payload of each fixed-width type (MaxMind DB spec, "integer formats", double, float). */
const MAX_SIZE: Partial<Record<number, number>> = { 5: 2, 6: 4, 8: 4, 9: 8, 10: 16 };
const EXACT_SIZE: Partial<Record<number, number>> = { 3: 8, 15: 4 };
const TYPE_NAMES: Partial<Record<number, string>> = { 3: 'double', 15: 'float' };

/**
 * Checks fields of an mmdb data section against the format's type and size rules: a double is
 * exactly 8 bytes and a float 4, integers fit their width, a boolean has no payload, map keys are
 * strings, pointers stay in the section and never point to pointers, no deprecated or unknown
 * types, nothing runs past the section. The `maxmind` reader checks none of this: a 2-byte double
 * decodes as whatever 8 bytes follow (1.79e-52 for `Broken-Double-Format`). Each field reached
 * through a pointer is checked once.
 */
export class MmdbDataChecker {
  private readonly checked: Uint8Array;
  private readonly end: number;

  /** `start` and `end` are the data section's bounds in `bytes` (after the separator, before the metadata). */
  constructor(
    private readonly bytes: Buffer,
    private readonly start: number,
    end: number,
  ) {
    this.end = end;
    this.checked = new Uint8Array(Math.ceil((end - start) / 8));
  }

  /** Checks the field at `offset` (relative to the data section) and what it points to. */
  checkRecord(offset: number): void {
    this.target(offset, 0, false);
  }

  private target(offset: number, depth: number, fromPointer: boolean): void {
    if (offset < 0 || this.start + offset >= this.end) {
      throw new Error(
        `pointer to offset ${offset} is outside the data section (${this.end - this.start} bytes)`,
      );
    }
    const bit = 1 << (offset & 7);
    const index = offset >>> 3;
    if (((this.checked[index] as number) & bit) !== 0) return;
    if (fromPointer && (this.bytes[this.start + offset] as number) >> 5 === 1) {
      throw new Error(`pointer to a pointer at data offset ${offset}`);
    }
    this.field(this.start + offset, depth);
    this.checked[index] = (this.checked[index] as number) | bit;
  }

  /** Checks the field at absolute position `at`; returns where the next field starts. */
  private field(at: number, depth: number, mustBeString = false): number {
    if (depth > MAX_DEPTH) throw new Error(`data nested deeper than ${MAX_DEPTH} levels (a pointer cycle?)`);
    const bytes = this.bytes;
    const where = at - this.start;
    this.need(at, 1);
    const control = bytes[at++] as number;
    let type = control >> 5;
    if (type === 1) {
      const width = ((control >> 3) & 3) + 1;
      this.need(at, width);
      let pointer = width === 4 ? 0 : control & 7;
      for (let index = 0; index < width; index++) pointer = pointer * 256 + (bytes[at + index] as number);
      pointer += POINTER_BASE[width - 1] as number;
      if (
        mustBeString &&
        this.start + pointer < this.end &&
        (bytes[this.start + pointer] as number) >> 5 !== 2
      ) {
        throw new Error(`map key at data offset ${where} points to a non-string`);
      }
      this.target(pointer, depth + 1, true);
      return at + width;
    }
    if (type === 0) {
      this.need(at, 1);
      type = (bytes[at++] as number) + 7;
      if (type < 8 || type > 15) throw new Error(`invalid extended type ${type} at data offset ${where}`);
    }
    if (mustBeString && type !== 2)
      throw new Error(`map key at data offset ${where} is not a string (type ${type})`);
    let size = control & 31;
    if (size >= 29) {
      const extra = size - 28;
      this.need(at, extra);
      size =
        size === 29
          ? 29 + (bytes[at] as number)
          : size === 30
            ? 285 + bytes.readUInt16BE(at)
            : 65_821 + bytes.readUIntBE(at, 3);
      at += extra;
    }
    switch (type) {
      case 7: // map: `size` key/value pairs
        for (let pair = 0; pair < size; pair++) {
          at = this.field(at, depth + 1, true);
          at = this.field(at, depth + 1);
        }
        return at;
      case 11: // array: `size` values
        for (let item = 0; item < size; item++) at = this.field(at, depth + 1);
        return at;
      case 14: // boolean: the size is the value
        if (size > 1) throw new Error(`boolean of size ${size} at data offset ${where}`);
        return at;
      case 12:
      case 13:
        throw new Error(`deprecated type ${type} (container or end marker) at data offset ${where}`);
      default: {
        const exact = EXACT_SIZE[type];
        if (exact !== undefined && size !== exact) {
          throw new Error(`${TYPE_NAMES[type]} of ${size} bytes at data offset ${where} (must be ${exact})`);
        }
        const max = MAX_SIZE[type];
        if (max !== undefined && size > max) {
          throw new Error(
            `integer of type ${type} with ${size} bytes at data offset ${where} (at most ${max})`,
          );
        }
        this.need(at, size);
        return at + size;
      }
    }
  }

  private need(at: number, length: number): void {
    if (at + length > this.end) {
      throw new Error(`a field at data offset ${at - this.start} runs past the data section`);
    }
  }
}
