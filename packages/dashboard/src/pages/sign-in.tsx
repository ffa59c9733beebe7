import { useState } from 'preact/hooks';
import { ApiError, signIn } from '../api';
import { errorText } from '../format';
import { type Session, saveSession } from '../session';

/**
 * Sign in with an API key: it is sent once, to POST /v2/tokens, and the form is cleared. Only
 * the short-lived token it returns is kept (sessionStorage, this tab).
 */
export function SignIn(props: { notice: string | null; onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const presented = key.trim();
    setKey('');
    if (!/^sk_(live|test)_/.test(presented)) {
      setError('That is not an API key: keys start with sk_live_ or sk_test_.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(saveSession(await signIn(presented)));
    } catch (failure) {
      const f = failure instanceof ApiError ? failure.failure : null;
      setError(
        f?.kind === 'rate_limited'
          ? `Too many attempts: retry in ${Math.ceil((f.retryAt - Date.now()) / 1000)} s.`
          : f?.kind === 'api' && f.status === 401
            ? `The server refused this key: ${f.message}.`
            : errorText(failure),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      {props.notice ? (
        <p class="notice" role="status" data-testid="sign-in-notice">
          {props.notice}
        </p>
      ) : null}
      <form onSubmit={submit}>
        <label>
          API key
          <input
            type="password"
            name="api-key"
            autocomplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            placeholder="sk_live_…"
          />
        </label>
        <p class="hint">
          The key is exchanged for a one-hour token and not kept. A live key can manage keys and the webhook
          secret; a test key sees usage and jobs only.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error ? (
        <p class="error" role="alert" data-testid="sign-in-error">
          {error}
        </p>
      ) : null}
    </section>
  );
}
