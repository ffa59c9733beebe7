import { setImmediate } from 'node:timers/promises';
import { MmdbDataChecker } from './mmdb-data-check.js';

const METADATA_MARKER = Buffer.from('\xAB\xCD\xEFMaxMind.com', 'latin1');

/**
 * Longest stretch of verification between two yields to the event loop. A server keeps answering
 * while a 60 MB file is checked (about 2 s of work for a city file), each request waiting at most
 * about this long.
 */
export const VERIFY_SLICE_MS = 10;

/**
 * Walks the whole search tree of an mmdb file and checks every record it points to against the
 * format's type and size rules (see MmdbDataChecker), so a file with a corrupt tree or data section
 * is refused before it serves a single lookup. With `checkData` false only the tree and the pointer
 * bounds are checked (about 10× faster). Readers (mmdb-lib included) only check the metadata at
 * open and fail, or answer garbage, per lookup.
 *
 * The work runs in slices of about VERIFY_SLICE_MS with a setImmediate between them, so opening or
 * reloading a large file never stalls the event loop (a worker thread would need the file copied
 * or shared and a second module graph; slicing needs neither).
 */
export async function verifyMmdb(
  bytes: Buffer,
  metadata: { nodeCount: number; recordSize: number; ipVersion: number },
  checkData = true,
): Promise<void> {
  const { nodeCount, recordSize, ipVersion } = metadata;
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
  const data = checkData ? new MmdbDataChecker(bytes, treeSize + 16, metadataStart) : undefined;
  const maxDepth = ipVersion === 6 ? 128 : 32;
  const seenNodes = new Uint8Array(nodeCount);
  // Iterative depth-first walk; a node reached twice is legal (aliases), a path deeper than the
  // address length means a cycle or garbage. Two parallel stacks: no tuple per node.
  const nodes: number[] = [0];
  const depths: number[] = [0];
  let reached = 0;
  let sliceStart = performance.now();
  while (nodes.length > 0) {
    const node = nodes.pop() as number;
    const depth = depths.pop() as number;
    if (depth >= maxDepth) throw new Error(`search tree deeper than ${maxDepth} bits at node ${node}`);
    if (seenNodes[node]) continue;
    seenNodes[node] = 1;
    reached++;
    for (let side: 0 | 1 = 0; side < 2; side++) {
      const record = read(node * nodeBytes, side as 0 | 1);
      if (record < nodeCount) {
        nodes.push(record);
        depths.push(depth + 1);
      } else if (record > nodeCount) {
        const offset = record - nodeCount - 16;
        if (offset >= dataSize)
          throw new Error(`node ${node} points past the data section (offset ${offset} ≥ ${dataSize})`);
        data?.checkRecord(offset);
      }
    }
    if ((reached & 1023) === 0 && performance.now() - sliceStart > VERIFY_SLICE_MS) {
      await setImmediate();
      sliceStart = performance.now();
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
