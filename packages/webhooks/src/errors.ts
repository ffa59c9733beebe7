/** Why a webhook was refused; stable values for receivers to branch on. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'no_secrets'
  | 'invalid_body';

/** A webhook that must not be trusted, with the machine-readable reason. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
