import { type Static, Type } from 'typebox';
import {
  DEFAULT_TOKEN_TTL_SECONDS,
  MANAGEMENT_SCOPES,
  MAX_GRACE_SECONDS,
  MAX_MANAGEMENT_TOKEN_TTL_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  MIN_TOKEN_TTL_SECONDS,
  TOKEN_SCOPES,
} from '../control-plane/accounts.js';
import type { ApiKey, Plan, Token, WebhookSecret } from '../control-plane/store.js';
import { OPTIONAL_BODY } from '../plugins/openapi.js';

/**
 * The shapes of the account's own resources (keys, tokens, webhook secrets, usage), declared
 * once: the routes validate and serialise with them and the OpenAPI document is built from them.
 * They stay in the server (unlike the capability results in @svc/core) because only the HTTP API
 * and its operators deal in keys and invoices.
 */

const IsoTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
const NullableIsoTime = Type.Union([IsoTime, Type.Null()]);
const EnvironmentSchema = Type.Union([Type.Literal('test'), Type.Literal('live')], {
  description: 'test keys run in the sandbox and are never billed',
});

/**
 * A POST whose body is optional (rotations): a request without one is read as `{}`, so it
 * passes the body schema and gets the defaults. Use as the route's `preValidation` hook.
 */
export async function emptyBodyIsObject(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

/** The grace period asked for on rotation: `{ grace_seconds }`; the body itself is optional. */
export const RotateBody = Type.Object(
  {
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        description:
          'How long the old key (or secret) keeps working, in seconds (at most 30 days); 0 ends it now. Default 86400 (24 h).',
      }),
    ),
  },
  { additionalProperties: false, [OPTIONAL_BODY]: true },
);

export const KeySchema = Type.Object(
  {
    id: Type.String({ description: '`key_…`: the id to manage the key by, never the secret' }),
    environment: EnvironmentSchema,
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({ description: '`sk_test_` or `sk_live_`' }),
    last4: Type.String({ description: 'the last four characters of the secret' }),
    status: Type.Union(
      [Type.Literal('active'), Type.Literal('expiring'), Type.Literal('expired'), Type.Literal('revoked')],
      { description: '`expiring`: rotated, still working until `expires_at`' },
    ),
    created_at: IsoTime,
    last_used_at: NullableIsoTime,
    expires_at: NullableIsoTime,
    revoked_at: NullableIsoTime,
    rotated_from: Type.Union([Type.String(), Type.Null()], {
      description: 'the key this one replaced by rotation',
    }),
    created_by: Type.Union([Type.String(), Type.Null()], {
      description:
        'the key that made this one over the API (creating it, or rotating another key into it; through a token, the token’s key): revoking that key revokes this one. Null for keys made with the account, by the operator, or by a key rotating itself (the new key keeps the old one’s creator).',
    }),
  },
  { additionalProperties: false },
);
export type KeyView = Static<typeof KeySchema>;

/** A key with its secret: only in the response that created it. */
export const NewKeySchema = Type.Object(
  {
    ...KeySchema.properties,
    secret: Type.String({ description: '`sk_test_…` / `sk_live_…`, shown only in this response' }),
  },
  { additionalProperties: false },
);

export const KeyListSchema = Type.Object(
  { data: Type.Array(KeySchema, { description: 'every key of the account, newest first' }) },
  { additionalProperties: false },
);

