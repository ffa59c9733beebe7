/** What the search tree needs from an mmdb file's metadata. */
export interface SearchTreeLayout {
  nodeCount: number;
  recordSize: number;
  ipVersion: number;
}

/** Bits resolved by the precomputed top of the tree. */
const TOP_BITS = 16;
const TOP_SIZE = 1 << TOP_BITS;

/** Where each 16-bit prefix leads: a node (or a record when the walk stopped sooner), and its depth. */
interface TopLevel {
  nodes: Uint32Array;
  depths: Uint8Array;
}

/**
 * Finds addresses in an mmdb search tree from their numeric form: an IPv4 value or the eight
 * 16-bit groups of an IPv6 address, as our strict parser already produced them. The `maxmind`
 * reader would parse the text again and walk through generic per-record closures; this walk
 * reads the records in place and allocates nothing.
 *
 * The find methods return the data pointer (the record value, > nodeCount) or 0 when the address
 * is not in the data, and leave in `prefixLength` how many bits the walk followed: the prefix
 * length of the network that matched, counted as the `maxmind` reader counts it (IPv4 addresses in
 * an IPv6 tree from the `::/96` node, so 0 to 32).
 */
export class SearchTree {
  /** Bits followed by the last find. */
  prefixLength = 0;
  private readonly view: DataView;
  private readonly nodeCount: number;
  private readonly recordSize: number;
  private readonly nodeBytes: number;
  /** Where the first 16 bits of each IPv4 address lead (see topLevel), from the IPv4 start node. */
  private readonly ipv4Top: TopLevel;
  /** The same for the first group of IPv6 addresses, from the root (IPv6 trees only). */
  private readonly ipv6Top: TopLevel | null;
  readonly ipVersion: number;

  constructor(bytes: Uint8Array, layout: SearchTreeLayout) {
    if (![24, 28, 32].includes(layout.recordSize)) throw new Error(`record size ${layout.recordSize}`);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.nodeCount = layout.nodeCount;
    this.recordSize = layout.recordSize;
    this.nodeBytes = layout.recordSize / 4;
    this.ipVersion = layout.ipVersion;
    // In an IPv6 tree IPv4 addresses live at ::a.b.c.d: their walk starts after 96 zero bits.
    let ipv4Start = 0;
    if (layout.ipVersion === 6) {
      for (let depth = 0; depth < 96 && ipv4Start < this.nodeCount; depth++)
        ipv4Start = this.child(ipv4Start, 0);
    }
    this.ipv4Top = this.topLevel(ipv4Start);
    this.ipv6Top = layout.ipVersion === 6 ? this.topLevel(0) : null;
  }

  /**
   * The first 16 steps of every walk from `start`, done once: for each 16-bit prefix, the node the
   * walk reaches (or the record it stops at, sooner) and how many bits that took. The top of the
   * tree is where every lookup goes, so this removes half the steps of a typical walk for 320 KB.
   */
  private topLevel(start: number): TopLevel {
    const nodes = new Uint32Array(TOP_SIZE);
    const depths = new Uint8Array(TOP_SIZE);
    const visit = (node: number, depth: number, prefix: number): void => {
      if (depth === TOP_BITS || node >= this.nodeCount) {
        // Every prefix below this one stops at the same place.
        const from = prefix << (TOP_BITS - depth);
        const to = (prefix + 1) << (TOP_BITS - depth);
        nodes.fill(node, from, to);
        depths.fill(depth, from, to);
        return;
      }
      visit(this.child(node, 0), depth + 1, prefix * 2);
      visit(this.child(node, 1), depth + 1, prefix * 2 + 1);
    };
    visit(start, 0, 0);
    return { nodes, depths };
  }

  /** The record on one side (0 = left, 1 = right) of a node. */
  child(node: number, side: number): number {
    const offset = node * this.nodeBytes;
    const view = this.view;
    if (this.recordSize === 28) {
      // The middle byte is shared: its high nibble tops the left record, its low nibble the right.
      return side === 0
        ? (view.getUint32(offset) >>> 8) | ((view.getUint8(offset + 3) & 0xf0) << 20)
        : view.getUint32(offset + 3) & 0x0fffffff;
    }
    if (this.recordSize === 24) {
      return side === 0 ? view.getUint32(offset) >>> 8 : view.getUint32(offset + 2) & 0xffffff;
    }
    return view.getUint32(offset + side * 4);
  }

  /** Finds an IPv4 address given as an unsigned 32-bit value. */
  findIpv4(value: number): number {
    const nodeCount = this.nodeCount;
    const top = value >>> 16;
    let node = this.ipv4Top.nodes[top] as number;
    let depth = this.ipv4Top.depths[top] as number;
    for (; depth < 32 && node < nodeCount; depth++) node = this.child(node, (value >>> (31 - depth)) & 1);
    this.prefixLength = depth;
    return node > nodeCount ? node : 0;
  }

  /**
   * Finds an IPv6 address given as eight 16-bit groups. In an IPv4-only tree this would follow the
   * first 32 bits and answer for an unrelated IPv4 network, so it answers 0 there.
   */
  findIpv6(words: readonly number[]): number {
    const top6 = this.ipv6Top;
    if (top6 === null) {
      this.prefixLength = 0;
      return 0;
    }
    const nodeCount = this.nodeCount;
    const top = words[0] as number;
    let node = top6.nodes[top] as number;
    let depth = top6.depths[top] as number;
    for (; depth < 128 && node < nodeCount; depth++) {
      node = this.child(node, ((words[depth >>> 4] as number) >>> (15 - (depth & 15))) & 1);
    }
    this.prefixLength = depth;
    return node > nodeCount ? node : 0;
  }
}
