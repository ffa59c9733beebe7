import { DataType } from './data-types.js';

/** Smallest pointer value that needs 3 bytes after the control byte (spec: 2048 + 2^19). */
const POINTER_SIZE_2_BASE = 526_336;
/** Smallest pointer value that needs the 4-byte form (526336 + 2^27). */
const POINTER_SIZE_3_BASE = 134_744_064;

/** A growable big-endian byte buffer with the MaxMind DB field encodings. */
export class ByteWriter {
  private buf: Buffer;
  length = 0;

  constructor(initialCapacity = 4096) {
    this.buf = Buffer.alloc(initialCapacity);
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  /** Grows the buffer; call it before touching `this.buf`, which it may replace. */
  private reserve(extra: number): number {
    const start = this.length;
    const needed = start + extra;
    if (needed > this.buf.length) {
      const grown = Buffer.alloc(Math.max(needed, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, start);
      this.buf = grown;
    }
    this.length = needed;
    return start;
  }

  byte(value: number): void {
    const at = this.reserve(1);
    this.buf[at] = value;
  }

  raw(bytes: Uint8Array): void {
    const at = this.reserve(bytes.length);
    this.buf.set(bytes, at);
  }

  /** Control byte, extended type byte (types above 7) and size bytes, in that order. */
  control(type: number, size: number): void {
    let sizeBits: number;
    let extraBytes = 0;
    let extra = 0;
    if (size < 29) {
      sizeBits = size;
    } else if (size < 285) {
      sizeBits = 29;
      extraBytes = 1;
      extra = size - 29;
    } else if (size < 65_821) {
      sizeBits = 30;
      extraBytes = 2;
      extra = size - 285;
    } else {
      sizeBits = 31;
      extraBytes = 3;
      extra = size - 65_821;
    }
    if (type <= 7) {
      this.byte((type << 5) | sizeBits);
    } else {
      this.byte(sizeBits);
      this.byte(type - 7);
    }
    const at = this.reserve(extraBytes);
    if (extraBytes > 0) this.buf.writeUIntBE(extra, at, extraBytes);
  }

  /** A pointer to `target`, an offset from the start of the data section. */
  pointer(target: number): void {
    const tag = DataType.pointer << 5;
    if (target < 2048) {
      this.byte(tag | (target >>> 8));
      this.byte(target & 0xff);
    } else if (target < POINTER_SIZE_2_BASE) {
      const v = target - 2048;
      this.byte(tag | (1 << 3) | (v >>> 16));
      const at = this.reserve(2);
      this.buf.writeUInt16BE(v & 0xffff, at);
    } else if (target < POINTER_SIZE_3_BASE) {
      const v = target - POINTER_SIZE_2_BASE;
      this.byte(tag | (2 << 3) | (v >>> 24));
      const at = this.reserve(3);
      this.buf.writeUIntBE(v & 0xff_ffff, at, 3);
    } else {
      this.byte(tag | (3 << 3));
      const at = this.reserve(4);
      this.buf.writeUInt32BE(target, at);
    }
  }

  /** An unsigned integer in the fewest bytes (zero bytes for 0), as the spec allows. */
  unsigned(type: number, value: number | bigint): void {
    if (typeof value === 'number' && value <= 0xffff_ffff) {
      const size = value === 0 ? 0 : value < 0x100 ? 1 : value < 0x1_0000 ? 2 : value < 0x100_0000 ? 3 : 4;
      this.control(type, size);
      const at = this.reserve(size);
      if (size > 0) this.buf.writeUIntBE(value, at, size);
      return;
    }
    let big = BigInt(value);
    const digits: number[] = [];
    while (big > 0n) {
      digits.push(Number(big & 0xffn));
      big >>= 8n;
    }
    this.control(type, digits.length);
    for (let i = digits.length - 1; i >= 0; i--) this.byte(digits[i]!);
  }

  /** int32: short forms are read as positive, so a negative value always takes 4 bytes. */
  int32(value: number): void {
    if (value >= 0) {
      this.unsigned(DataType.int32, value);
      return;
    }
    this.control(DataType.int32, 4);
    const at = this.reserve(4);
    this.buf.writeInt32BE(value, at);
  }

  double(value: number): void {
    this.control(DataType.double, 8);
    const at = this.reserve(8);
    this.buf.writeDoubleBE(value, at);
  }

  float(value: number): void {
    this.control(DataType.float, 4);
    const at = this.reserve(4);
    this.buf.writeFloatBE(value, at);
  }
}

/** Bytes a pointer to `target` takes, control byte included. */
export function pointerLength(target: number): number {
  if (target < 2048) return 2;
  if (target < POINTER_SIZE_2_BASE) return 3;
  if (target < POINTER_SIZE_3_BASE) return 4;
  return 5;
}
