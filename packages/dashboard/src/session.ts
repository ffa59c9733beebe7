import type { Token } from './types';

/**
 * The signed-in session: a short-lived token (never the API key, which the sign-in form
 * exchanges and forgets). Kept in sessionStorage so a reload in the same tab stays signed in
 * and closing the tab forgets it; sign-out removes it.
 */
export interface Session {
  token: string;
  environment: 'test' | 'live';
  scopes: string[];
  expiresAt: number;
}

const KEY = 'svc.dashboard.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    return typeof session.token === 'string' && session.token.startsWith('tok_') ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(token: Token): Session {
  const session: Session = {
    token: token.token,
    environment: token.environment,
    scopes: token.scopes ?? [],
    expiresAt: Date.parse(token.expires_at),
  };
  sessionStorage.setItem(KEY, JSON.stringify(session));
  return session;
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** Whether the session's token may call an endpoint (scope ids are the API's endpoint ids). */
export function can(session: Session, endpoint: string): boolean {
  return session.scopes.includes(endpoint);
}