export const CreateKeyBody = Type.Object(
  {
    environment: EnvironmentSchema,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const RotatedKeySchema = Type.Object(
  {
    ...NewKeySchema.properties,
    previous: KeySchema,
  },
  { additionalProperties: false, description: 'the new key (with its secret) and the old one' },
);

/** A revoked key, with the keys made with it that its revoke ended too. */
export const RevokedKeySchema = Type.Object(
  {
    ...KeySchema.properties,
    also_revoked: Type.Array(KeySchema, {
      description:
        'the keys made with this one (`created_by`), and those made with them, revoked with it by this request, oldest first',
    }),
  },
  { additionalProperties: false },
);

export const KeyIdParams = Type.Object({ id: Type.String({ description: '`key_…`' }) });

export const TokenBody = Type.Object(
  {
    ttl_seconds: Type.Optional(
      Type.Integer({
        minimum: MIN_TOKEN_TTL_SECONDS,
        maximum: MAX_TOKEN_TTL_SECONDS,
        description: `Lifetime in seconds, ${MIN_TOKEN_TTL_SECONDS} to ${MAX_TOKEN_TTL_SECONDS} (24 h), never beyond its key's. Default ${DEFAULT_TOKEN_TTL_SECONDS}.`,
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String(), {
        minItems: 1,
        description: `Endpoint ids the token may call (${TOKEN_SCOPES.join(', ')}); default all of these. Key and webhook-secret management (${MANAGEMENT_SCOPES.join(', ')}) only when named here, minted from a live key, with ttl_seconds at most ${MAX_MANAGEMENT_TOKEN_TTL_SECONDS}: for the dashboard, which holds a token and never the key.`,
      }),
    ),
  },
  { additionalProperties: false, [OPTIONAL_BODY]: true },
);

export const TokenSchema = Type.Object(
  {
    id: Type.String(),
    token: Type.String({ description: '`tok_…`, sent in `X-API-Key`; shown only in this response' }),
    environment: EnvironmentSchema,
    key_id: Type.String({ description: 'the key that minted it: revoking that key ends the token' }),
    scopes: Type.Union([Type.Array(Type.String()), Type.Null()]),
    created_at: IsoTime,
    expires_at: IsoTime,
  },
  { additionalProperties: false },
);

const PlanSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    rate_per_second: Type.Number(),
    burst: Type.Integer(),
    monthly_allowance: Type.Union([Type.Integer(), Type.Null()], { description: 'units; null = unlimited' }),
    endpoints: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null = every endpoint' }),
    bill_company_misses: Type.Boolean({
      description:
        'whether a company enrichment that finds nothing (204, or a batch record counted no_match) is billed; contact misses always are',
    }),
  },
  { additionalProperties: false },
);

const WebhookSecretViewSchema = Type.Object(
  {
    id: Type.String(),
    prefix: Type.String({ description: '`whsec_` and the first characters, to recognise it' }),
    created_at: IsoTime,
    expires_at: Type.Union([IsoTime, Type.Null()], {
      description: 'set after a rotation: signs beside the new one until then',
    }),
  },
  { additionalProperties: false },
);

export const AccountSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    created_at: IsoTime,
    environment: EnvironmentSchema,
    plan: PlanSchema,
    usage: Type.Object(
      {
        month: Type.String({ description: 'YYYY-MM (UTC)' }),
        units: Type.Integer(),
        remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'null = unlimited' }),
      },
      { additionalProperties: false },
    ),
    webhook_secrets: Type.Array(WebhookSecretViewSchema, {
      description: 'the secrets that sign now, newest first (two during a rotation grace period)',
    }),
  },
  { additionalProperties: false },
);

export const NewWebhookSecretSchema = Type.Object(
  {
    ...WebhookSecretViewSchema.properties,
    secret: Type.String({ description: '`whsec_…`, shown only in this response' }),
    previous_expires_at: Type.Union([IsoTime, Type.Null()], {
      description: 'when the secrets it replaces stop signing',
    }),
  },
  { additionalProperties: false },
);

export const UsageQuery = Type.Object(
  {
    month: Type.Optional(
      Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM (UTC); default this month' }),
    ),
  },
  { additionalProperties: false },
);

export const UsageSchema = Type.Object(
  {
    month: Type.String(),
    lines: Type.Array(
      Type.Object(
        { endpoint: Type.String(), calls: Type.Integer(), units: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
    total: Type.Object({ calls: Type.Integer(), units: Type.Integer() }, { additionalProperties: false }),
    allowance: Type.Union([Type.Integer(), Type.Null()], {
      description: "the plan's monthly allowance in units; null = unlimited",
    }),
    days: Type.Array(
      Type.Object(
        {
          date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
          calls: Type.Integer(),
          units: Type.Integer(),
          lines: Type.Array(
            Type.Object(
              { endpoint: Type.String(), calls: Type.Integer(), units: Type.Integer() },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'The same usage per UTC day, oldest first, with its lines by endpoint; days without billable calls are left out (and so is usage recorded before the server counted days).',
      },
    ),
  },
  { additionalProperties: false },
);

/** ms since the epoch → ISO 8601, keeping null. */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A key as the API shows it: never its hash, its status decided at `now`. */
export function keyView(key: ApiKey, now: number): KeyView {
  const status =
    key.revoked_at !== null && key.revoked_at <= now
      ? 'revoked'
      : key.expires_at !== null && key.expires_at <= now
        ? 'expired'
        : key.expires_at !== null
          ? 'expiring'
          : 'active';
  return {
    id: key.id,
    environment: key.environment,
    name: key.name,
    prefix: `sk_${key.environment}_`,
    last4: key.last4,
    status,
    created_at: iso(key.created_at),
    last_used_at: iso(key.last_used_at),
    expires_at: iso(key.expires_at),
    revoked_at: iso(key.revoked_at),
    rotated_from: key.rotated_from,
    created_by: key.created_by,
  };
}

/** A token as minted: the secret once, with what it may do and until when. */
export function tokenView(token: Token, secret: string): Static<typeof TokenSchema> {
  return {
    id: token.id,
    token: secret,
    environment: token.environment,
    key_id: token.key_id,
    scopes: token.scopes,
    created_at: iso(token.created_at),
    expires_at: iso(token.expires_at),
  };
}

export function planView(plan: Plan): Static<typeof PlanSchema> {
  return {
    id: plan.id,
    name: plan.name,
    rate_per_second: plan.rate_per_second,
    burst: plan.burst,
    monthly_allowance: plan.monthly_allowance,
    endpoints: plan.endpoints,
    bill_company_misses: plan.bill_company_misses,
  };
}

export function webhookSecretView(secret: WebhookSecret): Static<typeof WebhookSecretViewSchema> {
  return {
    id: secret.id,
    prefix: secret.prefix,
    created_at: iso(secret.created_at),
    expires_at: iso(secret.expires_at),
  };
}
