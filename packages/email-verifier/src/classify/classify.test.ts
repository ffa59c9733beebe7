import { readFileSync } from 'node:fs';
import type { VerificationState } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { SESSION_REFUSALS } from '../smtp/classify-reply.js';
import type { ProbeOutcome } from '../smtp/probe.js';
import { classify } from './classify.js';
import { PROBE_VERDICTS, type ProbeVerdict, type VerificationFacts } from './facts.js';
import { VERIFICATION_REASONS } from './reasons.js';
import { MODIFIER_TABLE, VERDICT_TABLE } from './table.js';

// Every outcome the SMTP stage can report must be one classify understands.
const _probeOutcomesAreVerdicts: ProbeVerdict = '' as ProbeOutcome;

const accepts: VerificationFacts = { syntaxValid: true, domainStatus: 'accepts_mail' };
const probed = (probeOutcome: ProbeVerdict, catchAll: boolean | null = false): VerificationFacts => ({
  ...accepts,
  probeRequested: true,
  probeOutcome,
  catchAll,
});

type Row = [string, VerificationFacts, VerificationState, number, string[]];

describe('classify: verdict rows', () => {
  const rows: Row[] = [
    ['invalid syntax', { syntaxValid: false }, 'undeliverable', 0, ['invalid_syntax']],
    [
      'invalid syntax ignores every other fact',
      {
        syntaxValid: false,
        domainStatus: 'accepts_mail',
        disposable: true,
        role: true,
        typoSuggestion: 'gmail.com',
      },
      'undeliverable',
      0,
      ['invalid_syntax'],
    ],
    ['address literal', { syntaxValid: true, addressLiteral: true }, 'unknown', 0.3, ['address_literal']],
    [
      'resolver not trusted (its canaries failed)',
      {
        syntaxValid: true,
        domainStatus: 'dns_unavailable',
        probeRequested: true,
        probeOutcome: 'mailbox_not_found',
      },
      'unknown',
      0.3,
      ['dns_unavailable'],
    ],
    [
      'domain not found',
      { syntaxValid: true, domainStatus: 'not_found' },
      'undeliverable',
      0,
      ['domain_not_found'],
    ],
    ['null MX', { syntaxValid: true, domainStatus: 'null_mx' }, 'undeliverable', 0, ['null_mx']],
    [
      'no MX records',
      { syntaxValid: true, domainStatus: 'no_mx_records' },
      'undeliverable',
      0,
      ['no_mx_records'],
    ],
    ['DNS error', { syntaxValid: true, domainStatus: 'dns_error' }, 'unknown', 0.3, ['dns_error']],
    ['DNS not checked', { syntaxValid: true }, 'unknown', 0.5, ['domain_not_checked']],
    ['accepts mail, no probe', accepts, 'deliverable', 0.8, ['mailbox_not_probed']],
    [
      'probe requested but not run',
      { ...accepts, probeRequested: true, probeOutcome: 'not_probed' },
      'deliverable',
      0.8,
      ['mailbox_not_probed'],
    ],
    ['accepted, not catch-all', probed('accepted', false), 'deliverable', 1, []],
    ['accepted, catch-all unknown', probed('accepted', null), 'deliverable', 0.95, []],
    ['mailbox not found', probed('mailbox_not_found'), 'undeliverable', 0, ['mailbox_not_found']],
    ['mailbox disabled', probed('mailbox_disabled'), 'undeliverable', 0, ['mailbox_disabled']],
    ['mailbox full', probed('mailbox_full'), 'risky', 0.3, ['mailbox_full']],
    ['greylisted', probed('greylisted'), 'unknown', 0.5, ['greylisted']],
    ['temporary failure', probed('temporary_failure'), 'unknown', 0.5, ['smtp_temporary_failure']],
    ['blocked by policy', probed('blocked_by_policy'), 'unknown', 0.4, ['blocked_by_policy']],
    ['timeout', probed('timeout'), 'unknown', 0.4, ['smtp_timeout']],
    ['unreachable', probed('unreachable'), 'unknown', 0.3, ['smtp_unreachable']],
    ['unclear 5xx', probed('rejected_unclear'), 'unknown', 0.3, ['smtp_rejected']],
    ['every proxy out', probed('proxy_unavailable'), 'unknown', 0.3, ['proxy_unavailable']],
    ['sender refused', probed('sender_rejected'), 'unknown', 0.4, ['sender_rejected']],
    [
      'SPF/DKIM/DMARC failed',
      probed('sender_authentication_failed'),
      'unknown',
      0.4,
      ['sender_authentication_failed'],
    ],
    ['no reverse DNS', probed('reverse_dns_failed'), 'unknown', 0.4, ['reverse_dns_failed']],
    ['HELO refused', probed('helo_rejected'), 'unknown', 0.4, ['helo_rejected']],
    ['on a DNSBL', probed('dnsbl_listed'), 'unknown', 0.4, ['dnsbl_listed']],
    ['bad reputation', probed('sender_reputation'), 'unknown', 0.4, ['sender_reputation']],
    ['rate limited', probed('rate_limited'), 'unknown', 0.5, ['rate_limited']],
    [
      'authentication required',
      probed('authentication_required'),
      'unknown',
      0.4,
      ['authentication_required'],
    ],
    ['TLS required', probed('tls_required'), 'unknown', 0.4, ['tls_required']],
    ['relay denied', probed('relay_denied'), 'unknown', 0.4, ['relay_denied']],
  ];

  it.each(rows)('%s', (_name, facts, state, score, reasons) => {
    expect(classify(facts)).toEqual({
      state,
      deliverable: state === 'deliverable',
      quality_score: score,
      reasons,
      is_disposable: false,
      is_catch_all: false,
    });
  });

  it('covers every verdict row of the table', () => {
    const reasons = new Set(rows.flatMap(([, , , , r]) => r));
    for (const row of VERDICT_TABLE)
      if (row.reason !== null) expect(reasons.has(row.reason), row.reason).toBe(true);
  });

  it('never calls a temporary, policy or session outcome undeliverable', () => {
    for (const outcome of [
      'greylisted',
      'blocked_by_policy',
      'timeout',
      'unreachable',
      'proxy_unavailable',
      'temporary_failure',
      'rejected_unclear',
      ...SESSION_REFUSALS,
    ] as const) {
      for (const catchAll of [true, false, null]) {
        for (const disposable of [true, false]) {
          expect(classify({ ...probed(outcome, catchAll), disposable }).state).not.toBe('undeliverable');
        }
      }
    }
  });
});

