import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeControlPlaneStore } from '../../testing/describe-control-plane-store.js';
import type { ControlPlaneStore } from '../store.js';
import { createMemoryControlPlaneStore } from './memory.js';
import { createSqliteControlPlaneStore } from './sqlite.js';

describeControlPlaneStore('memory', { create: async () => createMemoryControlPlaneStore() });

const dir = mkdtempSync(join(tmpdir(), 'svc-control-plane-'));
let file = 0;
const paths = new WeakMap<ControlPlaneStore, string>();
describeControlPlaneStore('SQLite', {
  async create() {
    const path = join(dir, `store-${++file}.db`);
    const store = await createSqliteControlPlaneStore({ path });
    paths.set(store, path);
    return store;
  },
  // The first handle stays open, as a running server's would while the CLI opens the file.
  reopen: async (store) => createSqliteControlPlaneStore({ path: paths.get(store) as string }),
});
