import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStore } from '../testing/describe-store.js';
import { createMemoryStore } from './memory.js';
import { createSqliteStore } from './sqlite.js';

describeStore('memory', { create: async () => createMemoryStore() });

const dir = mkdtempSync(join(tmpdir(), 'batch-store-'));
let file = 0;
const paths = new WeakMap<object, string>();
describeStore('SQLite', {
  async create() {
    const path = join(dir, `store-${++file}.db`);
    const store = await createSqliteStore({ path });
    paths.set(store, path);
    return store;
  },
  async reopen(store) {
    const path = paths.get(store) as string;
    // The first handle stays open, as another process would have it: WAL allows both.
    return createSqliteStore({ path });
  },
});