describe('classify: modifier rows', () => {
  const rows: Row[] = [
    ['catch-all on an accepted mailbox', probed('accepted', true), 'risky', 0.6, ['catch_all']],
    [
      'disposable, not probed',
      { ...accepts, disposable: true },
      'risky',
      0.4,
      ['mailbox_not_probed', 'disposable'],
    ],
    ['disposable, accepted', { ...probed('accepted'), disposable: true }, 'risky', 0.5, ['disposable']],
    [
      'disposable with check_disposable off',
      { ...accepts, disposable: true, checkDisposable: false },
      'deliverable',
      0.8,
      ['mailbox_not_probed'],
    ],
    [
      'disposable over a DNS error',
      { syntaxValid: true, domainStatus: 'dns_error', disposable: true },
      'risky',
      0.15,
      ['dns_error', 'disposable'],
    ],
    [
      'disposable domain that does not exist',
      { syntaxValid: true, domainStatus: 'not_found', disposable: true },
      'undeliverable',
      0,
      ['domain_not_found', 'disposable'],
    ],
    [
      'typo suggestion, not probed',
      { ...accepts, typoSuggestion: 'gmail.com' },
      'risky',
      0.4,
      ['mailbox_not_probed', 'typo_suggestion'],
    ],
    [
      'typo suggestion on a missing domain',
      { syntaxValid: true, domainStatus: 'not_found', typoSuggestion: 'gmail.com' },
      'undeliverable',
      0,
      ['domain_not_found', 'typo_suggestion'],
    ],
    [
      'role account, not probed',
      { ...accepts, role: true },
      'deliverable',
      0.68,
      ['mailbox_not_probed', 'role_account'],
    ],
    ['role account, accepted', { ...probed('accepted'), role: true }, 'deliverable', 0.85, ['role_account']],
    [
      'free provider, accepted',
      { ...probed('accepted'), free: true },
      'deliverable',
      0.95,
      ['free_provider'],
    ],
    [
      'role at a free provider, not probed',
      { ...accepts, role: true, free: true },
      'deliverable',
      0.65,
      ['mailbox_not_probed', 'role_account', 'free_provider'],
    ],
    [
      'role never rescues a dead mailbox',
      { ...probed('mailbox_not_found'), role: true },
      'undeliverable',
      0,
      ['mailbox_not_found', 'role_account'],
    ],
    [
      'role on an unknown',
      { ...probed('greylisted'), role: true },
      'unknown',
      0.43,
      ['greylisted', 'role_account'],
    ],
    [
      'everything at once',
      { ...probed('accepted', true), disposable: true, typoSuggestion: 'gmail.com', role: true, free: true },
      'risky',
      0.12,
      ['catch_all', 'disposable', 'typo_suggestion', 'role_account', 'free_provider'],
    ],
  ];

  it.each(rows)('%s', (_name, facts, state, score, reasons) => {
    const result = classify(facts);
    expect(result).toMatchObject({
      state,
      deliverable: state === 'deliverable',
      quality_score: score,
      reasons,
    });
  });

  it('sets is_disposable only when the check is on, and is_catch_all only when known true', () => {
    expect(classify({ ...accepts, disposable: true })).toMatchObject({
      is_disposable: true,
      is_catch_all: false,
    });
    expect(classify({ ...accepts, disposable: true, checkDisposable: false }).is_disposable).toBe(false);
    expect(classify(probed('accepted', true)).is_catch_all).toBe(true);
    expect(classify(probed('accepted', null)).is_catch_all).toBe(false);
  });

  it('covers every modifier row of the table', () => {
    const reasons = new Set(rows.flatMap(([, , , , r]) => r));
    for (const row of MODIFIER_TABLE) expect(reasons.has(row.reason), row.reason).toBe(true);
  });
});

