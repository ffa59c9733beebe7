import { afterEach, describe, expect, it } from 'vitest';
import { checkFeedbackEvent, type FeedbackKind } from '../event.js';
import type { FeedbackStore } from '../stores/store.js';
import { recordedEvent } from '../summary.js';

/** Builds the store under test (a new, empty one each time). */
export type FeedbackStoreFactory = () => FeedbackStore | Promise<FeedbackStore>;

let counter = 0;

/** One recorded event, as a webhook would give it. */
export function sampleEvent(
  address: string,
  kind: FeedbackKind,
  at: string,
  extra: { provider?: string; eventId?: string; diagnostic?: string | null; bounceType?: string | null } = {},
) {
  counter += 1;
  return recordedEvent(
    checkFeedbackEvent({
      provider: extra.provider ?? 'ses',
      eventId: extra.eventId ?? `evt-${counter}`,
      address,
      kind,
      at,
      bounceType: extra.bounceType ?? null,
      diagnostic: extra.diagnostic ?? null,
    }),
  );
}

const NOT_FOUND = 'smtp; 550 5.1.1 <x@y>: Recipient address rejected: User unknown in virtual mailbox table';
const BLOCKED = 'smtp; 554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org';

/**
 * The shared conformance suite of FeedbackStore backends: every backend records idempotently,
 * folds an address's history alike, separates accounts (and shares them only when asked), counts
 * patterns, erases, prunes and reports the same statistics.
 */
