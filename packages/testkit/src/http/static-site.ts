import { contentTypeFor } from './content-type.js';
import { startLoopbackServer } from './server.js';
import type { FakeHttpResponse, RecordedHttpRequest, RecordedHttpResponse } from './types.js';
import { checkKeys, checkLoopbackHost, checkPort, checkResponse, fail, isRecord, show } from './validate.js';

/** A route's response: a full {@link FakeHttpResponse}, or just its body (status 200). */
export type StaticRoute = string | Uint8Array | FakeHttpResponse;

/** Options of {@link startStaticSite}. */
export interface StaticSiteOptions {
  /**
   * Path (optionally with a query string) → response. A request matches its exact path+query
   * first, then its path alone; anything else gets 404. Without a `content-type` header a route
   * gets one from its extension (`.tar.gz` → `application/gzip`, `.json` → `application/json`,
   * …), else `text/html; charset=utf-8` for a string body and `application/octet-stream` for bytes.
   * @default {}
   */
  routes?: Readonly<Record<string, StaticRoute>>;
  /**
   * The loopback address to listen on (any 127.x.y.z).
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * The port to listen on.
   * @default 0 (ephemeral)
   */
  port?: number;
}

/** A running fake website. */
export interface StaticSite {
  /** `http://<host>:<port>`, without a trailing slash. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Every request received, in arrival order (live array), unknown paths included. */
  readonly requests: readonly RecordedHttpRequest[];
  /** Adds or replaces one route while running (validated like `options.routes`). */
  setRoute(path: string, route: StaticRoute): void;
  /** Removes a route; later requests for it get 404. */
  deleteRoute(path: string): void;
  /** Stops listening and destroys open connections; safe to call more than once. */
  close(): Promise<void>;
}

const WHERE = 'startStaticSite:';
const OPTION_KEYS = new Set(['routes', 'host', 'port']);
const NOT_FOUND: RecordedHttpResponse = {
  status: 404,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '9' },
  body: Buffer.from('Not Found'),
  delayMs: 0,
};

function checkPath(where: string, path: unknown): string {
  if (typeof path !== 'string' || !path.startsWith('/') || /[\s#]/.test(path)) {
    fail(`${where} path ${show(path)}`, "must start with '/' and contain no spaces or '#'");
  }
  return path;
}

function resolveRoute(where: string, path: string, route: unknown): RecordedHttpResponse {
  const spec = typeof route === 'string' || route instanceof Uint8Array ? { body: route } : route;
  return checkResponse(where, spec, {
    status: 200,
    body: Buffer.alloc(0),
    contentType: () => contentTypeFor(path, !isRecord(spec) || typeof spec.body !== 'object'),
  });
}

/** Starts a fake website on loopback serving fixed responses per path, recording every request. */
export async function startStaticSite(options: StaticSiteOptions = {}): Promise<StaticSite> {
  if (!isRecord(options)) fail(WHERE, `options must be an object, got ${show(options)}`);
  checkKeys(`${WHERE} options`, options, OPTION_KEYS);
  const host = checkLoopbackHost(`${WHERE} options.host`, options.host ?? '127.0.0.1');
  const port = checkPort(`${WHERE} options.port`, options.port ?? 0);
  const routes = new Map<string, RecordedHttpResponse>();
  const set = (where: string, path: unknown, route: unknown): void => {
    const key = checkPath(where, path);
    routes.set(key, resolveRoute(`${where}[${JSON.stringify(key)}]`, key, route));
  };
  const given = options.routes ?? {};
  if (!isRecord(given)) fail(`${WHERE} options.routes`, `must be an object, got ${show(given)}`);
  for (const [path, route] of Object.entries(given)) set(`${WHERE} options.routes`, path, route);

  const requests: RecordedHttpRequest[] = [];
  const server = await startLoopbackServer(host, port, (request, res) => {
    requests.push(request);
    const pathname = request.path.split('?')[0] ?? request.path;
    server.send(res, routes.get(request.path) ?? routes.get(pathname) ?? NOT_FOUND);
  });

  return {
    url: server.url,
    host: server.host,
    port: server.port,
    requests,
    setRoute(path, route) {
      set('StaticSite.setRoute: route', path, route);
    },
    deleteRoute(path) {
      routes.delete(checkPath('StaticSite.deleteRoute:', path));
    },
    close: () => server.close(),
  };
}
