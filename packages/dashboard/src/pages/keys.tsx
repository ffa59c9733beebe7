import { useState } from 'preact/hooks';
import type { PageProps } from '../app';
import { SecretOnce } from '../components/secret-once';
import { duration, GRACE_CHOICES, when } from '../format';
import { useAction, useLoad } from '../load';
import { can } from '../session';
import type { Account, CreatedKey, Key, RotatedKey, RotatedSecret } from '../types';

/**
 * Moves the keyboard focus into a control that just appeared (a confirmation, a rotation's
 * choices), once: the button that opened it is gone, and focus would otherwise fall to the page.
 */
function focusOnce(element: HTMLElement | null): void {
  if (element && !element.dataset.focused) {
    element.dataset.focused = '1';
    element.focus();
  }
}

/** Shown once: the secret of a key just created or rotated, or of a rotated webhook secret. */
type Shown = { label: string; secret: string; note?: string };

/**
 * The account's keys (prefix and last four characters only: the API never returns a secret
 * twice), create, rotate with a grace period, revoke with confirmation; and the webhook signing
 * secret's rotation. Needs a session from a live key (the token's management scopes).
 */
/** The choices of how long an old key or webhook secret keeps working after a rotation. */
function graceOptions() {
  return GRACE_CHOICES.map((s) => (
    <option key={s} value={s}>
      {s === 0 ? 'no time (stop now)' : duration(s)}
    </option>
  ));
}

