/** Runs one statement on the PostgreSQL server at `serverUrl`, on a connection of its own. */
async function admin(serverUrl: string, sql: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates the empty database `name` on the PostgreSQL server at `serverUrl` (for a test that lets
 * the code under test make its own schemas) and returns its URL. Drop it with {@link dropDatabase}.
 */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  await admin(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the database `name` (if it exists) on the server at `serverUrl`, closing its connections. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
