import { Type } from 'typebox';

/** The provider ids of `POST /v2/feedback/{provider}` (FEEDBACK_PROVIDERS of @svc/feedback). */
export const ProviderParams = (ids: readonly string[]) =>
  Type.Object(
    { provider: Type.Enum([...ids], { description: 'The email provider whose webhook this is' }) },
    { additionalProperties: false },
  );

export const ReceiveQuery = Type.Object(
  {
    account: Type.String({
      pattern: '^acct_[a-z0-9]{1,64}$',
      description: 'The account the events belong to (its id, as in GET /v2/account)',
    }),
  },
  { additionalProperties: false },
);

export const ReceiptSchema = Type.Object(
  {
    object: Type.Literal('feedback_receipt'),
    received: Type.Integer({
      minimum: 0,
      description: 'Events in the body that say something about a mailbox',
    }),
    stored: Type.Integer({ minimum: 0, description: 'Events recorded now' }),
    duplicates: Type.Integer({
      minimum: 0,
      description: 'Events already recorded (a retry or replay): skipped',
    }),
    subscription_confirmed: Type.Optional(
      Type.Boolean({ description: 'SES/SNS: the subscription confirmation was verified and confirmed' }),
    ),
  },
  { description: 'What a provider webhook delivered' },
);

export const CredentialsBody = Type.Object(
  {
    secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Mailgun signing key, Resend `whsec_…` secret, Brevo or generic bearer token',
      }),
    ),
    public_key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'SendGrid Event Webhook verification key' }),
    ),
    basic_auth: Type.Optional(
      Type.Object(
        {
          user: Type.String({ minLength: 1, maxLength: 256 }),
          password: Type.String({ minLength: 1, maxLength: 256 }),
        },
        { additionalProperties: false, description: 'Postmark or Brevo: the credentials in the webhook URL' },
      ),
    ),
    topic_arns: Type.Optional(
      Type.Array(Type.String({ maxLength: 512 }), {
        minItems: 1,
        maxItems: 20,
        description: 'SES: the SNS topics whose messages this account accepts',
      }),
    ),
  },
  { additionalProperties: false, description: "What the provider's webhook proves itself with" },
);

export const ProviderSchema = Type.Object(
  {
    object: Type.Literal('feedback_provider'),
    provider: Type.String(),
    configured_at: Type.String({ format: 'date-time' }),
    webhook_path: Type.String({
      description: "Where to point the provider's webhook (prefix it with this server's public address)",
    }),
  },
  { description: 'A provider configured for delivery feedback (its credentials are never shown again)' },
);

export const ProviderListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ProviderSchema),
});

export const StatsQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Count events from this time on; default 30 days ago',
      }),
    ),
  },
  { additionalProperties: false },
);

const Kinds = Type.Object({
  delivered: Type.Integer({ minimum: 0 }),
  hard_bounce: Type.Integer({ minimum: 0 }),
  soft_bounce: Type.Integer({ minimum: 0 }),
  complaint: Type.Integer({ minimum: 0 }),
  unsubscribe: Type.Integer({ minimum: 0 }),
});

export const StatsSchema = Type.Object(
  {
    object: Type.Literal('feedback_stats'),
    since: Type.String({ format: 'date-time' }),
    events: Type.Integer({ minimum: 0 }),
    providers: Type.Array(Type.Object({ provider: Type.String(), counts: Kinds })),
    domains: Type.Array(
      Type.Object({
        domain: Type.String(),
        delivered: Type.Integer({ minimum: 0, description: 'Addresses last delivered to' }),
        bounced: Type.Integer({ minimum: 0, description: 'Addresses whose mailbox last bounced' }),
        bounce_rate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
      }),
      { description: 'The 20 domains with the most decided addresses' },
    ),
    verdicts: Type.Object(
      {
        upgraded: Type.Integer({ minimum: 0 }),
        downgraded: Type.Integer({ minimum: 0 }),
      },
      { description: 'Verifications whose state the feedback changed' },
    ),
  },
  { description: "The account's delivery feedback since a time" },
);
