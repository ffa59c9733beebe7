import { createId, ServiceError, type VerifyEmailOptions } from '@svc/core';
import {
  checkBulkAddresses,
  classify,
  createLists,
  type DomainStatus,
  type EmailLists,
  type ListsOptions,
  type ParsedAddress,
  type ProbeVerdict,
  parseAddress,
  type SmtpDetail,
  suggestDomain,
  UnprocessableAddressError,
  type VerificationResult,
  type Verifier,
} from '@svc/email-verifier';

/**
 * What a magic local part stands for: the DNS and SMTP facts a real verification would have
 * found. The answers go through the verifier's own classification, so a sandbox result reads
 * exactly like a live one with the same facts.
 */
interface MagicFacts {
  domainStatus: DomainStatus;
  probeOutcome: ProbeVerdict;
  catchAll: boolean | null;
  smtp: SmtpDetail | null;
}

/** MX host name of every magic answer: `.invalid` (RFC 2606) so it can never be mistaken for a real one. */
export const SANDBOX_MX_HOST = 'mx.sandbox.invalid';

const reply = (code: number, enhanced: string, message: string): SmtpDetail => ({
  host: SANDBOX_MX_HOST,
  code,
  enhanced_status: enhanced,
  message,
  tls: true,
});

/**
 * The magic local parts of test keys (case-insensitive, a `+tag` ignored, at any domain) and
 * what each answers; docs/api.md ("Sandbox") documents the resulting states and reasons.
 */
export const SANDBOX_MAGIC: Readonly<Record<string, MagicFacts>> = {
  deliverable: {
    domainStatus: 'accepts_mail',
    probeOutcome: 'accepted',
    catchAll: false,
    smtp: reply(250, '2.1.5', 'sandbox: recipient ok'),
  },
  undeliverable: {
    domainStatus: 'accepts_mail',
    probeOutcome: 'mailbox_not_found',
    catchAll: false,
    smtp: reply(550, '5.1.1', 'sandbox: no such user'),
  },
  risky: {
    domainStatus: 'accepts_mail',
    probeOutcome: 'mailbox_full',
    catchAll: false,
    smtp: reply(552, '5.2.2', 'sandbox: mailbox full'),
  },
  catch_all: {
    domainStatus: 'accepts_mail',
    probeOutcome: 'accepted',
    catchAll: true,
    smtp: reply(250, '2.1.5', 'sandbox: recipient ok (any recipient is)'),
  },
  greylisted: {
    domainStatus: 'accepts_mail',
    probeOutcome: 'greylisted',
    catchAll: null,
    smtp: reply(451, '4.7.1', 'sandbox: greylisted, try again later'),
  },
  unknown: { domainStatus: 'accepts_mail', probeOutcome: 'timeout', catchAll: null, smtp: null },
  /** `POST /verify/email` answers 422 `unprocessable`; in bulk, an undeliverable result. */
  no_mx: { domainStatus: 'no_mx_records', probeOutcome: 'not_probed', catchAll: null, smtp: null },
  /** `POST /verify/email` answers 503 `upstream_timeout`; in bulk, an unknown result. */
  dns_timeout: { domainStatus: 'dns_error', probeOutcome: 'not_probed', catchAll: null, smtp: null },
};

/** The magic name of an address's local part (`Deliverable+42` → `deliverable`), or null. */
export function sandboxMagicOf(local: string): string | null {
  const name = local.toLowerCase().split('+', 1)[0] ?? '';
  return Object.hasOwn(SANDBOX_MAGIC, name) ? name : null;
}

/** Options of createSandboxVerifier. */
export interface SandboxVerifierOptions {
  /** Clock for `checked_at`. @default () => new Date() */
  clock?: () => Date;
  /** Allow/deny and extra list entries for the offline stages. @default {} */
  lists?: ListsOptions;
}

/**
 * The verifier test keys get: it opens no socket (no DNS, no SMTP). Addresses whose local part is
 * magic (SANDBOX_MAGIC) get fixed answers whatever the domain and the options; every other
 * address goes through the real offline stages (syntax, disposable/free/role lists, typo
 * suggestion) and is classified with its domain not checked (`unknown`, `domain_not_checked`).
 */
