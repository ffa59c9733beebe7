import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenApiChecker } from './openapi.js';

/** This folder (test/): tsx is installed here, so `--import tsx` resolves from it as the cwd. */
const E2E_DIR = fileURLToPath(new URL('..', import.meta.url));
/** The CLI's entry point, run from source (no build needed), as `svc` would run it. */
const CLI = fileURLToPath(new URL('../../packages/cli/src/bin.ts', import.meta.url));
/** MaxMind's City test database (shared fixtures): small and real, so geo answers are known. */
export const GEO_CITY_FIXTURE = fileURLToPath(
  new URL('../../fixtures/maxmind-db/test-data/GeoIP2-City-Test.mmdb', import.meta.url),
);

export interface StartServeOptions {
  /** SVC_* settings for the child (SVC_PORT=0 and a fresh SVC_DATA_DIR are set unless given). */
  env?: Record<string, string>;
  /** Extra command-line arguments after `svc serve`. */
  args?: string[];
  /** A data dir to reuse (a restart); else a new temporary one, removed by stop(). */
  dataDir?: string;
}

/** `svc serve` running as a child process. */
export interface ServeChild {
  url: string;
  dataDir: string;
  /** The secrets printed on first start, on stderr (empty strings on a restart). */
  liveKey: string;
  testKey: string;
  webhookSecret: string;
  accountId: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `svc serve` from source on an ephemeral port and waits for its "listening on" line. */
export async function startServe(options: StartServeOptions = {}): Promise<ServeChild> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-e2e-')));
  const ownsDataDir = options.dataDir === undefined;
  // Only what the server needs from the parent's environment: no stray SVC_* settings.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    SVC_PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
    // The owner's probing self-check would dial gmail-smtp-in.l.google.com:25 when a test reads
    // /v2/health with the owner's key (the dashboard does): off unless a test points it at the testkit.
    SVC_PROBING_INTERVAL_SECONDS: '0',
    ...options.env,
  };
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', CLI, 'serve', ...(options.args ?? [])],
    {
      cwd: E2E_DIR,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (out += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (err += text));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc serve did not start in 45 s\nstdout: ${out}\nstderr: ${err}`));
    }, 45_000);
    const look = () => {
      const match = /svc serve: listening on (\S+) /.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', look);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`svc serve exited (${code ?? signal}) before listening\nstdout: ${out}\nstderr: ${err}`),
      );
    });
  });
  // On first start stdout says the owner's secrets went to stderr (a separate pipe, which may be
  // read after stdout): wait for their last line there.
  if (out.includes('printed once on stderr')) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no secrets on stderr in 10 s\nstderr: ${err}`)),
        10_000,
      );
      const look = () => {
        if (/webhook signing secret: +\S+\n/.test(err)) {
          clearTimeout(timer);
          child.stderr?.off('data', look);
          resolve();
        }
      };
      child.stderr?.on('data', look);
      look();
    });
  }
  const secret = (pattern: RegExp) => pattern.exec(err)?.[1] ?? '';
  return {
    url,
    dataDir,
    liveKey: secret(/live key: +(sk_live_\w+)/),
    testKey: secret(/test key[^:]*: +(sk_test_\w+)/),
    webhookSecret: secret(/webhook signing secret: +(whsec_\S+)/),
    accountId: secret(/created the account (acct_\w+)/),
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      return result;
    },
  };
}

/** One request's outcome, already checked against the served OpenAPI document. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A fetch wrapper for the suite: every response goes through the OpenAPI checker (status,
 * content type and body as documented) before the test sees it.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly checker: OpenApiChecker,
  ) {}

  /** Fetches and validates the served document, then returns a client that checks against it. */
  static async connect(baseUrl: string): Promise<ApiClient> {
    const response = await fetch(`${baseUrl}/v2/openapi.json`);
    if (response.status !== 200) throw new Error(`GET /v2/openapi.json answered ${response.status}`);
    return new ApiClient(baseUrl, await OpenApiChecker.create(await response.json()));
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: { key?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    let body: string | undefined = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    let parsed: unknown;
    if (text !== '' && contentType?.split(';')[0]?.trim() === 'application/json') parsed = JSON.parse(text);
    this.checker.check({ method, url: path, status: response.status, contentType, body: parsed });
    // Every response carries its request id, and an error body repeats the same one.
    const requestId = response.headers.get('x-request-id');
    if (!requestId?.startsWith('req_')) throw new Error(`${method} ${path}: X-Request-Id is ${requestId}`);
    const bodyId = (parsed as { error?: { request_id?: string } } | undefined)?.error?.request_id;
    if (response.status >= 400 && bodyId !== requestId)
      throw new Error(`${method} ${path}: error request_id ${bodyId} differs from X-Request-Id ${requestId}`);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
}
