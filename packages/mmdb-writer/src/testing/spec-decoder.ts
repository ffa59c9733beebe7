/**
 * A small decoder written straight from the spec, independent of the writer's encoder, so
 * byte-level tests can check exact types and pointer forms that readers hide.
 */
export type Decoded =
  | { type: 'map'; value: Record<string, Decoded> }
  | { type: 'array'; value: Decoded[] }
  | { type: string; value: string | number | bigint | boolean | Buffer };

const NAMES: Record<number, string> = {
  1: 'pointer',
  2: 'utf8_string',
  3: 'double',
  4: 'bytes',
  5: 'uint16',
  6: 'uint32',
  7: 'map',
  8: 'int32',
  9: 'uint64',
  10: 'uint128',
  11: 'array',
  14: 'boolean',
  15: 'float',
};

export interface Field {
  decoded: Decoded;
  /** Offset just after the field (after the pointer itself, for a pointer). */
  next: number;
  /** Set when the field was a pointer: its target, relative to the section start. */
  pointer?: number;
}

/** Reads the pointer whose control byte is at `offset`, without following it. */
export function decodePointer(buf: Buffer, offset: number): { target: number; next: number } {
  const ctrl = buf[offset++]!;
  if (ctrl >> 5 !== 1) throw new Error('not a pointer');
  const size = (ctrl >> 3) & 3;
  const bases = [0, 2048, 526_336, 0];
  let value = size === 3 ? 0 : ctrl & 7;
  for (let i = 0; i < size + 1; i++) value = value * 256 + buf[offset++]!;
  return { target: value + bases[size]!, next: offset };
}

/** Decodes the field at `offset`; pointers resolve against `sectionStart`. */
export function decodeField(buf: Buffer, offset: number, sectionStart = 0): Field {
  const ctrl = buf[offset++]!;
  let type = ctrl >> 5;
  if (type === 0) type = buf[offset++]! + 7;
  if (type === 1) {
    const { target, next } = decodePointer(buf, offset - 1);
    const field = decodeField(buf, sectionStart + target, sectionStart);
    if (field.pointer !== undefined) throw new Error('pointer to a pointer');
    return { decoded: field.decoded, next, pointer: target };
  }
  let size = ctrl & 0x1f;
  if (size === 29) size = 29 + buf[offset++]!;
  else if (size === 30) {
    size = 285 + buf.readUInt16BE(offset);
    offset += 2;
  } else if (size === 31) {
    size = 65_821 + buf.readUIntBE(offset, 3);
    offset += 3;
  }
  const name = NAMES[type];
  if (name === undefined) throw new Error(`unknown type ${type}`);
  switch (name) {
    case 'map': {
      const value: Record<string, Decoded> = {};
      for (let i = 0; i < size; i++) {
        const key = decodeField(buf, offset, sectionStart);
        if (key.decoded.type !== 'utf8_string') throw new Error('map key is not a string');
        const item = decodeField(buf, key.next, sectionStart);
        value[key.decoded.value as string] = item.decoded;
        offset = item.next;
      }
      return { decoded: { type: name, value }, next: offset };
    }
    case 'array': {
      const value: Decoded[] = [];
      for (let i = 0; i < size; i++) {
        const item = decodeField(buf, offset, sectionStart);
        value.push(item.decoded);
        offset = item.next;
      }
      return { decoded: { type: name, value }, next: offset };
    }
    case 'boolean':
      return { decoded: { type: name, value: size === 1 }, next: offset };
    case 'utf8_string':
      return {
        decoded: { type: name, value: buf.toString('utf8', offset, offset + size) },
        next: offset + size,
      };
    case 'bytes':
      return {
        decoded: { type: name, value: Buffer.from(buf.subarray(offset, offset + size)) },
        next: offset + size,
      };
    case 'double':
      if (size !== 8) throw new Error('double must be 8 bytes');
      return { decoded: { type: name, value: buf.readDoubleBE(offset) }, next: offset + 8 };
    case 'float':
      if (size !== 4) throw new Error('float must be 4 bytes');
      return { decoded: { type: name, value: buf.readFloatBE(offset) }, next: offset + 4 };
    case 'int32': {
      let value = size === 0 ? 0 : buf.readUIntBE(offset, size);
      if (size === 4) value = buf.readInt32BE(offset);
      return { decoded: { type: name, value }, next: offset + size };
    }
    default: {
      let value = 0n;
      for (let i = 0; i < size; i++) value = (value << 8n) | BigInt(buf[offset + i]!);
      const small = name === 'uint16' || name === 'uint32';
      return { decoded: { type: name, value: small ? Number(value) : value }, next: offset + size };
    }
  }
}

/** Plain `"type:value"` strings / objects / arrays, for compact assertions. */
export function typedPlain(decoded: Decoded): unknown {
  if (decoded.type === 'map') {
    return Object.fromEntries(
      Object.entries(decoded.value as Record<string, Decoded>).map(([k, v]) => [k, typedPlain(v)]),
    );
  }
  if (decoded.type === 'array') return (decoded.value as Decoded[]).map(typedPlain);
  return `${decoded.type}:${String(decoded.value)}`;
}
