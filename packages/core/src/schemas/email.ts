import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema } from './common.js';

/** The verification states in a stable order (summaries, CSV columns). */
export const VERIFICATION_STATES = ['deliverable', 'undeliverable', 'risky', 'unknown'] as const;

/** Verification `state` (spec §3): a classification of the result, not a lifecycle. */
export const VerificationStateSchema = Type.Enum([...VERIFICATION_STATES], {
  description: 'A classification of the result, not a lifecycle',
});
export type VerificationState = Static<typeof VerificationStateSchema>;

/** Options inside the body of POST /verify/email (spec §2.2). */
export const VerifyEmailOptionsSchema = Type.Object(
  {
    probe_mailbox: Type.Optional(
      Type.Boolean({ default: false, description: 'Probe the mailbox over SMTP without sending mail' }),
    ),
    check_disposable: Type.Optional(
      Type.Boolean({ default: true, description: 'Treat disposable domains as risky' }),
    ),
    fresh: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Skip the result cache: verify again now (probing again) and replace the cached result. An addition of ours.',
      }),
    ),
  },
  { additionalProperties: false },
);
/** Options inside the body of POST /verify/email (spec §2.2, plus our `fresh`); each defaults as documented. */
export type VerifyEmailOptions = Static<typeof VerifyEmailOptionsSchema>;

/** The body of POST /verify/email (spec §2.2). */
export const VerifyEmailRequestSchema = Type.Object(
  {
    email: Type.String({ description: 'The address to check', examples: ['alice@example.com'] }),
    options: Type.Optional(VerifyEmailOptionsSchema),
  },
  { additionalProperties: false },
);
export type VerifyEmailRequest = Static<typeof VerifyEmailRequestSchema>;

/** The MX part of a verification result. */
export const MxSummarySchema = Type.Object({
  accepts_mail: Type.Boolean(),
  records: Type.Array(Type.String(), { description: 'MX host names in the order they would be tried' }),
  provider: Type.Optional(
    Nullable(
      Type.String({
        description:
          'The mail provider that hosts the mailboxes, recognised by the MX host names (`google`, `microsoft`, `yahoo`, `apple`, `zoho`, `proton`, `fastmail`, `yandex`, `mailru`, `gmx`, `ionos`, `ovh`, `godaddy`, `amazon_ses`, `qq`); null when the hosts are not a known provider, or a gateway hides it. New ids may be added. An addition of ours.',
        examples: ['google'],
      }),
    ),
  ),
  gateway: Type.Optional(
    Nullable(
      Type.String({
        description:
          'The security gateway in front of the mailbox provider, recognised by the most preferred MX host (`proofpoint`, `mimecast`, `barracuda`, `cisco`, `trendmicro`, `sophos`, `broadcom`, `hornetsecurity`); null when none is known. New ids may be added. An addition of ours.',
        examples: ['proofpoint'],
      }),
    ),
  ),
});
export type MxSummary = Static<typeof MxSummarySchema>;

/** The last SMTP exchange about a mailbox (the server's reply to RCPT TO). */
export const SmtpDetailSchema = Type.Object({
  host: Nullable(Type.String({ description: 'The MX host that answered' })),
  code: Nullable(Type.Integer({ description: 'SMTP reply code, e.g. 250 or 550' })),
  enhanced_status: Nullable(Type.String({ description: 'RFC 3463 status, e.g. 5.1.1' })),
  message: Nullable(Type.String()),
  tls: Type.Boolean({ description: 'Whether the session ran over STARTTLS' }),
  proxy: Type.Optional(
    Type.String({
      description:
        'The SOCKS5 proxy that carried the session (its configured label or host:port, never credentials); absent when the verifier connected directly. An addition of ours.',
    }),
  ),
});
export type SmtpDetail = Static<typeof SmtpDetailSchema>;

/** What recorded delivery feedback says about an address (`@svc/feedback`); an addition of ours. */
export const DeliveryHistorySchema = Type.Object(
  {
    events: Type.Integer({ minimum: 0, description: 'Events on record for this address' }),
    last_delivered_at: Nullable(Type.String({ format: 'date-time' })),
    last_hard_bounce: Nullable(
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        provider: Type.String(),
        reason: Nullable(
          Type.String({
            description:
              "The reply reader's reading of the bounce (the probe's reasons: `mailbox_not_found`, `blocked_by_policy`, …); null when the bounce carried no readable reply",
          }),
        ),
        counts_against_address: Type.Boolean({
          description: 'Only mailbox-level bounces (no such mailbox, disabled) count against an address',
        }),
      }),
    ),
    last_complaint_at: Nullable(Type.String({ format: 'date-time' })),
    pattern: Nullable(
      Type.Object(
        {
          pattern: Type.String({
            description: "The local part's shape: first.last, f.last, first.l, word, initial, …",
          }),
          delivered: Type.Integer({
            minimum: 0,
            description: 'Addresses of this shape at the domain last delivered to',
          }),
          bounced: Type.Integer({
            minimum: 0,
            description: 'Addresses of this shape at the domain whose mailbox bounced',
          }),
          delivery_rate_low: Type.Number({ minimum: 0, maximum: 1 }),
          delivery_rate_high: Type.Number({ minimum: 0, maximum: 1 }),
        },
        {
          description: "A catch-all domain's evidence for this address's local-part pattern (95 % interval)",
        },
      ),
    ),
    scope: Type.Enum(['account', 'shared'], {
      description: "Whose events: this account's, or shared by the operator's accounts",
    }),
  },
  { description: "Delivery history from the sender's own sends (POST /v2/feedback/{provider})" },
);
export type DeliveryHistoryField = Static<typeof DeliveryHistorySchema>;

