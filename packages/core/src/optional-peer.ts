/** What an optional peer dependency is for, to explain its absence. */
export interface OptionalPeer {
  /** Who needs it: `the SQLite store`. */
  user: string;
  /** The package (or packages) it needs: `better-sqlite3`. */
  needs: string;
  /** What to install: `better-sqlite3@12`. */
  install: string;
  /** The package that imports it (the peer must resolve from there): `@svc/batch-runner`. */
  from: string;
  /** Another way to provide it, if there is one: "passed as the `driver` option". */
  otherwise?: string;
}

/**
 * Imports an optional peer dependency on first use, or throws an Error saying who needs it, how
 * to install it and where it must resolve from, with the first line of the import's own error (a
 * missing package and a missing native build need different fixes) and that error as `cause`.
 *
 * `load` is the caller's own `() => import('pkg')`: an import resolves from the file that writes
 * it, so the peer is looked up beside the package that uses it, not beside @svc/core.
 */
export async function importOptionalPeer<T>(load: () => Promise<T>, peer: OptionalPeer): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const cause = String((error as Error)?.message ?? error).split('\n')[0];
    const otherwise = peer.otherwise ? `, or ${peer.otherwise}` : '';
    throw new Error(
      `${peer.user} needs ${peer.needs} (npm install ${peer.install}) where ${peer.from} resolves it${otherwise} (${cause})`,
      { cause: error },
    );
  }
}
