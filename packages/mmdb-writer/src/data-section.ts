import { ByteWriter, pointerLength } from './byte-writer.js';
import { DataType } from './data-types.js';
import type { ValuePool } from './value-pool.js';

/**
 * Writes pooled values into a data section. With `dedupe`, a value met a second time
 * (a whole record, a nested map, a repeated key or string) becomes a pointer to its first
 * copy whenever the pointer is shorter than writing it again. Pointers always target a
 * value written in place, never another pointer, as the spec requires.
 */
export class DataSectionWriter {
  readonly out = new ByteWriter(64 * 1024);
  private readonly offsets = new Map<number, number>();
  private readonly lengths = new Map<number, number>();

  constructor(
    private readonly pool: ValuePool,
    private readonly dedupe: boolean,
  ) {}

  /** Offset of a top-level record, written now unless an identical value already exists. */
  record(id: number): number {
    const known = this.dedupe ? this.offsets.get(id) : undefined;
    if (known !== undefined) return known;
    return this.inline(id);
  }

  private value(id: number): void {
    const known = this.dedupe ? this.offsets.get(id) : undefined;
    if (known !== undefined && pointerLength(known) < this.lengths.get(id)!) {
      this.out.pointer(known);
      return;
    }
    this.inline(id);
  }

  private inline(id: number): number {
    const out = this.out;
    const start = out.length;
    const entry = this.pool.get(id);
    switch (entry.type) {
      case DataType.utf8String:
      case DataType.bytes:
        out.control(entry.type, entry.value.length);
        out.raw(entry.value);
        break;
      case DataType.double:
        out.double(entry.value);
        break;
      case DataType.float:
        out.float(entry.value);
        break;
      case DataType.uint16:
      case DataType.uint32:
      case DataType.uint64:
      case DataType.uint128:
        out.unsigned(entry.type, entry.value);
        break;
      case DataType.int32:
        out.int32(entry.value);
        break;
      case DataType.boolean:
        out.control(DataType.boolean, entry.value ? 1 : 0);
        break;
      case DataType.map:
      case DataType.array: {
        const children = entry.value;
        out.control(entry.type, entry.type === DataType.map ? children.length / 2 : children.length);
        for (const child of children) this.value(child);
        break;
      }
    }
    if (this.dedupe && !this.offsets.has(id)) {
      this.offsets.set(id, start);
      this.lengths.set(id, out.length - start);
    }
    return start;
  }
}
