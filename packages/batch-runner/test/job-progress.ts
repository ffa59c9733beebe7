import Database from 'better-sqlite3';

/** A job's committed state, as another process sees it in the file. */
export interface JobProgress {
  status: string;
  processed: number;
  total: number;
}

/** Reads the (only) job of a SQLite job database without writing to it. */
export interface ProgressReader {
  /** The job's committed state; null while the file, its tables or the job do not exist yet. */
  read(): JobProgress | null;
  close(): void;
}

/**
 * Opens the worker's database read-only from the test process, so the test learns what is
 * committed from the file itself rather than from the worker's word.
 */
export function openProgressReader(path: string): ProgressReader {
  let db: Database.Database | undefined;
  return {
    read() {
      try {
        db ??= new Database(path, { readonly: true, fileMustExist: true });
        const row = db.prepare('SELECT status, processed, total FROM jobs LIMIT 1').get();
        return (row as JobProgress | undefined) ?? null;
      } catch (error) {
        // The worker has not created the file or its tables yet: nothing is committed.
        const code = (error as { code?: string }).code;
        if (code === 'SQLITE_CANTOPEN' || /no such table/.test((error as Error).message)) return null;
        throw error;
      }
    },
    close() {
      db?.close();
    },
  };
}
