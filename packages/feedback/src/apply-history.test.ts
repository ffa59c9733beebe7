import type { EmailVerificationResult } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { applyHistory } from './apply-history.js';
import { checkFeedbackEvent, type FeedbackKind } from './event.js';
import { type AddressSummary, foldAll, recordedEvent } from './summary.js';

const NOW = new Date('2026-11-27T12:00:00Z');
const NOT_FOUND = 'smtp; 550 5.1.1 user unknown';
const BLOCKED = '554 5.7.1 rejected by policy';

function result(overrides: Partial<EmailVerificationResult> = {}): EmailVerificationResult {
  return {
    email: 'ann.lee@corp.example',
    normalized: 'ann.lee@corp.example',
    deliverable: false,
    state: 'risky',
    quality_score: 0.5,
    reasons: ['catch_all'],
    is_disposable: false,
    is_catch_all: true,
    mx: { accepts_mail: true, records: ['mx.corp.example'] },
    checked_at: NOW.toISOString(),
    request_id: 'req_test',
    ...overrides,
  };
}

function history(...events: [FeedbackKind, string, string?][]): AddressSummary {
  const recorded = events.map(([kind, at, diagnostic], i) =>
    recordedEvent(
      checkFeedbackEvent({
        provider: 'ses',
        eventId: `e${i}`,
        address: 'ann.lee@corp.example',
        kind,
        at,
        diagnostic,
      }),
    ),
  );
  return foldAll(recorded).get('ann.lee@corp.example') as AddressSummary;
}

const apply = (
  r: EmailVerificationResult,
  summary: AddressSummary | null,
  patterns?: { pattern: string; delivered: number; bounced: number }[],
) => applyHistory(r, { summary, ...(patterns && { patterns }), scope: 'account' }, NOW);

describe('applyHistory: the documented table', () => {
  it('a recent delivery makes a catch-all address deliverable, and says why', () => {
    const { result: out, change } = apply(result(), history(['delivered', '2026-11-01T00:00:00Z']));
    expect(out).toMatchObject({
      state: 'deliverable',
      deliverable: true,
      reasons: ['previously_delivered', 'catch_all'],
    });
    expect(out.quality_score).toBeGreaterThanOrEqual(0.9);
    expect(out.history).toMatchObject({
      events: 1,
      last_delivered_at: '2026-11-01T00:00:00.000Z',
      scope: 'account',
    });
    expect(change).toBe('upgraded');
  });

  it('a delivery older than the window changes nothing', () => {
    const { result: out, change } = apply(result(), history(['delivered', '2026-01-01T00:00:00Z']));
    expect(out.state).toBe('risky');
    expect(out.history?.last_delivered_at).toBe('2026-01-01T00:00:00.000Z');
    expect(change).toBeNull();
  });

  it('a mailbox-level hard bounce after the last delivery makes it undeliverable', () => {
    const { result: out, change } = apply(
      result({ state: 'deliverable', deliverable: true, reasons: [], is_catch_all: false, quality_score: 1 }),
      history(['delivered', '2026-09-01T00:00:00Z'], ['hard_bounce', '2026-10-01T00:00:00Z', NOT_FOUND]),
    );
    expect(out).toMatchObject({
      state: 'undeliverable',
      deliverable: false,
      quality_score: 0,
      reasons: ['previously_bounced'],
    });
    expect(out.history?.last_hard_bounce).toMatchObject({
      reason: 'mailbox_not_found',
      counts_against_address: true,
    });
    expect(change).toBe('downgraded');
  });

  it('a policy bounce is shown but does not count against the address', () => {
    const { result: out } = apply(result(), history(['hard_bounce', '2026-10-01T00:00:00Z', BLOCKED]));
    expect(out.state).toBe('risky');
    expect(out.history?.last_hard_bounce).toMatchObject({
      reason: 'blocked_by_policy',
      counts_against_address: false,
    });
  });

  it('a delivery after a bounce wins (the mailbox exists again)', () => {
    const { result: out } = apply(
      result(),
      history(['hard_bounce', '2026-09-01T00:00:00Z', NOT_FOUND], ['delivered', '2026-10-01T00:00:00Z']),
    );
    expect(out.state).toBe('deliverable');
  });

  it('a complaint makes it risky even after deliveries', () => {
    const { result: out } = apply(
      result({ state: 'deliverable', deliverable: true, reasons: [], is_catch_all: false, quality_score: 1 }),
      history(['delivered', '2026-11-01T00:00:00Z'], ['complaint', '2026-11-02T00:00:00Z']),
    );
    expect(out).toMatchObject({ state: 'risky', reasons: ['complained'], quality_score: 0.3 });
  });

  it('a probe that saw the mailbox refused after the delivery keeps its verdict, with the delivery as information', () => {
    const { result: out } = apply(
      result({
        state: 'undeliverable',
        reasons: ['mailbox_not_found'],
        is_catch_all: false,
        quality_score: 0,
      }),
      history(['delivered', '2026-11-01T00:00:00Z']),
    );
    expect(out).toMatchObject({
      state: 'undeliverable',
      reasons: ['previously_delivered', 'mailbox_not_found'],
    });
  });

  it('syntax and domain failures are never revived by history', () => {
    const { result: out } = apply(
      result({
        state: 'undeliverable',
        reasons: ['domain_not_found'],
        is_catch_all: false,
        quality_score: 0,
      }),
      history(['delivered', '2026-11-01T00:00:00Z']),
    );
    expect(out.state).toBe('undeliverable');
    expect(out.reasons).toEqual(['domain_not_found']);
  });

  it('soft bounces and unsubscribes change nothing', () => {
    const { result: out, change } = apply(
      result(),
      history(['soft_bounce', '2026-11-01T00:00:00Z'], ['unsubscribe', '2026-11-02T00:00:00Z']),
    );
    expect(out.state).toBe('risky');
    expect(change).toBeNull();
  });
});

