import { existsSync, mkdirSync, statSync, unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '@svc/core';
import { generateRequestId } from './plugins/request-id.js';
import type { HealthCheck } from './routes/health-checks.js';
import { API_VERSION } from './version.js';

/*
 * The parts of `svc serve` around the Fastify instance, each small enough to test on its own:
 * the data dir, the TLS pair, the reload triggers of the geo data, the signals that stop, and a
 * worker's health port.
 */

/**
 * Creates the data dir (0700: it holds the secret key and the databases); an existing one
 * readable by others is reported, not changed, since the operator may share it on purpose.
 * Returns the warnings to print.
 */
export function prepareDataDir(dir: string): string[] {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return [];
  }
  const stat = statSync(dir);
  if (!stat.isDirectory()) throw new Error(`the data dir ${dir} is not a folder`);
  const mode = stat.mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0)
    return [
      `the data dir ${dir} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); chmod 700 it`,
    ];
  return [];
}

/** Reads the PEM pair named by `tls.certFile`/`tls.keyFile`; an unreadable one is named in the error. */
export async function readTlsPair(tls: {
  certFile: string;
  keyFile: string;
}): Promise<{ cert: Buffer; key: Buffer }> {
  const read = async (file: string, key: string) => {
    try {
      const bytes = await readFile(file);
      if (!bytes.includes('-----BEGIN ')) throw new Error('not a PEM file');
      return bytes;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
      throw new Error(`cannot use ${key} ${file}: ${why}`);
    }
  };
  return { cert: await read(tls.certFile, 'tls.certFile'), key: await read(tls.keyFile, 'tls.keyFile') };
}

/** Stops the reload triggers. */
export type StopTriggers = () => void;

/**
 * Calls `reload` on a schedule (every `intervalSeconds`, 0 = never), on SIGHUP, and when one of
 * `stampFiles` changes (`svc geo update` installs its files atomically, so their mtime moves).
 * Reloads never overlap: a trigger during one is folded into one more run after it.
 */
export function geoReloadTriggers(options: {
  reload: () => Promise<void>;
  intervalSeconds: number;
  stampFiles: string[];
  signals: boolean;
  onError: (error: Error) => void;
  /** How often the stamp files are looked at, ms. @default 2000 */
  pollMs?: number;
}): { stop: StopTriggers; trigger: () => Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  const trigger = async (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await options.reload();
        } catch (error) {
          options.onError(error as Error);
        }
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const fire = () => void trigger();
  const timer =
    options.intervalSeconds > 0 ? setInterval(fire, options.intervalSeconds * 1000).unref() : undefined;
  if (options.signals) process.on('SIGHUP', fire);
  // watchFile polls stat(): it works for files that do not exist yet and survives renames over them.
  const onStamp = (current: { mtimeMs: number }, previous: { mtimeMs: number }) => {
    if (current.mtimeMs !== previous.mtimeMs) fire();
  };
  for (const file of options.stampFiles)
    watchFile(file, { interval: options.pollMs ?? 2_000, persistent: false }, onStamp);
  return {
    trigger,
    stop() {
      if (timer) clearInterval(timer);
      if (options.signals) process.off('SIGHUP', fire);
      for (const file of options.stampFiles) unwatchFile(file, onStamp);
    },
  };
}

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT; a second signal while it runs exits at once
 * (the operator insists). Returns the function that removes the handlers.
 */
export function onStopSignals(
  shutdown: (signal: NodeJS.Signals) => Promise<void>,
  exit: (code: number) => void,
): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      exit(130);
      return;
    }
    stopping = true;
    shutdown(signal).then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}

/** A worker's health listener (`svc serve --role worker`). */
export interface HealthServer {
  /** `http://127.0.0.1:9090` (https with TLS). */
  url: string;
  close(): Promise<void>;
}

/**
 * What a worker process listens on: `GET /v2/health` only (no key), 200 `{ status, failing,
 * checks, role, version, time }` when `ready()` resolves (its stores answer) and 500
 * `internal_error` when it throws, so an orchestrator can restart a worker that lost its
 * database. `status` is `degraded` when one of `checks()` failed (as the API's health: still 200,
 * the failed check named in `failing`). Any other path is 404 saying the API lives on the api
 * processes. Fastify and the routes are not loaded: a worker has no API.
 */
export async function startHealthServer(options: {
  host: string;
  port: number;
  tls: { cert: Buffer; key: Buffer } | null;
  ready: () => Promise<void>;
  /** The checks shown once `ready()` resolved (e.g. `dns_resolver`). @default () => [] */
  checks?: () => HealthCheck[];
  now?: () => number;
}): Promise<HealthServer> {
  const now = options.now ?? Date.now;
  const send = (response: ServerResponse, status: number, body: unknown, requestId: string) => {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-request-id': requestId,
    });
    response.end(text);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const requestId = generateRequestId();
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/v2/health' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      const error = new ServiceError(
        'not_found',
        'this is a worker process: it serves GET /v2/health only; the API is served by the api (or all) processes',
      );
      send(response, 404, error.toBody(requestId), requestId);
      return;
    }
    options.ready().then(
      () => {
        const checks = options.checks?.() ?? [];
        const failing = checks.filter((check) => check.status === 'failed').map((check) => check.id);
        send(
          response,
          200,
          {
            status: failing.length > 0 ? 'degraded' : 'ok',
            failing,
            checks,
            role: 'worker',
            version: API_VERSION,
            time: new Date(now()).toISOString(),
          },
          requestId,
        );
      },
      () => {
        const error = new ServiceError('internal_error', 'the worker cannot reach its stores');
        send(response, 500, error.toBody(requestId), requestId);
      },
    );
  };
  const server = options.tls ? createHttpsServer(options.tls, handle) : createHttpServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
