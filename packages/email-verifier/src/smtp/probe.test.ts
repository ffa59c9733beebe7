import { type SmtpFleet, type SmtpScript, startSmtpFleet } from '@svc/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MailHost } from '../dns/mail-hosts.js';
import { testSessionSettings } from '../testing/session-settings.js';
import { directSocket, type SocketFactory } from './connection.js';
import { KeyedLimiter } from './keyed-limiter.js';
import { createMailGroup, type ProbeContext } from './probe.js';

let fleet: SmtpFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const mx = (...hosts: string[]): MailHost[] =>
  hosts.map((host, index) => ({ host, priority: index * 10, implicit: false }));

/** A probe context plus the caller's deadline. */
type TestContext = ProbeContext & { signal: AbortSignal };

/** One caller probing one domain: every recipient, and the catch-all question. */
async function probeDomain(
  domain: string,
  hosts: readonly MailHost[],
  recipients: readonly string[],
  { signal, ...context }: TestContext,
) {
  const probe = await createMailGroup(hosts, context).join(
    new Map([[domain, recipients]]),
    new Set([domain]),
    signal,
  );
  if (!probe) throw new Error('a new group always takes its first caller');
  return { results: probe.results, catchAll: probe.catchAll.get(domain) ?? null };
}

async function setup(
  script: SmtpScript,
  hostScripts: Record<string, SmtpScript> = {},
  options: Partial<TestContext> = {},
) {
  const ips = ['127.0.0.2', '127.0.0.3'];
  fleet = await startSmtpFleet({
    hosts: ips.map((host) => ({ host, script: hostScripts[host] ?? {} })),
    script,
  });
  const addresses: Record<string, string[]> = {
    'mx1.example.test': ['127.0.0.2'],
    'mx2.example.test': ['127.0.0.3'],
  };
  const context: TestContext = {
    settings: testSessionSettings(fleet.port),
    limiter: new KeyedLimiter(2, 10),
    resolveAddresses: async (host) => addresses[host] ?? [],
    maxRcptsPerSession: 20,
    learnedLimits: new Map(),
    syntheticLocalPart: () => 'nobody-x7q2',
    signal: AbortSignal.timeout(5000),
    ...options,
  };
  return context;
}