describe('applyHistory: catch-all patterns', () => {
  it('many delivered addresses of the same pattern raise the score of an unseen one, which stays risky', () => {
    const before = result({ quality_score: 0.5 });
    const { result: out, change } = apply(before, null, [
      { pattern: 'first.last', delivered: 40, bounced: 1 },
    ]);
    expect(out).toMatchObject({
      state: 'risky',
      deliverable: false,
      quality_score: 0.6,
      reasons: ['catch_all_pattern_match', 'catch_all'],
    });
    expect(change).toBeNull();
    expect(out.history?.pattern).toMatchObject({ pattern: 'first.last', delivered: 40, bounced: 1 });
    expect(out.history?.pattern?.delivery_rate_low).toBeGreaterThan(0.8);
  });

  it('three of three is not enough evidence: the verdict stays, the counts are shown', () => {
    const { result: out } = apply(result(), null, [{ pattern: 'first.last', delivered: 3, bounced: 0 }]);
    expect(out.state).toBe('risky');
    expect(out.reasons).toEqual(['catch_all']);
    expect(out.history?.pattern).toMatchObject({ delivered: 3, bounced: 0 });
  });

  it('a pattern that bounces, or one never seen where another clearly delivers, is a mismatch (still risky)', () => {
    const bounces = apply(result({ email: 'annlee@corp.example', normalized: 'annlee@corp.example' }), null, [
      { pattern: 'word', delivered: 1, bounced: 20 },
    ]);
    expect(bounces.result).toMatchObject({
      state: 'risky',
      reasons: ['catch_all_pattern_mismatch', 'catch_all'],
    });
    const unseen = apply(result({ email: 'a.lee@corp.example', normalized: 'a.lee@corp.example' }), null, [
      { pattern: 'first.last', delivered: 50, bounced: 0 },
    ]);
    expect(unseen.result.reasons[0]).toBe('catch_all_pattern_mismatch');
    expect(unseen.result.history?.pattern).toMatchObject({ pattern: 'f.last', delivered: 0, bounced: 0 });
  });

  it('patterns are not read at a domain that is not catch-all', () => {
    const { result: out } = apply(result({ is_catch_all: false, reasons: [] }), null, [
      { pattern: 'first.last', delivered: 40, bounced: 0 },
    ]);
    expect(out.history).toBeNull();
  });
});
