/**
 * better-sqlite3's `Database` class, as the stores' `driver` options take it: pass
 * `(await import('better-sqlite3')).default`. Declared here, as the one constructor signature the
 * stores call, so that no declaration file imports better-sqlite3's types: better-sqlite3 is an
 * optional peer, and an app with `skipLibCheck: false` that does not install it (or
 * `@types/better-sqlite3`) must still typecheck. The stores cast it back to better-sqlite3's type.
 */
export type SqliteDriver = new (
  filename: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => object;
