import { statSync } from 'node:fs';
import { type DatasetIndex, type DatasetIndexOptions, openDatasetIndex } from './dataset-index.js';

/**
 * What the dataset adapters read: an index (`openDatasetIndex`), or a watched file
 * (`watchDatasetIndex`) whose `available()` says whether a dataset is there.
 */
export type DatasetReader = Pick<DatasetIndex, 'findPeople' | 'findCompany'> & {
  available?(): boolean | Promise<boolean>;
};

/** A dataset index file followed as it appears, is replaced or is removed (see watchDatasetIndex). */
export interface WatchedDatasetIndex extends DatasetReader {
  /**
   * Whether the file is there, opened: looks at the file (one `stat`) and opens it when it
   * appeared or was replaced since the last call. Throws when the file is there but cannot be
   * opened (the next call tries again).
   */
  available(): Promise<boolean>;
  close(): void;
}

/**
 * A dataset index for a long-running process (`svc serve`) whose file another process writes
 * (`svc enrich import`). Rows imported into the open file show on the next lookup by themselves
 * (SQLite: each read sees the last commit); this also follows the file itself: a file that did
 * not exist at start is opened when it appears, one removed is closed and answers nothing, a new
 * one in its place (another inode) is opened. Remove the file with its `-wal` and `-shm` (SQLite
 * would replay an old WAL into a new file); never move another file over it. The file is never
 * created here. Opens it at once when it is there, so a broken file fails the start.
 */
export async function watchDatasetIndex(options: DatasetIndexOptions): Promise<WatchedDatasetIndex> {
  let current: { index: DatasetIndex; identity: string } | null = null;
  let opening: Promise<void> | null = null;
  let closed = false;

  const identityOf = (): string | null => {
    const stats = statSync(options.path, { throwIfNoEntry: false });
    return stats ? `${stats.dev}:${stats.ino}` : null;
  };

  async function follow(): Promise<void> {
    const identity = identityOf();
    if (identity === (current?.identity ?? null)) return;
    current?.index.close();
    current = null;
    if (identity === null) return;
    const index = await openDatasetIndex(options);
    if (closed) index.close();
    else current = { index, identity };
  }

  const watched: WatchedDatasetIndex = {
    async available() {
      if (closed) return false;
      // One open at a time: calls arriving meanwhile wait for it rather than opening again.
      while (opening) await opening;
      if (identityOf() !== (current?.identity ?? null)) {
        opening = follow().finally(() => {
          opening = null;
        });
        await opening;
      }
      return current !== null;
    },
    findPeople: (query) => current?.index.findPeople(query) ?? [],
    findCompany: (domain) => current?.index.findCompany(domain) ?? null,
    close() {
      closed = true;
      current?.index.close();
      current = null;
    },
  };
  await watched.available();
  return watched;
}
