import { ServiceError } from '@svc/core';
import type { FeedbackEvent } from '../event.js';

/** A webhook request as the server received it: the raw body bytes matter for signatures. */
export interface FeedbackRequest {
  /** Header names lower-cased. */
  headers: Readonly<Record<string, string | undefined>>;
  rawBody: Buffer;
}

/**
 * What an account configured for one provider: the secret or key the provider signs with. Each
 * provider reads the fields it documents (`FeedbackProvider.credentials`).
 */
export interface ProviderCredentials {
  /** HMAC signing key (Mailgun), `whsec_…` secret (Resend/Svix), shared token (Brevo, generic). */
  secret?: string;
  /** SendGrid's verification key: base64 DER (SPKI) of its ECDSA P-256 public key, or PEM. */
  publicKey?: string;
  /** Basic-auth user and password put in the webhook URL (Postmark, Brevo). */
  basicAuth?: { user: string; password: string };
  /** SES: the SNS topic ARNs whose messages this account accepts. */
  topicArns?: readonly string[];
}

/** What verification needs besides the request: the clock and, for SNS, the signing certificate. */
export interface VerifyContext {
  now: Date;
  /** Fetches an SNS signing certificate (PEM) from its URL, already checked to be Amazon's. */
  fetchCertificate?: (url: string) => Promise<string>;
}

/** One email provider's webhook: how it proves itself and how its events read. */
export interface FeedbackProvider {
  id: string;
  label: string;
  /**
   * The largest body this provider sends (one event per request is small; batches are not):
   * anything larger is refused before it is parsed or verified.
   */
  maxBodyBytes: number;
  /** What the account must configure, in words (shown in errors and docs). */
  credentials: string;
  /** What is missing or wrong in credentials an account wants to configure; null when they will do. */
  checkCredentials(credentials: ProviderCredentials): string | null;
  /** Throws `invalid_api_key` (401) when the request does not prove it comes from the provider. */
  verify(request: FeedbackRequest, credentials: ProviderCredentials, context: VerifyContext): Promise<void>;
  /**
   * The provider-neutral events of a verified body. Events that say nothing about a mailbox (opens,
   * clicks, "processed") are skipped. Throws `invalid_request` on a body of the wrong shape.
   */
  parse(body: unknown, request: FeedbackRequest): FeedbackEvent[];
}

/** The error of a request that does not prove where it comes from. */
export function unverified(provider: string, why: string): ServiceError {
  return new ServiceError('invalid_api_key', `${provider} feedback: ${why}`);
}

/** The error of a body that is not the provider's documented shape. */
export function malformed(provider: string, why: string): ServiceError {
  return new ServiceError('invalid_request', `${provider} feedback: ${why}`);
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

const KIB = 1024;
/** Body limits: SNS messages are at most 256 KiB; SendGrid batches events; Postmark may include a bounce dump. */
export const BODY_LIMITS = { single: 256 * KIB, dump: 1024 * KIB, batch: 4096 * KIB } as const;

/** Most events one webhook body may carry (providers batch up to 1,000 or so). */
export const MAX_EVENTS_PER_BODY = 5_000;

/** How far a signed timestamp may be from our clock (replays older than this are refused). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function checkFresh(provider: string, timestampSeconds: number, now: Date): void {
  if (!Number.isFinite(timestampSeconds))
    throw unverified(provider, 'the signed timestamp is missing or not a number');
  if (Math.abs(now.getTime() / 1000 - timestampSeconds) > SIGNATURE_TOLERANCE_SECONDS) {
    throw unverified(
      provider,
      `the signed timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s from now (a replay?)`,
    );
  }
}
