import type { Reader } from 'maxmind';

const METADATA_MARKER = Buffer.from('\xAB\xCD\xEFMaxMind.com', 'latin1');

/**
 * Walks the whole search tree of an mmdb file and decodes every record it points to, so a file
 * with a corrupt tree or data section is refused before it serves a single lookup. With
 * `decodeData` false only the tree and the pointer bounds are checked (about 10× faster). Readers
 * (mmdb-lib included) only check the metadata at open and fail, or answer garbage, per lookup.
 */
export function verifyMmdb(bytes: Buffer, reader: Reader<Record<string, unknown>>, decodeData = true): void {
  const { nodeCount, recordSize, ipVersion } = reader.metadata;
  const nodeBytes = (recordSize * 2) / 8;
  const treeSize = nodeCount * nodeBytes;
  const metadataStart = bytes.lastIndexOf(METADATA_MARKER);
  const dataSize = metadataStart - treeSize - 16;
  if (treeSize + 16 > metadataStart || dataSize < 0) {
    throw new Error(`search tree (${nodeCount} nodes of ${nodeBytes} bytes) overlaps the metadata`);
  }
  if (!bytes.subarray(treeSize, treeSize + 16).equals(Buffer.alloc(16))) {
    throw new Error('the 16-byte data section separator after the search tree is not all zeros');
  }

  const read = recordReader(bytes, recordSize);
  const maxDepth = ipVersion === 6 ? 128 : 32;
  const seenNodes = new Uint8Array(nodeCount);
  const decoded = new Set<number>();
  // Iterative depth-first walk; a node reached twice is legal (aliases), a path deeper than the
  // address length means a cycle or garbage.
  const stack: Array<[node: number, depth: number]> = [[0, 0]];
  let reached = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [number, number];
    if (depth >= maxDepth) throw new Error(`search tree deeper than ${maxDepth} bits at node ${node}`);
    if (seenNodes[node]) continue;
    seenNodes[node] = 1;
    reached++;
    for (const side of [0, 1] as const) {
      const record = read(node * nodeBytes, side);
      if (record < nodeCount) stack.push([record, depth + 1]);
      else if (record > nodeCount && !decoded.has(record)) {
        const offset = record - nodeCount - 16;
        if (offset >= dataSize)
          throw new Error(`node ${node} points past the data section (offset ${offset} ≥ ${dataSize})`);
        decoded.add(record);
        if (!decodeData) continue;
        // The reader's own decoder, so what we check is exactly what lookups will decode.
        (reader as unknown as { resolveDataPointer(pointer: number): unknown }).resolveDataPointer(record);
      }
    }
  }
  // Writers emit only reachable nodes; a node count the tree does not use means a damaged tree.
  if (reached !== nodeCount) {
    throw new Error(`the metadata announces ${nodeCount} tree nodes but only ${reached} are reachable`);
  }
}

export function recordReader(bytes: Buffer, recordSize: number): (offset: number, side: 0 | 1) => number {
  if (recordSize === 24) return (offset, side) => bytes.readUIntBE(offset + side * 3, 3);
  if (recordSize === 32) return (offset, side) => bytes.readUInt32BE(offset + side * 4);
  // 28-bit records share the middle byte: its high nibble belongs to the left record.
  return (offset, side) => {
    const middle = bytes[offset + 3] as number;
    return side === 0
      ? ((middle & 0xf0) << 20) | bytes.readUIntBE(offset, 3)
      : ((middle & 0x0f) << 24) | bytes.readUIntBE(offset + 4, 3);
  };
}