export function describeFeedbackStore(name: string, create: FeedbackStoreFactory): void {
  describe(`feedback store conformance: ${name}`, () => {
    const open: FeedbackStore[] = [];
    const store = async () => {
      const made = await create();
      open.push(made);
      return made;
    };
    afterEach(async () => {
      for (const made of open.splice(0)) await made.close();
    });

    it('records an event once per (provider, event id), however often it is replayed', async () => {
      const s = await store();
      const event = sampleEvent('ann@example.com', 'delivered', '2026-11-01T10:00:00.000Z', {
        eventId: 'dup-1',
      });
      expect(await s.record('acc_a', [event])).toEqual({ stored: 1, duplicates: 0 });
      expect(await s.record('acc_a', [event, event])).toEqual({ stored: 0, duplicates: 2 });
      // The same id from another provider is another event.
      const other = sampleEvent('ann@example.com', 'delivered', '2026-11-01T10:00:00.000Z', {
        eventId: 'dup-1',
        provider: 'sendgrid',
      });
      expect(await s.record('acc_a', [other])).toEqual({ stored: 1, duplicates: 0 });
      expect((await s.summary({ account: 'acc_a' }, 'ann@example.com'))?.events).toBe(2);
    });

    it('folds an address: latest delivery, latest hard bounce with its reading, complaint', async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('bob@example.com', 'delivered', '2026-10-01T00:00:00.000Z'),
        sampleEvent('bob@example.com', 'hard_bounce', '2026-10-20T00:00:00.000Z', { diagnostic: NOT_FOUND }),
        // Arriving late, an older delivery changes nothing.
        sampleEvent('bob@example.com', 'delivered', '2026-09-01T00:00:00.000Z'),
        sampleEvent('bob@example.com', 'soft_bounce', '2026-10-21T00:00:00.000Z'),
      ]);
      const summary = await s.summary({ account: 'acc_a' }, 'bob@example.com');
      expect(summary).toMatchObject({
        address: 'bob@example.com',
        events: 4,
        lastDeliveredAt: '2026-10-01T00:00:00.000Z',
        lastMailboxBounceAt: '2026-10-20T00:00:00.000Z',
        lastSoftBounceAt: '2026-10-21T00:00:00.000Z',
        lastComplaintAt: null,
        lastEventAt: '2026-10-21T00:00:00.000Z',
        lastHardBounce: {
          at: '2026-10-20T00:00:00.000Z',
          reading: { level: 'mailbox', reason: 'mailbox_not_found' },
        },
      });
      expect(await s.summary({ account: 'acc_a' }, 'nobody@example.com')).toBeNull();
    });

    it('reads many addresses at once, as one read per address would', async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('one@example.com', 'delivered', '2026-10-01T00:00:00.000Z'),
        sampleEvent('two@example.com', 'complaint', '2026-10-02T00:00:00.000Z'),
      ]);
      await s.record('acc_b', [sampleEvent('one@example.com', 'complaint', '2026-10-03T00:00:00.000Z')]);
      const mine = await s.summaries({ account: 'acc_a' }, [
        'one@example.com',
        'two@example.com',
        'none@example.com',
        'one@example.com',
      ]);
      expect([...mine.keys()].sort()).toEqual(['one@example.com', 'two@example.com']);
      expect(mine.get('one@example.com')).toEqual(await s.summary({ account: 'acc_a' }, 'one@example.com'));
      const shared = await s.summaries('shared', ['one@example.com']);
      expect(shared.get('one@example.com')).toMatchObject({
        events: 2,
        lastComplaintAt: '2026-10-03T00:00:00.000Z',
      });
      await expect(
        s.summaries({ account: 'acc_a' }, new Array(10_001).fill('x@example.com')),
      ).rejects.toThrow(/at most 10000/);
    });

    it('a policy bounce is recorded but does not count against the address', async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('cat@example.com', 'hard_bounce', '2026-10-01T00:00:00.000Z', { diagnostic: BLOCKED }),
      ]);
      const summary = await s.summary({ account: 'acc_a' }, 'cat@example.com');
      expect(summary?.lastHardBounce?.reading.level).toBe('policy');
      expect(summary?.lastMailboxBounceAt).toBeNull();
    });

    it('keeps accounts apart, and shares them only for the shared scope', async () => {
      const s = await store();
      await s.record('acc_a', [sampleEvent('dan@example.com', 'delivered', '2026-10-01T00:00:00.000Z')]);
      await s.record('acc_b', [sampleEvent('dan@example.com', 'complaint', '2026-10-02T00:00:00.000Z')]);
      expect((await s.summary({ account: 'acc_a' }, 'dan@example.com'))?.lastComplaintAt).toBeNull();
      expect((await s.summary({ account: 'acc_b' }, 'dan@example.com'))?.lastDeliveredAt).toBeNull();
      expect(await s.summary({ account: 'acc_c' }, 'dan@example.com')).toBeNull();
      expect(await s.summary('shared', 'dan@example.com')).toMatchObject({
        events: 2,
        lastDeliveredAt: '2026-10-01T00:00:00.000Z',
        lastComplaintAt: '2026-10-02T00:00:00.000Z',
      });
    });

    it("counts a domain's addresses by local-part pattern and latest outcome", async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('ann.lee@corp.example', 'delivered', '2026-10-01T00:00:00.000Z'),
        sampleEvent('bo.kim@corp.example', 'delivered', '2026-10-01T00:00:00.000Z'),
        sampleEvent('annlee@corp.example', 'hard_bounce', '2026-10-01T00:00:00.000Z', {
          diagnostic: NOT_FOUND,
        }),
        // Delivered, then bounced at the mailbox: counted as bounced.
        sampleEvent('cy.wu@corp.example', 'delivered', '2026-09-01T00:00:00.000Z'),
        sampleEvent('cy.wu@corp.example', 'hard_bounce', '2026-10-01T00:00:00.000Z', {
          diagnostic: NOT_FOUND,
        }),
        // Only soft bounces: not decided, not counted.
        sampleEvent('dee.fox@corp.example', 'soft_bounce', '2026-10-01T00:00:00.000Z'),
        sampleEvent('other@else.example', 'delivered', '2026-10-01T00:00:00.000Z'),
      ]);
      expect(await s.patterns({ account: 'acc_a' }, 'corp.example')).toEqual([
        { pattern: 'first.last', delivered: 2, bounced: 1 },
        { pattern: 'word', delivered: 0, bounced: 1 },
      ]);
      expect(await s.patterns({ account: 'acc_b' }, 'corp.example')).toEqual([]);
    });

    it('erases one address of one account, and nothing else', async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('eve@example.com', 'delivered', '2026-10-01T00:00:00.000Z'),
        sampleEvent('eve@example.com', 'complaint', '2026-10-02T00:00:00.000Z'),
        sampleEvent('fay@example.com', 'delivered', '2026-10-01T00:00:00.000Z'),
      ]);
      await s.record('acc_b', [sampleEvent('eve@example.com', 'delivered', '2026-10-01T00:00:00.000Z')]);
      expect(await s.erase('acc_a', 'eve@example.com')).toBe(2);
      expect(await s.summary({ account: 'acc_a' }, 'eve@example.com')).toBeNull();
      expect(await s.summary({ account: 'acc_a' }, 'fay@example.com')).not.toBeNull();
      expect(await s.summary({ account: 'acc_b' }, 'eve@example.com')).not.toBeNull();
      expect(await s.patterns({ account: 'acc_a' }, 'example.com')).toEqual([
        { pattern: 'word', delivered: 1, bounced: 0 },
      ]);
    });

    it('prunes events older than the retention, and the summaries they leave empty', async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('gus@example.com', 'delivered', '2025-01-01T00:00:00.000Z'),
        sampleEvent('hal@example.com', 'delivered', '2025-01-01T00:00:00.000Z'),
        sampleEvent('hal@example.com', 'complaint', '2026-10-01T00:00:00.000Z'),
      ]);
      expect(await s.prune('2026-01-01T00:00:00.000Z')).toBe(2);
      expect(await s.summary({ account: 'acc_a' }, 'gus@example.com')).toBeNull();
      expect(await s.summary({ account: 'acc_a' }, 'hal@example.com')).toMatchObject({
        events: 1,
        lastDeliveredAt: null,
        lastComplaintAt: '2026-10-01T00:00:00.000Z',
      });
    });

    it('reports events per provider, bounce rates per domain and verdict changes since a time', async () => {
      const s = await store();
      await s.record('acc_a', [
        sampleEvent('a.b@one.example', 'delivered', '2026-11-01T00:00:00.000Z', { provider: 'ses' }),
        sampleEvent('c.d@one.example', 'hard_bounce', '2026-11-01T00:00:00.000Z', {
          provider: 'ses',
          diagnostic: NOT_FOUND,
        }),
        sampleEvent('e.f@one.example', 'delivered', '2026-11-02T00:00:00.000Z', { provider: 'postmark' }),
        sampleEvent('g@two.example', 'complaint', '2026-11-02T00:00:00.000Z', { provider: 'postmark' }),
        sampleEvent('old@one.example', 'delivered', '2026-01-01T00:00:00.000Z', { provider: 'ses' }),
      ]);
      await s.record('acc_b', [sampleEvent('x@one.example', 'delivered', '2026-11-01T00:00:00.000Z')]);
      await s.noteVerdictChange('acc_a', 'upgraded', '2026-11-03T00:00:00.000Z');
      await s.noteVerdictChange('acc_a', 'downgraded', '2026-11-03T00:00:00.000Z');
      await s.noteVerdictChange('acc_a', 'upgraded', '2026-01-03T00:00:00.000Z');
      await s.noteVerdictChange('acc_b', 'upgraded', '2026-11-03T00:00:00.000Z');
      const stats = await s.stats('acc_a', '2026-10-01T00:00:00.000Z');
      expect(stats.events).toBe(4);
      expect(stats.providers).toEqual([
        {
          provider: 'postmark',
          counts: { delivered: 1, hard_bounce: 0, soft_bounce: 0, complaint: 1, unsubscribe: 0 },
        },
        {
          provider: 'ses',
          counts: { delivered: 1, hard_bounce: 1, soft_bounce: 0, complaint: 0, unsubscribe: 0 },
        },
      ]);
      expect(stats.domains).toEqual([
        { domain: 'one.example', delivered: 2, bounced: 1, bounce_rate: 0.333 },
      ]);
      expect(stats.verdicts).toEqual({ upgraded: 1, downgraded: 1 });
    });

    it("keeps each account's provider credentials apart, replaces and removes them", async () => {
      const s = await store();
      await s.setProvider('acc_a', 'mailgun', 'sealed-1', '2026-11-01T00:00:00.000Z');
      await s.setProvider('acc_a', 'mailgun', 'sealed-2', '2026-11-02T00:00:00.000Z');
      await s.setProvider('acc_a', 'ses', 'sealed-3', '2026-11-03T00:00:00.000Z');
      expect(await s.providerCredentials('acc_a', 'mailgun')).toBe('sealed-2');
      expect(await s.providerCredentials('acc_b', 'mailgun')).toBeNull();
      expect(await s.providers('acc_a')).toEqual([
        { provider: 'mailgun', configuredAt: '2026-11-02T00:00:00.000Z' },
        { provider: 'ses', configuredAt: '2026-11-03T00:00:00.000Z' },
      ]);
      expect(await s.removeProvider('acc_a', 'ses')).toBe(true);
      expect(await s.removeProvider('acc_a', 'ses')).toBe(false);
      expect(await s.providers('acc_b')).toEqual([]);
    });

    it('refuses more events than one call may take', async () => {
      const s = await store();
      const event = sampleEvent('big@example.com', 'delivered', '2026-11-01T00:00:00.000Z');
      await expect(s.record('acc_a', new Array(10_001).fill(event))).rejects.toThrow(/at most 10000/);
    });
  });
}
