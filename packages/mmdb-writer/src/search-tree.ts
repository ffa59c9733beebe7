/**
 * The in-memory binary trie behind the search tree. Each node has two records (bit 0, bit 1)
 * held in one Int32Array: a record >= 0 is a node index, EMPTY means "no data", and values
 * <= -2 are pooled data ids (see {@link leaf}). A flat typed array keeps millions of nodes
 * cheap compared with one object per node.
 */
export const EMPTY = -1;

/** The record that stores data id `id`. */
export function leaf(id: number): number {
  return -id - 2;
}

/** The data id in a record that {@link isLeaf}. */
export function leafId(record: number): number {
  return -record - 2;
}

export function isLeaf(record: number): boolean {
  return record <= -2;
}

/** Bit `index` of an address, counting from its most significant bit. */
export function bitAt(bytes: Uint8Array, index: number): number {
  return (bytes[index >> 3]! >> (7 - (index & 7))) & 1;
}

export class SearchTree {
  children: Int32Array;
  /** Nodes allocated, reachable or not; node 0 is the root. */
  size = 1;

  constructor(children?: Int32Array, size?: number) {
    this.children = children ?? new Int32Array(1024).fill(EMPTY);
    if (size !== undefined) this.size = size;
  }

  /** A copy that can be rewritten (aliases, pruning) without touching this tree. */
  clone(): SearchTree {
    return new SearchTree(this.children.slice(0, Math.max(this.size * 2, 2)), this.size);
  }

  /**
   * Points the whole network at `record`: later calls win, and anything more specific that
   * was stored inside the network is dropped. Data outside it is kept, because covering
   * leaves are split into two children that both keep the old value.
   */
  set(bytes: Uint8Array, prefixLength: number, record: number): void {
    if (prefixLength === 0) {
      this.children[0] = record;
      this.children[1] = record;
      return;
    }
    let node = 0;
    for (let depth = 0; depth < prefixLength - 1; depth++) {
      const slot = node * 2 + bitAt(bytes, depth);
      const next = this.children[slot]!;
      if (next >= 0) {
        node = next;
      } else {
        node = this.addNode(next, next);
        this.children[slot] = node;
      }
    }
    this.children[node * 2 + bitAt(bytes, prefixLength - 1)] = record;
  }

  /**
   * The record that answers for the network: a node whose subtree holds it, or the leaf or
   * EMPTY a lookup would stop at on the way down.
   */
  get(bytes: Uint8Array, prefixLength: number): number {
    let record = 0;
    for (let depth = 0; depth < prefixLength; depth++) {
      if (record < 0) return record;
      record = this.children[record * 2 + bitAt(bytes, depth)]!;
    }
    return record;
  }

  private addNode(left: number, right: number): number {
    const index = this.size++;
    if (index * 2 + 2 > this.children.length) {
      const grown = new Int32Array(this.children.length * 2).fill(EMPTY);
      grown.set(this.children);
      this.children = grown;
    }
    this.children[index * 2] = left;
    this.children[index * 2 + 1] = right;
    return index;
  }
}