describe('classify: invariants', () => {
  it('keeps scores in [0, 1], deliverable true only for the deliverable state, and reasons from the list', () => {
    const known = new Set<string>(VERIFICATION_REASONS);
    for (const probeOutcome of PROBE_VERDICTS) {
      for (const flags of [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 31]) {
        const facts: VerificationFacts = {
          ...accepts,
          probeRequested: probeOutcome !== 'not_probed',
          probeOutcome,
          catchAll: flags & 1 ? true : flags & 16 ? null : false,
          disposable: (flags & 2) !== 0,
          role: (flags & 4) !== 0,
          free: (flags & 8) !== 0,
        };
        const result = classify(facts);
        expect(result.quality_score).toBeGreaterThanOrEqual(0);
        expect(result.quality_score).toBeLessThanOrEqual(1);
        expect(result.deliverable).toBe(result.state === 'deliverable');
        for (const reason of result.reasons) expect(known.has(reason), reason).toBe(true);
      }
    }
  });
});

describe('classify: bad facts', () => {
  it.each([
    [null, /needs a facts object/],
    [{}, /syntaxValid must be a boolean/],
    [{ syntaxValid: true, domainStatus: 'nxdomain' }, /domainStatus must be one of .*got "nxdomain"/],
    [{ syntaxValid: true, probeRequested: true, probeOutcome: 'maybe' }, /probeOutcome must be one of/],
    [
      { syntaxValid: true, probeOutcome: 'accepted' },
      /probeOutcome is "accepted" but probeRequested is false/,
    ],
    [{ syntaxValid: true, catchAll: 'yes' }, /catchAll must be true, false or null/],
    [{ syntaxValid: true, typoSuggestion: '' }, /typoSuggestion must be a domain or null/],
    [{ syntaxValid: true, role: 'true' }, /role must be a boolean/],
    [{ syntaxValid: true, checkDisposable: 1 }, /checkDisposable must be a boolean/],
  ])('%j', (facts, message) => {
    expect(() => classify(facts as unknown as VerificationFacts)).toThrow(TypeError);
    expect(() => classify(facts as unknown as VerificationFacts)).toThrow(message);
  });
});

describe('README', () => {
  it('documents every reason', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const reason of VERIFICATION_REASONS) expect(readme.includes(`\`${reason}\``), reason).toBe(true);
  });
});
