import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import {
  authenticate,
  createAccount,
  mintToken,
  rotateWebhookSecret,
  syncPlans,
} from '../control-plane/accounts.js';
import { createServerSecrets } from '../control-plane/secrets.js';
import type { ControlPlaneStore } from '../control-plane/store.js';
import { DEFAULT_PLANS } from '../options.js';

/**
 * Fills `controlPlane` as a first session would, for the tests that read a store's files or tables
 * for plaintext: the default plans, an account with its keys, a token minted with the live key, and
 * a rotated webhook secret. Returns the account and live key (whose id and hash must be stored),
 * every secret handed out (none of which may be), and the account operations' dependencies.
 */
export async function sessionSecrets(controlPlane: ControlPlaneStore) {
  const deps = { controlPlane, secrets: createServerSecrets(randomBytes(32)), now: () => Date.now() };
  await syncPlans(controlPlane, DEFAULT_PLANS);
  const { liveKey, testKey, webhookSecret, account } = await createAccount(deps, {
    name: 'Acme',
    planId: 'free',
  });
  const auth = await authenticate(deps, liveKey.secret);
  expect(auth?.account.id).toBe(account.id);
  const { secret: token } = await mintToken(deps, auth as NonNullable<typeof auth>);
  const rotated = await rotateWebhookSecret(deps, { accountId: account.id, graceSeconds: 60 });
  return {
    deps,
    account,
    liveKey,
    secrets: [liveKey.secret, testKey.secret, token, webhookSecret.secret, rotated.secret],
  };
}
