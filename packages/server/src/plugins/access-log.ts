import { hostname } from 'node:os';

/** What the access-log line says about one request. */
export interface AccessLogEntry {
  requestId: string;
  method: string;
  /** The URL's path, without the query. */
  path: string;
  status: number;
  /** The endpoint id (`geo_ip`, …), null for an unknown path. */
  endpoint: string | null;
  /** The account the request was made for, null without one. */
  accountId: string | null;
  /** Time to answer, ms, to a tenth. */
  ms: number;
  /** The route's own fields (`request.logFields`), after the ones above. */
  extra?: Record<string, unknown> | undefined;
}

/** Characters a JSON string must escape; a path almost never has one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const NEEDS_ESCAPING = /[\u0000-\u001f"\\]/;

/** A string as JSON, escaped only when it has to be. */
const jsonString = (value: string) => (NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`);

/** A string or null as JSON. */
const jsonOrNull = (value: string | null) => (value === null ? 'null' : jsonString(value));

/**
 * Formats the server's access-log line, one JSON object and a newline per request, with its own
 * explicit format:
 *
 * ```
 * {"level":30,"time":1764201600000,"pid":4242,"hostname":"api-1","request_id":"req_…","method":"GET",
 *  "path":"/v2/geo/8.8.8.8","status":200,"endpoint":"geo_ip","account_id":"acct_…","ms":1.2,
 *  …the route's own fields…,"msg":"request"}
 * ```
 *
 * `level` 30 (info), epoch-ms `time`, `pid`, `hostname` and `msg` are the keys pino writes on the
 * server's other lines, so one log reader takes both; the process id and host name are read here,
 * once, not taken from the logger. Written by hand rather than through pino's `info()`, whose
 * generic formatting (escaping every key and value, serializers looked up per key) was about two
 * thirds of the line's cost: these fields are the server's own, so only strings that need it are
 * escaped. Headers and bodies are never part of it, so no key or token can reach the log this way.
 */
export function accessLogFormatter(
  process_: { pid: number } = process,
  host: string = hostname(),
): (entry: AccessLogEntry, time?: number) => string {
  const bindings = `"pid":${process_.pid},"hostname":${JSON.stringify(host)}`;
  return (entry, time = Date.now()) => {
    let extra = '';
    if (entry.extra) {
      for (const [key, value] of Object.entries(entry.extra))
        extra += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
    }
    return `{"level":30,"time":${time},${bindings},"request_id":${jsonString(entry.requestId)},"method":${jsonString(entry.method)},"path":${jsonString(entry.path)},"status":${entry.status},"endpoint":${jsonOrNull(entry.endpoint)},"account_id":${jsonOrNull(entry.accountId)},"ms":${entry.ms}${extra},"msg":"request"}\n`;
  };
}
