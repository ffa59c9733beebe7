// biome-ignore lint/suspicious/noExplicitAny: by default the tests read the bodies field by field
type Json = any;

/**
 * One call over real HTTP to `base` (such as `http://127.0.0.1:8080`): the key in `X-API-Key`
 * (none when null), `body` sent as JSON when given. Returns the status and the parsed JSON answer.
 */
export async function fetchJson<T = Json>(
  base: string,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}
