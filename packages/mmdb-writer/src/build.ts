import { DataSectionWriter } from './data-section.js';
import { MmdbWriterError } from './errors.js';
import { EMPTY, isLeaf, leafId, type SearchTree } from './search-tree.js';
import { ValuePool } from './value-pool.js';
import { type MmdbValue, mmdbTypes } from './values.js';

/** Starts the metadata section; the last occurrence in a file is the one readers use. */
export const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
/** The spec's limit for the metadata section, marker included. */
const MAX_METADATA_SIZE = 128 * 1024;
const DATA_SECTION_SEPARATOR = Buffer.alloc(16);

const IPV4_IN_IPV6 = new Uint8Array(16);
/** ::ffff:0:0/96, IPv4-mapped IPv6 addresses. */
const IPV4_MAPPED = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]);
/** 2002::/16, 6to4: the 32 bits after the prefix are the IPv4 address. */
const SIX_TO_FOUR = Uint8Array.from([0x20, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

export interface BuildInput {
  readonly tree: SearchTree;
  readonly pool: ValuePool;
  readonly ipVersion: 4 | 6;
  readonly recordSize: 24 | 28 | 32;
  readonly ipv4Aliases: boolean;
  readonly databaseType: string;
  readonly languages: readonly string[];
  readonly description: Readonly<Record<string, string>>;
  readonly buildEpoch: bigint;
}

/** Serialises the tree, data section and metadata into one .mmdb file. */
export function buildDatabase(input: BuildInput): Buffer {
  const { recordSize } = input;
  const tree = input.tree.clone();
  if (input.ipVersion === 6 && input.ipv4Aliases) {
    const ipv4Root = tree.get(IPV4_IN_IPV6, 96);
    tree.set(IPV4_MAPPED, 96, ipv4Root);
    tree.set(SIX_TO_FOUR, 16, ipv4Root);
  }
  prune(tree);
  const order = numberNodes(tree);
  const nodeCount = order.nodes.length;
  const maxRecord = 2 ** recordSize - 1;
  if (nodeCount + 16 > maxRecord) throw tooLarge(input, nodeCount, 0);

  const data = new DataSectionWriter(input.pool, true);
  const nodeBytes = recordSize / 4;
  const treeBytes = Buffer.alloc(nodeCount * nodeBytes);
  const children = tree.children;
  for (let n = 0; n < nodeCount; n++) {
    const old = order.nodes[n]!;
    const left = recordValue(children[old * 2]!);
    const right = recordValue(children[old * 2 + 1]!);
    writeNode(treeBytes, n * nodeBytes, recordSize, left, right);
  }

  function recordValue(record: number): number {
    if (record === EMPTY) return nodeCount;
    if (!isLeaf(record)) return order.newIndex[record]!;
    const offset = data.record(leafId(record));
    const value = nodeCount + 16 + offset;
    if (value > maxRecord) throw tooLarge(input, nodeCount, offset);
    return value;
  }

  const metadata = encodeMetadata(input, nodeCount);
  return Buffer.concat([treeBytes, DATA_SECTION_SEPARATOR, data.out.bytes(), METADATA_MARKER, metadata]);
}

/**
 * Collapses every node whose two records are the same leaf (or both empty) into that leaf,
 * bottom up, so overwritten or alias-split regions cost no nodes. The root always stays.
 */
function prune(tree: SearchTree): void {
  const children = tree.children;
  const done = new Uint8Array(tree.size);
  const result = new Int32Array(tree.size);
  const simplify = (record: number): number => {
    if (record < 0) return record;
    if (done[record]) return result[record]!;
    const left = simplify(children[record * 2]!);
    const right = simplify(children[record * 2 + 1]!);
    children[record * 2] = left;
    children[record * 2 + 1] = right;
    const out = left === right && left < 0 ? left : record;
    done[record] = 1;
    result[record] = out;
    return out;
  };
  children[0] = simplify(children[0]!);
  children[1] = simplify(children[1]!);
}

/** Breadth-first numbering of the reachable nodes; aliased subtrees are numbered once. */
function numberNodes(tree: SearchTree): { nodes: Int32Array; newIndex: Int32Array } {
  const children = tree.children;
  const newIndex = new Int32Array(tree.size).fill(-1);
  const nodes = new Int32Array(tree.size);
  let count = 0;
  newIndex[0] = 0;
  nodes[count++] = 0;
  for (let i = 0; i < count; i++) {
    const node = nodes[i]!;
    for (let side = 0; side < 2; side++) {
      const child = children[node * 2 + side]!;
      if (child >= 0 && newIndex[child] === -1) {
        newIndex[child] = count;
        nodes[count++] = child;
      }
    }
  }
  return { nodes: nodes.subarray(0, count), newIndex };
}

function writeNode(out: Buffer, at: number, recordSize: number, left: number, right: number): void {
  if (recordSize === 24) {
    out.writeUIntBE(left, at, 3);
    out.writeUIntBE(right, at + 3, 3);
  } else if (recordSize === 28) {
    // The middle byte holds the top nibble of each record, left record's first.
    out.writeUIntBE(left & 0xff_ffff, at, 3);
    out[at + 3] = ((Math.floor(left / 2 ** 24) & 0x0f) << 4) | (Math.floor(right / 2 ** 24) & 0x0f);
    out.writeUIntBE(right & 0xff_ffff, at + 4, 3);
  } else {
    out.writeUInt32BE(left, at);
    out.writeUInt32BE(right, at + 4);
  }
}

function encodeMetadata(input: BuildInput, nodeCount: number): Buffer {
  const pool = new ValuePool();
  const map: Record<string, MmdbValue> = {
    node_count: mmdbTypes.uint32(nodeCount),
    record_size: mmdbTypes.uint16(input.recordSize),
    ip_version: mmdbTypes.uint16(input.ipVersion),
    database_type: input.databaseType,
    languages: [...input.languages],
    binary_format_major_version: mmdbTypes.uint16(2),
    binary_format_minor_version: mmdbTypes.uint16(0),
    build_epoch: mmdbTypes.uint64(input.buildEpoch),
    description: { ...input.description },
  };
  // No pointers in the metadata: they would be relative to the metadata start, and a plain
  // map is what every reader handles.
  const writer = new DataSectionWriter(pool, false);
  writer.record(pool.add(map, 'metadata'));
  const bytes = writer.out.bytes();
  if (bytes.length + METADATA_MARKER.length > MAX_METADATA_SIZE) {
    throw new MmdbWriterError(
      'invalid_option',
      `The metadata section would be ${bytes.length + METADATA_MARKER.length} bytes; the format allows ${MAX_METADATA_SIZE} (shorten description or languages)`,
    );
  }
  return bytes;
}

function tooLarge(input: BuildInput, nodeCount: number, dataOffset: number): MmdbWriterError {
  const bigger =
    input.recordSize === 24
      ? ' (try recordSize 28 or 32)'
      : input.recordSize === 28
        ? ' (try recordSize 32)'
        : '';
  return new MmdbWriterError(
    'tree_too_large',
    `The database does not fit ${input.recordSize}-bit records: ${nodeCount} nodes and data at offset ${dataOffset} need record values up to ${nodeCount + 16 + dataOffset}, but the largest is ${2 ** input.recordSize - 1}${bigger}`,
  );
}
