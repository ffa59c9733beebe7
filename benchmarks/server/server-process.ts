// The parent's handle on a server child (server-child.ts).
import { execFileSync, fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CHILD_FLAG,
  type ChildRequest,
  type ChildResponse,
  type ServerChildConfig,
  type ServerChildKeys,
  type ServerChildMemory,
} from './server-child.js';

/** A running server child. */
export interface ServerProcess {
  url: string;
  /** The child's process id (valgrind's, when it runs under valgrind: the same process). */
  pid: number;
  keys: ServerChildKeys | null;
  /** Starts sampling the child's peak RSS afresh. */
  track(): Promise<void>;
  /**
   * RSS now, peak since `track`, CPU since `track`, and the heap: after a full GC with
   * `collect`. A forced full GC leaves the server slower for a few seconds after it (about a
   * fifth slower for ours, seen over 3 s rounds), so a throughput round that follows one is not
   * measured in its steady state: throughput runs read without it.
   */
  memory(options: { collect: boolean }): Promise<ServerChildMemory>;
  /** Closes the server; the child exits (writing its CPU profile when asked for one). */
  close(): Promise<void>;
}

let built = false;

/**
 * Builds the workspace once per run (`tsc --build`, quick when nothing changed): the server
 * children and `svc serve` run the built packages, as users run them. Run from the TypeScript sources through
 * tsx, every closure made per request also calls esbuild's `__name` helper, a few µs a request
 * that no user pays.
 */
export function buildWorkspace(): void {
  if (built) return;
  const root = fileURLToPath(new URL('../../', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '--build'], {
    cwd: root,
    stdio: 'inherit',
  });
  built = true;
}

/**
 * Forks a server child and waits until it listens. Its stdout (the pino log of `ours`) goes to
 * /dev/null, as a log shipped elsewhere would cost the server the same writes. When
 * `SERVER_BENCH_CPU_PROF` names a directory, the child writes a `.cpuprofile` there on close.
 */
export async function startServerProcess(
  config: ServerChildConfig,
  /** Runs the child under this program (e.g. valgrind and its arguments), which then runs node. */
  wrapper?: { program: string; args: string[] },
  /**
   * Another checkout of the repository (built, installed) whose server child to run, so two
   * versions of the code are measured side by side in one run (SERVER_BENCH_BASELINE).
   */
  checkout?: string,
): Promise<ServerProcess> {
  buildWorkspace();
  const profileDir = process.env.SERVER_BENCH_CPU_PROF;
  // No `--conditions=source`: @svc/* resolve to their built dist (tsx loads this file only).
  const nodeArgs = [
    '--import',
    'tsx',
    '--expose-gc',
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  const childFile = checkout
    ? join(checkout, 'benchmarks/server/server-child.ts')
    : fileURLToPath(new URL('./server-child.ts', import.meta.url));
  const child = fork(childFile, [CHILD_FLAG], {
    ...(wrapper
      ? { execPath: wrapper.program, execArgv: [...wrapper.args, process.execPath, ...nodeArgs] }
      : { execArgv: nodeArgs }),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (response: ChildResponse) => void>();
  let nextId = 0;
  const ready = await new Promise<{ url: string; keys: ServerChildKeys | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server child exited with code ${code}`)));
    child.on('message', (message: ChildResponse) => {
      if ('ready' in message) resolve(message.ready);
      else if ('failed' in message) reject(new Error(`server child did not start: ${message.failed}`));
      else pending.get(message.id)?.(message);
    });
    child.send({ config } satisfies ChildRequest);
  });
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ask = (request: { op: 'track' | 'close' } | { op: 'memory'; collect: boolean }) =>
    new Promise<ChildResponse>((resolve) => {
      const id = nextId++;
      pending.set(id, (response) => {
        pending.delete(id);
        resolve(response);
      });
      child.send({ id, ...request } satisfies ChildRequest);
    });
  return {
    ...ready,
    pid: child.pid as number,
    async track() {
      await ask({ op: 'track' });
    },
    async memory({ collect }) {
      const response = await ask({ op: 'memory', collect });
      if (!('id' in response) || !response.memory) throw new Error('server child sent no memory figures');
      return response.memory;
    },
    async close() {
      await ask({ op: 'close' });
      await exited;
    },
  };
}