describe('probeDomain against the testkit SMTP fleet', () => {
  it('tells accepted, unknown, disabled, full, blocked and greylisted mailboxes apart in one session', async () => {
    const context = await setup({
      mailboxes: {
        'ok@example.test': 'accept',
        'full@example.test': 'full',
        'gone@example.test': 'disabled',
        'block@example.test': 'blocked',
        'grey@example.test': { greylist: { delayMs: 60_000 } },
      },
    });
    const recipients = ['ok', 'nobody', 'full', 'gone', 'block', 'grey'].map(
      (name) => `${name}@example.test`,
    );
    const probe = await probeDomain('example.test', mx('mx1.example.test'), recipients, context);
    const outcomes = Object.fromEntries(
      [...probe.results].map(([address, result]) => [address.split('@')[0], result.outcome]),
    );
    expect(outcomes).toEqual({
      ok: 'accepted',
      nobody: 'mailbox_not_found',
      full: 'mailbox_full',
      gone: 'mailbox_disabled',
      block: 'blocked_by_policy',
      grey: 'greylisted',
    });
    expect(probe.results.get('nobody@example.test')?.detail).toMatchObject({
      code: 550,
      enhanced_status: '5.1.1',
    });
    expect(probe.catchAll).toBe(false);
    // One session asked every question, STARTTLS was used, and no mail was ever sent.
    expect(fleet?.sessions).toHaveLength(1);
    expect(fleet?.sessions[0]?.tls).toBe(true);
    expect(fleet?.sessions[0]?.rcpts.map((rcpt) => rcpt.address)).toEqual([
      ...recipients,
      'nobody-x7q2@example.test',
    ]);
    expect(fleet?.sessions.some((session) => session.dataAttempted)).toBe(false);
  });

  it('detects a catch-all domain with a synthetic recipient', async () => {
    const context = await setup({ domains: { 'example.test': 'accept' } });
    const probe = await probeDomain('example.test', mx('mx1.example.test'), ['anyone@example.test'], context);
    expect(probe.results.get('anyone@example.test')?.outcome).toBe('accepted');
    expect(probe.catchAll).toBe(true);
  });

  it('skips the catch-all question when every recipient was rejected', async () => {
    const context = await setup({});
    const probe = await probeDomain('example.test', mx('mx1.example.test'), ['x@example.test'], context);
    expect(probe.results.get('x@example.test')?.outcome).toBe('mailbox_not_found');
    expect(probe.catchAll).toBeNull();
    expect(fleet?.sessions[0]?.rcpts).toHaveLength(1);
  });

  it('asks the recipients of several domains in turns, so every catch-all question is due after the first round', async () => {
    const names = ['a', 'b', 'c'];
    const context = await setup(
      { domains: Object.fromEntries(names.map((domain) => [`${domain}.test`, 'accept' as const])) },
      {},
      { limiter: new KeyedLimiter(1, 10), maxRcptsPerSession: 3 },
    );
    const byDomain = new Map(
      names.map((domain) => [`${domain}.test`, [1, 2, 3].map((index) => `${domain}${index}@${domain}.test`)]),
    );
    const probe = await createMailGroup(mx('mx1.example.test'), context).join(
      byDomain,
      new Set(byDomain.keys()),
      context.signal,
    );
    expect(probe?.results.size).toBe(9);
    // Queued domain after domain, the first session would ask a1, a2, a3 and c's question would
    // wait until c1 was answered in the third.
    const asked = fleet?.sessions.map((session) => session.rcpts.map((rcpt) => rcpt.address.split('@')[0]));
    expect(asked).toEqual([
      ['a1', 'b1', 'c1'],
      ['nobody-x7q2', 'nobody-x7q2', 'nobody-x7q2'],
      ['a2', 'b2', 'c2'],
      ['a3', 'b3', 'c3'],
    ]);
  });

  it('opens no session that finds nothing to ask when two slots free up with a few questions left', async () => {
    // Seven mailboxes and the catch-all question, three RCPTs a session, two sessions at a time:
    // the first two sessions end together with two questions left, which one session can ask.
    const context = await setup(
      { domains: { 'example.test': 'accept' }, replyDelayMs: 15, replyDelayModel: 'latency' },
      {},
      { limiter: new KeyedLimiter(2, 10), maxRcptsPerSession: 3 },
    );
    const recipients = [1, 2, 3, 4, 5, 6, 7].map((index) => `m${index}@example.test`);
    const probe = await probeDomain('example.test', mx('mx1.example.test'), recipients, context);
    expect(probe.results.size).toBe(7);
    expect(probe.catchAll).toBe(true);
    expect(fleet?.sessions.map((session) => session.rcpts.length).sort()).toEqual([2, 3, 3]);
  });

  it('leaves a question that falls due to a session still asking with room, instead of opening another', async () => {
    // Six mailboxes and the catch-all question, five RCPTs a session, RCPT answers 300 ms away.
    // The first session asks five at once; the second connects 150 ms later and asks the sixth.
    // The catch-all question falls due with the first session's answers, while the second is
    // still waiting for its own: it can ask the question a round trip later, so the first
    // session's freed slot must not open a third session for it.
    const context = await setup(
      { domains: { 'example.test': 'accept' }, replyDelayMs: { rcpt: 300 }, replyDelayModel: 'latency' },
      {},
      { limiter: new KeyedLimiter(2, 10), maxRcptsPerSession: 5 },
    );
    let connections = 0;
    const secondLater: SocketFactory = async (host, port, signal) => {
      if (++connections === 2) await new Promise((resolve) => setTimeout(resolve, 150));
      return directSocket(host, port, signal);
    };
    context.settings = { ...context.settings, socketFactory: secondLater };
    const recipients = [1, 2, 3, 4, 5, 6].map((index) => `m${index}@example.test`);
    const probe = await probeDomain('example.test', mx('mx1.example.test'), recipients, context);
    expect(probe.results.size).toBe(6);
    expect(probe.catchAll).toBe(true);
    expect(fleet?.sessions.map((session) => session.rcpts.length)).toEqual([5, 2]);
  });

  it('moves to the next MX after a 421 greeting', async () => {
    const context = await setup(
      { mailboxes: { 'ok@example.test': 'accept' } },
      { '127.0.0.2': { greeting: 'busy' } },
    );
    const probe = await probeDomain(
      'example.test',
      mx('mx1.example.test', 'mx2.example.test'),
      ['ok@example.test'],
      context,
    );
    expect(probe.results.get('ok@example.test')).toMatchObject({
      outcome: 'accepted',
      detail: { host: 'mx2.example.test' },
    });
    expect(fleet?.sessionsFor('127.0.0.2')).toHaveLength(1);
  });

  it('moves to the next MX when the first refuses connections, and reports unreachable when all do', async () => {
    const context = await setup({ mailboxes: { 'ok@example.test': 'accept' } });
    const dead = {
      ...context,
      resolveAddresses: async (host: string) => (host === 'mx1.example.test' ? ['127.0.0.9'] : ['127.0.0.3']),
    };
    const probe = await probeDomain(
      'example.test',
      mx('mx1.example.test', 'mx2.example.test'),
      ['ok@example.test'],
      dead,
    );
    expect(probe.results.get('ok@example.test')?.outcome).toBe('accepted');
    const allDead = { ...context, resolveAddresses: async () => ['127.0.0.9'] };
    const none = await probeDomain(
      'example.test',
      mx('mx1.example.test', 'mx2.example.test'),
      ['ok@example.test'],
      allDead,
    );
    expect(none.results.get('ok@example.test')).toMatchObject({ outcome: 'unreachable' });
  });

  it('falls back to HELO when EHLO is rejected, and reads multi-line banners', async () => {
    const context = await setup({
      ehlo: 'reject',
      banner: ['mx.test ESMTP', 'no spam please', 'really'],
      mailboxes: { 'ok@example.test': 'accept' },
    });
    const probe = await probeDomain('example.test', mx('mx1.example.test'), ['ok@example.test'], context);
    expect(probe.results.get('ok@example.test')?.outcome).toBe('accepted');
    expect(fleet?.sessions[0]?.commands.slice(0, 2)).toEqual(['EHLO verifier.test', 'HELO verifier.test']);
  });

  it('keeps correct answers when the server allows one RCPT per session', async () => {
    const context = await setup({
      maxRcptsPerSession: 1,
      mailboxes: { 'a@example.test': 'accept', 'b@example.test': 'accept' },
    });
    const recipients = ['a@example.test', 'b@example.test', 'c@example.test'];
    const probe = await probeDomain('example.test', mx('mx1.example.test'), recipients, context);
    expect(recipients.map((recipient) => probe.results.get(recipient)?.outcome)).toEqual([
      'accepted',
      'accepted',
      'mailbox_not_found',
    ]);
    expect(probe.catchAll).toBe(false);
    expect(context.learnedLimits.get('127.0.0.2')).toBe(1);
    // One learning session with two questions, then one session per remaining question.
    expect(fleet?.sessions.length).toBeLessThanOrEqual(4);
  });

  it('reports a timeout within the deadline when the server is slower than it', async () => {
    const context = await setup({ replyDelayMs: { rcpt: 3000 }, mailboxes: { 'ok@example.test': 'accept' } });
    const probe = await probeDomain('example.test', mx('mx1.example.test'), ['ok@example.test'], {
      ...context,
      settings: { ...context.settings, commandTimeoutMs: 10_000 },
      signal: AbortSignal.timeout(400),
    });
    // The server accepts after 3 s and the command timeout is 10 s: a timeout outcome says the
    // caller's 400 ms deadline ended the wait (no timing asserted).
    expect(probe.results.get('ok@example.test')?.outcome).toBe('timeout');
  });

  it('treats a dropped connection as unreachable, not as a dead mailbox', async () => {
    const context = await setup({ drop: { at: 'rcpt' } });
    const probe = await probeDomain('example.test', mx('mx1.example.test'), ['ok@example.test'], context);
    expect(probe.results.get('ok@example.test')?.outcome).toBe('unreachable');
  });

  it.each([
    ['pipelined with the RCPTs', undefined],
    ['answered before any RCPT (no PIPELINING)', ['SIZE 10240000', 'ENHANCEDSTATUSCODES']],
  ])(
    'reads a refusal of our sender (MAIL FROM %s) as sender_rejected for every recipient',
    async (_how, extensions) => {
      const context = await setup({ mailFrom: 'blocked', ...(extensions ? { extensions } : {}) });
      const probe = await probeDomain(
        'example.test',
        mx('mx1.example.test'),
        ['a@example.test', 'b@example.test'],
        context,
      );
      expect([...probe.results.values()].map((result) => result.outcome)).toEqual([
        'sender_rejected',
        'sender_rejected',
      ]);
      expect(probe.results.get('a@example.test')?.detail).toMatchObject({
        code: 554,
        enhanced_status: '5.7.1',
      });
    },
  );

  it('never opens more connections to one MX address than the per-host limit', async () => {
    const context = await setup({ defaultRcpt: 'accept', replyDelayMs: 5 });
    const domains = Array.from({ length: 8 }, (_, index) => `d${index}.test`);
    await Promise.all(
      domains.map((domain) =>
        probeDomain(domain, mx('mx1.example.test'), [`a@${domain}`, `b@${domain}`], {
          ...context,
          limiter: context.limiter,
        }),
      ),
    );
    expect(fleet?.peakConnections('127.0.0.2')).toBe(2);
    expect(fleet?.sessions).toHaveLength(8);
  });

  describe('pipelining (RFC 2920)', () => {
    const recipients = Array.from({ length: 10 }, (_, index) => `user${index}@example.test`);
    const mailboxes = Object.fromEntries(recipients.map((recipient) => [recipient, 'accept' as const]));
    /** The session's RCPTs: when each reached the server, and when the server sent its reply. */
    const rcptTimes = () => {
      const transcript = fleet?.sessions[0]?.transcript ?? [];
      const times: { arrivedAt: number; repliedAt: number }[] = [];
      transcript.forEach((entry, index) => {
        if (entry.type !== 'command' || !entry.line.startsWith('RCPT')) return;
        const reply = transcript.slice(index + 1).find((next) => next.type === 'reply');
        times.push({ arrivedAt: entry.arrivedAt, repliedAt: reply?.at ?? Number.NaN });
      });
      return times;
    };

    it('sends a session’s RCPTs in one write when PIPELINING is offered, one round trip instead of ten', async () => {
      const context = await setup({ mailboxes, replyDelayMs: { rcpt: 100 }, replyDelayModel: 'latency' });
      const probe = await probeDomain('example.test', mx('mx1.example.test'), recipients, context);
      expect(recipients.map((recipient) => probe.results.get(recipient)?.outcome)).toEqual(
        recipients.map(() => 'accepted'),
      );
      expect(fleet?.sessions).toHaveLength(1);
      // The ten RCPTs all reached the server before it sent its first RCPT reply: one write, one
      // round trip (the catch-all question comes after, in a round trip of its own).
      const [first, ...rest] = rcptTimes();
      const firstReply = first?.repliedAt ?? Number.NaN;
      expect(rest.slice(0, 9).filter(({ arrivedAt }) => arrivedAt < firstReply)).toHaveLength(9);
    });

    it('asks one RCPT at a time when the server does not offer PIPELINING', async () => {
      const context = await setup({
        mailboxes,
        replyDelayMs: { rcpt: 30 },
        replyDelayModel: 'latency',
        extensions: ['SIZE 10240000', 'ENHANCEDSTATUSCODES'],
      });
      const probe = await probeDomain('example.test', mx('mx1.example.test'), recipients, context);
      expect(probe.results.get('user9@example.test')?.outcome).toBe('accepted');
      // Eleven RCPTs (the catch-all question included), each sent once the one before was answered.
      const times = rcptTimes();
      expect(times).toHaveLength(11);
      expect(
        times.slice(1).filter(({ arrivedAt }, index) => arrivedAt >= (times[index]?.repliedAt ?? 0)),
      ).toHaveLength(10);
    });

    it('keeps the answers received before a drop and asks the rest of the batch at the next MX', async () => {
      // Replies 30 ms apart, so the first three reach us before the reset the drop sends.
      const context = await setup(
        { mailboxes },
        { '127.0.0.2': { drop: { at: 'rcpt', nth: 4 }, replyDelayMs: { rcpt: 30 } } },
      );
      const probe = await probeDomain(
        'example.test',
        mx('mx1.example.test', 'mx2.example.test'),
        recipients,
        context,
      );
      expect(recipients.map((recipient) => probe.results.get(recipient)?.outcome)).toEqual(
        recipients.map(() => 'accepted'),
      );
      const [first, second] = fleet?.sessions ?? [];
      expect(first?.rcpts.length).toBeGreaterThanOrEqual(3);
      // Answers that reached us before the drop are kept; mx2 is asked exactly the rest, in order.
      const reasked = (second?.rcpts.map((rcpt) => rcpt.address) ?? []).filter((address) =>
        recipients.includes(address),
      );
      expect(reasked).toEqual(recipients.slice(3));
      expect(probe.catchAll).toBe(false);
    });
  });

  describe('one recipient domain per transaction', () => {
    /** The RCPT domains of each transaction (MAIL FROM to RSET) of every recorded session. */
    const transactions = () =>
      (fleet?.sessions ?? []).flatMap((session) => {
        const found: string[][] = [];
        for (const line of session.commands) {
          if (line.startsWith('MAIL FROM')) found.push([]);
          const rcpt = /^RCPT TO:<.*@(.+)>$/.exec(line);
          if (rcpt) found.at(-1)?.push(rcpt[1] as string);
        }
        return found;
      });

    // Gmail refuses the second domain of a transaction with 451 4.3.0, so a session serving
    // several domains of one MX must open a transaction per domain.
    it.each([
      ['pipelining', undefined],
      ['without PIPELINING', ['SIZE 10240000', 'ENHANCEDSTATUSCODES']],
    ])('never mixes domains in one transaction (%s)', async (_name, extensions) => {
      const context = await setup(
        { defaultRcpt: 'accept', ...(extensions ? { extensions } : {}) },
        {},
        {
          limiter: new KeyedLimiter(1, 10),
        },
      );
      const { signal, ...shared } = context;
      const recipients = new Map([
        ['a.test', ['x@a.test', 'y@a.test']],
        ['b.test', ['x@b.test']],
        ['c.test', ['x@c.test', 'y@c.test']],
      ]);
      const probe = await createMailGroup(mx('mx1.example.test'), shared).join(
        recipients,
        new Set(['a.test', 'b.test', 'c.test']),
        signal,
      );
      expect([...(probe?.results.values() ?? [])].map((result) => result.outcome)).toEqual(
        Array(5).fill('accepted'),
      );
      expect([...(probe?.catchAll.values() ?? [])]).toEqual([true, true, true]);
      await fleet?.waitForIdle();
      const seen = transactions();
      for (const domains of seen) expect(new Set(domains).size).toBe(1);
      expect(seen.flat().sort()).toEqual([
        'a.test',
        'a.test',
        'a.test',
        'b.test',
        'b.test',
        'c.test',
        'c.test',
        'c.test',
      ]);
      expect(fleet?.sessions).toHaveLength(1);
    });
  });

  describe('groups that later callers join', () => {
    it('carries a joining caller’s recipients in the sessions already open', async () => {
      const context = await setup(
        { defaultRcpt: 'accept', replyDelayMs: { rcpt: 40 } },
        {},
        {
          limiter: new KeyedLimiter(1, 10),
        },
      );
      const { signal, ...shared } = context;
      let closed!: () => void;
      const groupClosed = new Promise<void>((resolve) => {
        closed = resolve;
      });
      const group = createMailGroup(mx('mx1.example.test'), shared, () => closed());
      const first = group.join(new Map([['a.test', ['x@a.test', 'y@a.test']]]), new Set(), signal);
      // One turn of the event loop: the first caller's probe is under way.
      await new Promise(setImmediate);
      const second = group.join(new Map([['b.test', ['x@b.test']]]), new Set(['b.test']), signal);
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();
      const [one, two] = await Promise.all([first, second]);
      expect([...(one?.results.keys() ?? [])]).toEqual(['x@a.test', 'y@a.test']);
      expect(two?.results.get('x@b.test')?.outcome).toBe('accepted');
      expect(two?.catchAll.get('b.test')).toBe(true);
      await fleet?.waitForIdle();
      // One session for both callers: the joiner did not open its own.
      expect(fleet?.sessions).toHaveLength(1);
      expect(fleet?.sessions[0]?.rcpts.map((rcpt) => rcpt.address).slice(0, 3)).toEqual([
        'x@a.test',
        'y@a.test',
        'x@b.test',
      ]);
      // Finished groups take nobody: the next caller starts a new one.
      await groupClosed;
      expect(group.join(new Map([['a.test', ['z@a.test']]]), new Set(), signal)).toBeNull();
    });

    it('answers an urgent caller (a single verify) before the backlog of a batch', async () => {
      const context = await setup(
        { defaultRcpt: 'unknown', replyDelayMs: { rcpt: 20 } },
        {},
        {
          limiter: new KeyedLimiter(1, 10),
        },
      );
      const { signal, ...shared } = context;
      const group = createMailGroup(mx('mx1.example.test'), shared);
      const backlog = Array.from({ length: 60 }, (_, index) => `user${index}@batch.test`);
      const batch = group.join(new Map([['batch.test', backlog]]), new Set(), signal);
      // The urgent caller comes once the batch's session is asking.
      await vi.waitFor(() => expect(fleet?.sessions[0]?.rcpts.length ?? 0).toBeGreaterThan(0), {
        interval: 2,
      });
      const urgent = await group.join(new Map([['one.test', ['me@one.test']]]), new Set(), signal, {
        urgent: true,
      });
      expect(urgent?.results.get('me@one.test')?.outcome).toBe('mailbox_not_found');
      await batch;
      // It went before the backlog: most of the batch's recipients were asked after it (were it
      // queued behind them, none would be).
      const asked = (fleet?.sessions ?? []).flatMap((session) => session.rcpts.map((rcpt) => rcpt.address));
      expect(asked).toHaveLength(61);
      expect(asked.length - 1 - asked.indexOf('me@one.test')).toBeGreaterThanOrEqual(15);
    });

    /** Whether the fake MTA has been asked about `address` (its RCPT arrived). */
    const askedFor = (address: string) =>
      (fleet?.sessions ?? []).some((session) =>
        session.commands.some((line) => line.includes(`<${address}>`)),
      );

    it('lets one caller give up without disturbing the others', async () => {
      const context = await setup({ defaultRcpt: 'accept', replyDelayMs: { rcpt: 150 } });
      const { signal, ...shared } = context;
      const group = createMailGroup(mx('mx1.example.test'), shared);
      const impatient = new AbortController();
      const quitter = group.join(new Map([['a.test', ['x@a.test']]]), new Set(), impatient.signal);
      const stayer = group.join(new Map([['b.test', ['x@b.test', 'y@b.test']]]), new Set(), signal);
      // It gives up once its recipient has been asked (the answer comes 150 ms later).
      await expect.poll(() => askedFor('x@a.test'), { interval: 5 }).toBe(true);
      impatient.abort(new Error('gave up'));
      const gaveUp = await quitter;
      expect(gaveUp?.results.get('x@a.test')?.outcome).toBe('timeout');
      const served = await stayer;
      expect([...(served?.results.values() ?? [])].map((result) => result.outcome)).toEqual([
        'accepted',
        'accepted',
      ]);
      await fleet?.waitForIdle();
      // The stayer's answers came from the same session, which the quitter did not cut short.
      expect(fleet?.sessions).toHaveLength(1);
      expect(fleet?.sessions[0]?.end).toBe('quit');
    });

    it('stops its sessions when the last caller gives up', async () => {
      const context = await setup({ defaultRcpt: 'accept', replyDelayMs: { rcpt: 2000 } });
      const { signal: _unused, ...shared } = context;
      const group = createMailGroup(mx('mx1.example.test'), shared);
      const controller = new AbortController();
      const joined = group.join(new Map([['a.test', ['x@a.test']]]), new Set(), controller.signal);
      await expect.poll(() => askedFor('x@a.test'), { interval: 5 }).toBe(true);
      controller.abort(new Error('cancelled'));
      // The server would accept after 2 s: a timeout outcome says the abort ended the session.
      expect((await joined)?.results.get('x@a.test')?.outcome).toBe('timeout');
      await fleet?.waitForIdle();
    });
  });
});