/**
 * The result of POST /verify/email (spec §2.1). The optional fields are additions of ours that
 * `@svc/email-verifier` always fills (and so the server always returns); packages may add fields,
 * never rename these.
 */
export const EmailVerificationResultSchema = Type.Object(
  {
    email: Type.String({ description: 'The address checked, as given' }),
    deliverable: Type.Boolean({ description: 'True when the mailbox is safe to send to' }),
    state: VerificationStateSchema,
    quality_score: Type.Number({ minimum: 0, maximum: 1 }),
    reasons: Type.Array(Type.String(), { description: 'Stable snake_case reasons; empty when none' }),
    is_disposable: Type.Boolean({
      description:
        'The domain is disposable (by the lists or by its MX, see `disposable_match`); false when `check_disposable` is off',
    }),
    is_catch_all: Type.Boolean(),
    mx: MxSummarySchema,
    checked_at: TimestampSchema,
    request_id: Type.String({ pattern: '^req_', description: 'The request that produced this result' }),
    normalized: Type.Optional(
      Nullable(Type.String({ description: '`local@a-label-domain`; null when not an address' })),
    ),
    suggestion: Type.Optional(
      Nullable(Type.String({ description: 'A likely intended domain (gmial.com → gmail.com)' })),
    ),
    disposable_match: Type.Optional(
      Nullable(
        Type.Object(
          {
            source: Type.Enum(['builtin', 'extra', 'deny', 'mx'], {
              description:
                "`builtin`: the shipped disposable list; `extra`: the operator's added list; `deny`: the operator's deny list; `mx`: the domain is on no list but its mail goes to the MX hosts of a listed disposable domain",
            }),
            entry: Type.String({
              description:
                "The list entry that matched (the domain or a parent; for `mx`, the service's domain)",
            }),
            host: Type.Optional(
              Type.String({ description: 'For `mx`: the MX host that belongs to the disposable service' }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    is_role_account: Type.Optional(Type.Boolean()),
    is_free_provider: Type.Optional(Type.Boolean()),
    smtp: Type.Optional(Nullable(SmtpDetailSchema)),
    cached_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Present only on a result served from the result cache: when it was stored (its evidence is as old as `checked_at`)',
      }),
    ),
    history: Type.Optional(
      Type.Union([DeliveryHistorySchema, Type.Null()], {
        description:
          'Present when delivery feedback is on: what your recorded sends say about this address (null: nothing recorded). An addition of ours.',
      }),
    ),
  },
  { description: 'An email verification result (spec §2.1)' },
);
export type EmailVerificationResult = Static<typeof EmailVerificationResultSchema>;

/** The most addresses one POST /verify/email/bulk takes (spec §4). */
export const MAX_BULK_VERIFY_EMAILS = 10_000;

/** The body of POST /verify/email/bulk (the spec leaves it open; DESIGN §8 decides). */
export const BulkVerifyRequestSchema = Type.Object(
  {
    emails: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_BULK_VERIFY_EMAILS }),
    options: Type.Optional(VerifyEmailOptionsSchema),
  },
  { additionalProperties: false },
);
export type BulkVerifyRequest = Static<typeof BulkVerifyRequestSchema>;

/** Counts by state of a bulk verification. */
export const BulkVerifySummarySchema = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  deliverable: Type.Integer({ minimum: 0 }),
  undeliverable: Type.Integer({ minimum: 0 }),
  risky: Type.Integer({ minimum: 0 }),
  unknown: Type.Integer({ minimum: 0 }),
});
export type BulkVerifySummary = Static<typeof BulkVerifySummarySchema>;

/** The result of POST /verify/email/bulk: results in input order plus counts by state. */
export const BulkVerifyResultSchema = Type.Object({
  results: Type.Array(EmailVerificationResultSchema, {
    description: 'One per input address, in input order',
  }),
  summary: BulkVerifySummarySchema,
});
export type BulkVerifyResult = Static<typeof BulkVerifyResultSchema>;
