import { describe, expect, it } from 'vitest';
import { ByteWriter, pointerLength } from './byte-writer.js';
import { DataType } from './data-types.js';
import { decodeField, decodePointer } from './testing/spec-decoder.js';

describe('ByteWriter', () => {
  it.each([
    [0, 2],
    [2047, 2],
    [2048, 3],
    [526_335, 3],
    [526_336, 4],
    [134_744_063, 4],
    [134_744_064, 5],
    [0xffff_ffff, 5],
  ])('encodes a pointer to %i in the shortest spec form (%i bytes)', (target, length) => {
    const writer = new ByteWriter(1);
    writer.pointer(target);
    const bytes = writer.bytes();
    expect(bytes.length).toBe(length);
    expect(pointerLength(target)).toBe(length);
    expect(decodePointer(bytes, 0)).toEqual({ target, next: length });
  });

  it.each([
    [0, 1],
    [28, 1],
    [29, 2],
    [284, 2],
    [285, 3],
    [65_820, 3],
    [65_821, 4],
    [16_843_036, 4],
  ])('writes a %i-byte string with a %i-byte header', (size, header) => {
    const writer = new ByteWriter(16);
    const text = 'a'.repeat(size);
    writer.control(DataType.utf8String, size);
    writer.raw(Buffer.from(text));
    const bytes = writer.bytes();
    expect(bytes.length).toBe(header + size);
    const field = decodeField(bytes, 0);
    expect(field.decoded).toEqual({ type: 'utf8_string', value: text });
    expect(field.next).toBe(bytes.length);
  });

  it('puts the extended type byte before the size bytes', () => {
    const writer = new ByteWriter();
    writer.control(DataType.array, 300);
    // 000 11110 = extended type, size 285 + next two bytes; then 11 - 7 = 4; then 15.
    expect([...writer.bytes()]).toEqual([0b0001_1110, 4, 0, 15]);
  });

  it.each([
    [0, []],
    [1, [1]],
    [255, [255]],
    [256, [1, 0]],
    [0xffff_ffff, [255, 255, 255, 255]],
  ])('writes unsigned %i in the fewest bytes', (value, payload) => {
    const writer = new ByteWriter();
    writer.unsigned(DataType.uint32, value);
    expect([...writer.bytes()]).toEqual([(DataType.uint32 << 5) | payload.length, ...payload]);
  });

  it('writes negative int32 values as four two-complement bytes and positive ones short', () => {
    const negative = new ByteWriter();
    negative.int32(-1);
    expect([...negative.bytes()]).toEqual([4, 1, 0xff, 0xff, 0xff, 0xff]);
    expect(decodeField(negative.bytes(), 0).decoded).toEqual({ type: 'int32', value: -1 });
    const positive = new ByteWriter();
    positive.int32(5);
    expect([...positive.bytes()]).toEqual([1, 1, 5]);
  });

  it('grows past its initial capacity without losing bytes', () => {
    const writer = new ByteWriter(1);
    for (let i = 0; i < 1000; i++) writer.unsigned(DataType.uint16, i);
    let offset = 0;
    for (let i = 0; i < 1000; i++) {
      const field = decodeField(writer.bytes(), offset);
      expect(field.decoded).toEqual({ type: 'uint16', value: i });
      offset = field.next;
    }
    expect(offset).toBe(writer.length);
  });
});