export function createSandboxVerifier(options: SandboxVerifierOptions = {}): Verifier {
  const clock = options.clock ?? (() => new Date());
  const lists: EmailLists = createLists(options.lists ?? {});

  function result(
    input: string,
    checks: Required<VerifyEmailOptions>,
    requestId: string | undefined,
  ): VerificationResult {
    const parsed = parseAddress(input);
    const address: ParsedAddress | null = parsed.ok ? parsed.address : null;
    const magic = address && !address.isAddressLiteral ? sandboxMagicOf(address.local) : null;
    const facts = magic === null ? null : (SANDBOX_MAGIC[magic] as MagicFacts);
    const literal = address?.isAddressLiteral ?? false;
    // Magic answers depend on the local part only: the domain's list memberships stay out.
    const disposableMatch =
      facts === null && address !== null && !literal ? lists.disposableMatch(address.asciiDomain) : null;
    const disposable = disposableMatch !== null;
    const free = facts === null && address !== null && !literal && lists.isFree(address.asciiDomain);
    const role = facts === null && address !== null && lists.isRole(address.local);
    const suggestion =
      facts === null && address !== null && !literal ? suggestDomain(address.asciiDomain) : null;
    const verdict = classify({
      syntaxValid: address !== null,
      addressLiteral: literal,
      domainStatus: facts?.domainStatus ?? 'not_checked',
      disposable,
      role,
      free,
      typoSuggestion: suggestion,
      // Magic answers are those of a probe, asked for or not, so each state can be tried.
      probeRequested: facts !== null || checks.probe_mailbox,
      probeOutcome: facts?.probeOutcome ?? 'not_probed',
      catchAll: facts?.catchAll ?? null,
      checkDisposable: checks.check_disposable,
    });
    const acceptsMail = facts?.domainStatus === 'accepts_mail';
    return {
      email: input,
      deliverable: verdict.deliverable,
      state: verdict.state,
      quality_score: verdict.quality_score,
      reasons: [...verdict.reasons],
      is_disposable: verdict.is_disposable,
      is_catch_all: verdict.is_catch_all,
      mx: {
        accepts_mail: acceptsMail,
        records: acceptsMail ? [SANDBOX_MX_HOST] : [],
        provider: null,
        gateway: null,
      },
      checked_at: clock().toISOString(),
      request_id: requestId ?? createId('req'),
      normalized: address?.normalized ?? null,
      suggestion,
      disposable_match: verdict.is_disposable ? disposableMatch : null,
      is_role_account: role,
      is_free_provider: free,
      smtp: facts?.smtp ?? null,
    };
  }

  return {
    // The sandbox asks no resolver.
    resolverHealth: () => null,
    async verify(email, verifyOptions, call) {
      const checks = checkOptions(verifyOptions);
      if (typeof email !== 'string') throw new ServiceError('invalid_request', '"email" must be a string');
      const answer = result(email, checks, call?.requestId);
      const parsed = parseAddress(email);
      if (!parsed.ok) throw new UnprocessableAddressError(parsed.detail, answer);
      if (answer.reasons.includes('no_mx_records')) {
        throw new UnprocessableAddressError(
          `${parsed.address.asciiDomain} has no MX hints (sandbox: the no_mx@ test address)`,
          answer,
        );
      }
      if (answer.reasons.includes('dns_error')) {
        throw new ServiceError(
          'upstream_timeout',
          `DNS lookup for ${parsed.address.asciiDomain} timed out (sandbox: the dns_timeout@ test address)`,
        );
      }
      return answer;
    },
    // No cache: every sandbox answer is computed, offline, on each call.
    async invalidateCached(email) {
      if (!parseAddress(String(email)).ok) throw new ServiceError('unprocessable', 'not an email address');
      return 0;
    },
    async verifyMany(emails, verifyOptions, events = {}) {
      const checks = checkOptions(verifyOptions);
      checkBulkAddresses(emails);
      events.signal?.throwIfAborted();
      const results = emails.map((email) => result(String(email), checks, events.requestId));
      events.onProgress?.(results.length, results.length);
      return results;
    },
  };
}

/** The options with their defaults (the schema has already refused unknown or mistyped ones). */
function checkOptions(options: VerifyEmailOptions | undefined): Required<VerifyEmailOptions> {
  return {
    probe_mailbox: options?.probe_mailbox ?? false,
    check_disposable: options?.check_disposable ?? true,
    fresh: options?.fresh ?? false,
  };
}
