import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Several `svc serve` processes (API and worker roles) sharing one configuration, for the
// scale-out test: each started from the built CLI (a restart after SIGKILL costs ~1.5 s of CPU
// instead of ~3 s through tsx, and the test restarts a process half a dozen times), each with
// its own data dir, every incarnation's output kept so a failure shows what each process said.

/** The built CLI: `npx tsc --build` makes it (`pnpm test` builds first). */
export const BUILT_CLI = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));

/** Most characters of one incarnation's output kept (the tail: what it said last matters). */
const LOG_TAIL_CHARS = 64 * 1024;
/** How long a start may take before the process is killed and the start fails. */
const READY_TIMEOUT_MS = 45_000;

export type SvcRole = 'api' | 'worker' | 'all';

/** One running (or ended) incarnation of a named process. */
export interface SvcProcess {
  readonly name: string;
  readonly role: SvcRole;
  /** The API's base URL (`http://127.0.0.1:<port>`); null for a worker, which serves no HTTP. */
  readonly url: string | null;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it printed so far (the last 64 KiB), stdout and stderr interleaved. */
  output(): string;
  /** Whether the process has ended. */
  ended(): boolean;
  /** Resolves with how the process ended. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Options of {@link SvcCluster}. */
export interface SvcClusterOptions {
  /** `SVC_*` settings every process gets (the shared database, Redis, secret key, …). */
  env: Record<string, string>;
  /**
   * What a worker prints once it is ready (an API process is ready when it prints its
   * `listening on` line).
   * @default /svc serve: .*worker/
   */
  workerReady?: RegExp;
}

interface Spec {
  name: string;
  role: SvcRole;
  dataDir: string;
  env: Record<string, string>;
}

/** A set of named `svc serve` processes on one shared configuration. */
export class SvcCluster {
  private readonly specs = new Map<string, Spec>();
  private readonly running = new Map<string, SvcProcess>();
  /** Output of ended incarnations, oldest first, so a killed process's last words stay visible. */
  private readonly history: string[] = [];
  private root: string | null = null;
  /** Starts under way, so close() can wait for them instead of leaving a process behind. */
  private readonly launching = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: SvcClusterOptions) {
    if (!existsSync(BUILT_CLI))
      throw new Error(
        `${BUILT_CLI} is missing: build first (npx tsc --build), the scale-out test runs the built CLI`,
      );
  }

  /** Starts the process `name` in `role` and resolves once it is ready. */
  async start(name: string, role: SvcRole, env: Record<string, string> = {}): Promise<SvcProcess> {
    if (this.running.get(name) && !this.running.get(name)?.ended())
      throw new Error(`${name} is already running`);
    this.root ??= await mkdtemp(join(tmpdir(), 'svc-cluster-'));
    const dataDir = join(this.root, name);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const spec: Spec = { name, role, dataDir, env };
    this.specs.set(name, spec);
    return this.launch(spec);
  }

  /** The current incarnation of `name`. */
  get(name: string): SvcProcess {
    const found = this.running.get(name);
    if (!found) throw new Error(`no process named ${name}`);
    return found;
  }

  /** Kills `name` with SIGKILL (no cleanup of any kind) and resolves once it is gone. */
  async kill(name: string): Promise<void> {
    const target = this.get(name);
    if (!target.ended()) target.child.kill('SIGKILL');
    await target.exit;
  }

  /** Starts `name` again with the same role, settings and data dir; resolves once it is ready. */
  async restart(name: string): Promise<SvcProcess> {
    const spec = this.specs.get(name);
    if (!spec) throw new Error(`no process named ${name}`);
    if (!this.get(name).ended()) throw new Error(`${name} is still running`);
    return this.launch(spec);
  }

  /** Runs another `svc` command (e.g. `accounts create`) with the cluster's settings. */
  async cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
    this.root ??= await mkdtemp(join(tmpdir(), 'svc-cluster-'));
    const dataDir = join(this.root, 'cli');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const env = { PATH: process.env.PATH ?? '', HOME: dataDir, SVC_DATA_DIR: dataDir, ...this.options.env };
    return promisify(execFile)(process.execPath, [BUILT_CLI, ...args], { env, maxBuffer: 16 << 20 });
  }

  /** What every process printed, each incarnation under its name (for a failure message). */
  output(): string {
    const current = [...this.running.values()].map((entry) => describe(entry));
    return [...this.history, ...current].join('\n');
  }

  /**
   * Stops every process (SIGTERM, then SIGKILL after 10 s) and removes the data dirs; starts
   * under way finish first, and later ones are refused.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.launching]);
    await Promise.all(
      [...this.running.values()].map(async (entry) => {
        if (entry.ended()) return;
        entry.child.kill('SIGTERM');
        const timer = setTimeout(() => entry.child.kill('SIGKILL'), 10_000);
        await entry.exit;
        clearTimeout(timer);
      }),
    );
    if (this.root) await rm(this.root, { recursive: true, force: true });
    this.root = null;
  }

  private launch(spec: Spec): Promise<SvcProcess> {
    if (this.closed) return Promise.reject(new Error(`the cluster is closed; not starting ${spec.name}`));
    const launched = this.spawnReady(spec);
    this.launching.add(launched);
    const forget = () => this.launching.delete(launched);
    launched.then(forget, forget);
    return launched;
  }

  private async spawnReady(spec: Spec): Promise<SvcProcess> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: spec.dataDir,
      SVC_PORT: '0',
      SVC_HOST: '127.0.0.1',
      SVC_DATA_DIR: spec.dataDir,
      SVC_LOG_LEVEL: 'warn',
      ...this.options.env,
      ...spec.env,
    };
    const child = spawn(process.execPath, [BUILT_CLI, 'serve', '--role', spec.role], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    const append = (chunk: string) => {
      text += chunk;
      if (text.length > 2 * LOG_TAIL_CHARS) text = text.slice(-LOG_TAIL_CHARS);
    };
    child.stdout?.setEncoding('utf8').on('data', append);
    child.stderr?.setEncoding('utf8').on('data', append);
    let ended = false;
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => {
        ended = true;
        resolve({ code, signal });
      }),
    );
    const ready = spec.role === 'worker' ? (this.options.workerReady ?? /svc serve: .*worker/) : LISTENING;
    const url = await new Promise<string | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${spec.name} (${spec.role}) was not ready in ${READY_TIMEOUT_MS} ms:\n${text}`));
      }, READY_TIMEOUT_MS);
      const look = () => {
        const match = ready.exec(text);
        if (!match) return;
        clearTimeout(timer);
        child.stdout?.off('data', look);
        resolve(spec.role === 'worker' ? null : (match[1] ?? null));
      };
      child.stdout?.on('data', look);
      void exit.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(
          new Error(`${spec.name} (${spec.role}) exited (${code ?? signal}) before it was ready:\n${text}`),
        );
      });
    });
    const entry: SvcProcess = {
      name: spec.name,
      role: spec.role,
      url,
      pid: child.pid ?? -1,
      child,
      output: () => text.slice(-LOG_TAIL_CHARS),
      ended: () => ended,
      exit,
    };
    const previous = this.running.get(spec.name);
    if (previous) this.history.push(describe(previous));
    this.running.set(spec.name, entry);
    return entry;
  }
}

const LISTENING = /svc serve: listening on (\S+) /;

function describe(entry: SvcProcess): string {
  const state = entry.ended() ? `ended (${entry.child.exitCode ?? entry.child.signalCode})` : 'running';
  return `----- ${entry.name} (${entry.role}, pid ${entry.pid}, ${state}) -----\n${entry.output()}`;
}
