/** Verification `state` (spec §3): a classification of the result, not a lifecycle. */
export type VerificationState = 'deliverable' | 'undeliverable' | 'risky' | 'unknown';

/** The verification states in a stable order (summaries, CSV columns). */
export const VERIFICATION_STATES: readonly VerificationState[] = [
  'deliverable',
  'undeliverable',
  'risky',
  'unknown',
];

/** Options inside the body of POST /verify/email (spec §2.2). */
export interface VerifyEmailOptions {
  /** Probe the mailbox over SMTP without sending mail. @default false */
  probe_mailbox?: boolean;
  /** Treat disposable domains as risky. @default true */
  check_disposable?: boolean;
}

/** The body of POST /verify/email (spec §2.2). */
export interface VerifyEmailRequest {
  email: string;
  options?: VerifyEmailOptions;
}

/** The MX part of a verification result. */
export interface MxSummary {
  accepts_mail: boolean;
  /** MX host names in the order they would be tried. */
  records: string[];
}

/** The result of POST /verify/email (spec §2.1); packages may add fields, never rename these. */
export interface EmailVerificationResult {
  email: string;
  deliverable: boolean;
  state: VerificationState;
  /** 0..1 */
  quality_score: number;
  reasons: string[];
  is_disposable: boolean;
  is_catch_all: boolean;
  mx: MxSummary;
  /** ISO 8601 UTC */
  checked_at: string;
  /** `req_…` */
  request_id: string;
}

/** The body of POST /verify/email/bulk (spec leaves it open; DESIGN §8 decides). */
export interface BulkVerifyRequest {
  emails: string[];
  options?: VerifyEmailOptions;
}

/** The result of POST /verify/email/bulk: results in input order plus counts by state. */
export interface BulkVerifyResult {
  results: EmailVerificationResult[];
  summary: { total: number } & Record<VerificationState, number>;
}