export function KeysPage({ api, session }: PageProps) {
  const manage = can(session, 'keys_list');
  const keys = useLoad(
    () => (manage ? api.json<{ data: Key[] }>('GET', '/v2/keys') : Promise.resolve({ data: [] })),
    [],
  );
  const account = useLoad(() => api.json<Account>('GET', '/v2/account'), []);
  const action = useAction();
  const [shown, setShown] = useState<Shown | null>(null);
  const [environment, setEnvironment] = useState<'live' | 'test'>('live');
  const [name, setName] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  const [rotating, setRotating] = useState<string | null>(null);
  const [grace, setGrace] = useState(86_400);
  const [secretGrace, setSecretGrace] = useState(86_400);

  if (!manage) {
    return (
      <>
        <h1>Keys</h1>
        <p class="notice" data-testid="keys-need-live">
          Managing keys and the webhook signing secret needs a live key. You signed in with a{' '}
          {session.environment} key: sign out and sign in with a live key (sk_live_…).
        </p>
      </>
    );
  }

  const create = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() =>
      api.json<CreatedKey>(
        'POST',
        '/v2/keys',
        name.trim() ? { environment, name: name.trim() } : { environment },
      ),
    );
    if (created) {
      setShown({
        label: `New ${created.environment} key ${created.name ?? ''}`.trim(),
        secret: created.secret,
      });
      setName('');
      keys.reload();
    }
  };
  const rotate = async (id: string) => {
    const rotated = await action.run(() =>
      api.json<RotatedKey>('POST', `/v2/keys/${id}/rotate`, { grace_seconds: grace }),
    );
    if (rotated) {
      setRotating(null);
      setShown({
        label: `Replacement for ${rotated.previous.prefix}…${rotated.previous.last4}`,
        secret: rotated.secret,
        note: `The old key works until ${when(rotated.previous.expires_at)}.`,
      });
      keys.reload();
    }
  };
  const revoke = async (id: string) => {
    if (await action.run(() => api.json<Key>('DELETE', `/v2/keys/${id}`))) {
      setConfirming(null);
      keys.reload();
    }
  };
  const rotateSecret = async (event: Event) => {
    event.preventDefault();
    const rotated = await action.run(() =>
      api.json<RotatedSecret>('POST', '/v2/account/webhook-secret/rotate', { grace_seconds: secretGrace }),
    );
    if (rotated) {
      setShown({
        label: 'New webhook signing secret',
        secret: rotated.secret,
        note: rotated.previous_expires_at
          ? `Deliveries carry a signature with the old secret too until ${when(rotated.previous_expires_at)}.`
          : undefined,
      });
      account.reload();
    }
  };

  return (
    <>
      <h1>Keys</h1>
      {shown ? <SecretOnce {...shown} onDone={() => setShown(null)} /> : null}
      {action.error ? (
        <p class="error" role="alert" data-testid="action-error">
          {action.error}
        </p>
      ) : null}
      <section aria-labelledby="create-title" class="card">
        <h2 id="create-title">Create a key</h2>
        <form class="row wrap" onSubmit={create}>
          <label>
            Environment
            <select
              value={environment}
              onChange={(e) => setEnvironment(e.currentTarget.value as 'live' | 'test')}
              name="environment"
            >
              <option value="live">live (billed)</option>
              <option value="test">test (sandbox)</option>
            </select>
          </label>
          <label class="grow">
            Name (optional)
            <input
              name="key-name"
              value={name}
              maxLength={200}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={action.busy}>
            Create key
          </button>
        </form>
      </section>
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys.error ? (
          <p class="error" role="alert">
            {keys.error}
          </p>
        ) : null}
        <div class="table-wrap">
          <table data-testid="keys">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Env</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(keys.data?.data ?? []).map((key) => {
                const usable = key.status === 'active' || key.status === 'expiring';
                return (
                  <tr key={key.id} data-key-id={key.id} data-status={key.status}>
                    <td>
                      <code data-testid="key-masked">
                        {key.prefix}…{key.last4}
                      </code>
                    </td>
                    <td>{key.name ?? '—'}</td>
                    <td>{key.environment}</td>
                    <td>
                      {key.status}
                      {key.status === 'expiring' ? ` until ${when(key.expires_at)}` : ''}
                    </td>
                    <td>{when(key.created_at)}</td>
                    <td>{when(key.last_used_at)}</td>
                    <td class="actions">
                      {usable && key.status === 'active' ? (
                        rotating === key.id ? (
                          <span class="row wrap">
                            <label>
                              Old key keeps working for
                              <select
                                ref={focusOnce}
                                value={grace}
                                onChange={(e) => setGrace(Number(e.currentTarget.value))}
                              >
                                {graceOptions()}
                              </select>
                            </label>
                            <button type="button" onClick={() => rotate(key.id)} disabled={action.busy}>
                              Rotate now
                            </button>
                            <button type="button" class="secondary" onClick={() => setRotating(null)}>
                              Cancel
                            </button>
                          </span>
                        ) : (
                          <button type="button" class="secondary" onClick={() => setRotating(key.id)}>
                            Rotate…
                          </button>
                        )
                      ) : null}
                      {usable ? (
                        confirming === key.id ? (
                          <fieldset class="row wrap confirm">
                            <legend class="visually-hidden">Confirm revocation</legend>
                            <span>
                              Revoke {key.prefix}…{key.last4}? Requests with it fail at once.
                            </span>
                            <button
                              type="button"
                              class="danger"
                              onClick={() => revoke(key.id)}
                              disabled={action.busy}
                            >
                              Yes, revoke
                            </button>
                            <button
                              type="button"
                              class="secondary"
                              ref={focusOnce}
                              onClick={() => setConfirming(null)}
                            >
                              Cancel
                            </button>
                          </fieldset>
                        ) : (
                          <button type="button" class="danger" onClick={() => setConfirming(key.id)}>
                            Revoke…
                          </button>
                        )
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="secret-title" class="card">
        <h2 id="secret-title">Webhook signing secret</h2>
        <p>
          Every webhook is signed with the account's secret (<code>X-Service-Signature</code>). While a
          rotation's grace period runs, deliveries carry one signature per secret, so receivers can switch
          when they like.
        </p>
        <ul data-testid="webhook-secrets">
          {(account.data?.webhook_secrets ?? []).map((secret) => (
            <li key={secret.id}>
              <code>{secret.prefix}…</code> created {when(secret.created_at)}
              {secret.expires_at ? `, signs until ${when(secret.expires_at)}` : ', current'}
            </li>
          ))}
        </ul>
        <form class="row wrap" onSubmit={rotateSecret}>
          <label>
            Old secret keeps signing for
            <select value={secretGrace} onChange={(e) => setSecretGrace(Number(e.currentTarget.value))}>
              {graceOptions()}
            </select>
          </label>
          <button type="submit" disabled={action.busy}>
            Rotate webhook secret
          </button>
        </form>
      </section>
    </>
  );
}
