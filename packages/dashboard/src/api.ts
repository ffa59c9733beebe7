import { JOB_TYPE_IDS, JOB_TYPES } from '@svc/core/job-types';
import type { Session } from './session';

/** Why a call failed, in the terms the page shows. */
export type Failure =
  | { kind: 'unreachable'; message: string }
  | { kind: 'session'; message: string }
  | { kind: 'rate_limited'; message: string; retryAt: number }
  | { kind: 'api'; status: number; code: string; message: string };

export class ApiError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

/** What the app does with failures every page shares (an ended session, a 429). */
export type FailureListener = (failure: Failure) => void;

interface ErrorBody {
  error?: { code?: string; message?: string };
}

/**
 * The scopes the page asks for at sign-in: what it calls, nothing more. Starting a batch job also
 * needs the endpoint its type stands for (the API gates a token's job by it), so those come from
 * the job-type registry.
 */
export const PAGE_SCOPES = [
  ...new Set(JOB_TYPE_IDS.map((type) => JOB_TYPES[type].endpoint)),
  'account_get',
  'usage_get',
  'batch_list',
  'batch_get',
  'batch_create',
  'batch_results',
  'batch_cancel',
  'batch_events',
  'event_resend',
  'webhooks_test',
  'feedback_stats',
  'feedback_providers_list',
];
/** Granted only to a token minted from a live key (the API refuses them otherwise). */
export const MANAGEMENT_SCOPES = [
  'keys_list',
  'keys_create',
  'keys_rotate',
  'keys_revoke',
  'webhook_secret_rotate',
];
/** Sessions last an hour, the longest the API allows a token that manages keys. */
export const SESSION_SECONDS = 3_600;

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, { ...init, cache: 'no-store', credentials: 'omit' });
  } catch (error) {
    throw new ApiError({
      kind: 'unreachable',
      message: `The server did not answer (${(error as Error).message}). Check that svc serve is running, then try again.`,
    });
  }
}

async function failureOf(response: Response, signedIn: boolean): Promise<Failure> {
  const body = (await response.json().catch(() => ({}))) as ErrorBody;
  const code = body.error?.code ?? 'internal_error';
  const message = body.error?.message ?? `the server answered ${response.status}`;
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after') ?? '1');
    return {
      kind: 'rate_limited',
      message,
      retryAt: Date.now() + (Number.isFinite(seconds) ? Math.max(1, seconds) : 1) * 1000,
    };
  }
  // A refusal of management (the key signed in with is being rotated away: it manages nothing
  // until it ends) is not the end of the session: its other pages still work.
  if (response.status === 401 && signedIn && !/scopes|a token can manage|manages no keys/.test(message)) {
    return { kind: 'session', message };
  }
  return { kind: 'api', status: response.status, code, message };
}

/** Exchanges an API key for a token; the key goes into this one request and nowhere else. */
export async function signIn(key: string): Promise<import('./types').Token> {
  const mint = (scopes: string[]) =>
    send('/v2/tokens', {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ttl_seconds: SESSION_SECONDS, scopes }),
    });
  let response = await mint(
    key.startsWith('sk_live_') ? [...PAGE_SCOPES, ...MANAGEMENT_SCOPES] : PAGE_SCOPES,
  );
  // A live key in its rotation grace period may not grant management: sign in without it.
  if (response.status === 401 && key.startsWith('sk_live_')) {
    const refusal = (await response
      .clone()
      .json()
      .catch(() => ({}))) as ErrorBody;
    if (/cannot grant/.test(refusal.error?.message ?? '')) response = await mint(PAGE_SCOPES);
  }
  if (!response.ok) throw new ApiError(await failureOf(response, false));
  return response.json();
}

/** Calls the /v2 API with the session's token; failures reach `onFailure` and are thrown. */
export function createApi(session: Session, onFailure: FailureListener) {
  async function call(method: string, path: string, body?: unknown, contentType?: string): Promise<Response> {
    const headers: Record<string, string> = { 'X-API-Key': session.token };
    let payload: BodyInit | undefined;
    if (body !== undefined) {
      headers['Content-Type'] = contentType ?? 'application/json';
      payload = contentType ? (body as BodyInit) : JSON.stringify(body);
    }
    const response = await send(path, { method, headers, body: payload }).catch((error: ApiError) => {
      onFailure(error.failure);
      throw error;
    });
    if (!response.ok) {
      const failure = await failureOf(response, true);
      onFailure(failure);
      throw new ApiError(failure);
    }
    return response;
  }
  return {
    async json<T>(method: string, path: string, body?: unknown): Promise<T> {
      return (await call(method, path, body)).json() as Promise<T>;
    },
    async upload<T>(path: string, text: string, contentType: string): Promise<T> {
      return (await call('POST', path, text, contentType)).json() as Promise<T>;
    },
    async blob(path: string): Promise<Blob> {
      return (await call('GET', path)).blob();
    },
  };
}

export type Api = ReturnType<typeof createApi>;

/**
 * GET /v2/health needs no key; with the session's token the server adds what only its owner
 * account may see (the email probing self-check, `probing`).
 */
export async function health(session: Session): Promise<import('./types').Health> {
  const response = await send('/v2/health', { method: 'GET', headers: { 'X-API-Key': session.token } });
  if (!response.ok) throw new ApiError(await failureOf(response, false));
  return response.json();
}
