/*
 * The flags of `svc accounts` and `svc keys` that find the server's store. Kept apart from
 * open.ts, which loads @svc/server (Fastify and the rest): the command table imports only this,
 * so other commands do not pay for loading the server.
 */

/** The flags every `svc accounts` / `svc keys` command takes to find `svc serve`'s store. */
export const CONTROL_PLANE_FLAGS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
} as const;

/** The help lines of those flags, their text starting at `column` like the command's other options. */
export function controlPlaneFlagsHelp(column: number): string {
  const indent = ' '.repeat(column);
  return [
    `${'  --data-dir <dir>'.padEnd(column)}the server's data dir (default: as svc serve: $SVC_DATA_DIR,`,
    `${indent}else the config file's dataDir, else $XDG_DATA_HOME/svc or ~/.local/share/svc)`,
    `${'  --config <file>'.padEnd(column)}the server's config file (else $SVC_CONFIG): its plans and dataDir`,
  ].join('\n');
}
