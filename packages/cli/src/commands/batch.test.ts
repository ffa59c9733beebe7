import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDnsServer, startWebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { expectApiJson, ISO_8601 } from '../testing/api-json.js';
import { captureIo } from '../testing/capture-io.js';

describe('svc batch on a SQLite file', () => {
  let dir: string;
  const io = (stdin = '') => {
    const captured = captureIo(stdin);
    captured.env.SVC_DATA_DIR = join(dir, 'data');
    return captured;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-batch-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a geo_ip job, writes the results, and reads status and results back from the file', async () => {
    const input = join(dir, 'ips.txt');
    await writeFile(input, '8.8.8.8\n10.0.0.1\n1.1.1.1\n');
    const db = join(dir, 'jobs.db');
    const run = io();
    expect(
      await main(
        ['batch', 'run', '--type', 'geo_ip', '--file', input, '--db', db, '--out', join(dir, 'out.ndjson')],
        run,
      ),
    ).toBe(
      EXIT.failure, // one record failed (a private address)
    );
    const id = run.out().trim();
    expect(id).toMatch(/^batch_/);
    expect(run.err()).toContain('batch: completed: 2 ok, 1 failed {"located":2}');
    const lines = (await readFile(join(dir, 'out.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.index, line.ok])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(lines[0].result).toMatchObject({ ip: '8.8.8.8', country: 'US', asn: 15169 });

    const status = io();
    expect(await main(['batch', 'status', id, '--db', db, '--json'], status)).toBe(EXIT.ok);
    expect(JSON.parse(status.out())).toMatchObject({
      id,
      object: 'batch_job',
      status: 'completed',
      processed: 3,
      failed: 1,
    });
    const results = io();
    expect(await main(['batch', 'results', id, '--db', db, '--format', 'csv'], results)).toBe(EXIT.ok);
    expect(results.out().split('\n')[0]).toMatch(/^index,input,ok,error_code,error_message,result\.ip/);
  }, 120_000);

  it('signs and posts the completion event to --webhook-url, and retries a failed one on the next run', async () => {
    const input = join(dir, 'hook-ips.txt');
    await writeFile(input, '8.8.8.8\n1.1.1.1\n');
    const db = join(dir, 'hooks.db');
    // The receiver fails the first attempt, so the event waits in the outbox for a later run.
    const receiver = await startWebhookReceiver({ failFirst: 1, failStatus: 503 });
    try {
      const first = io();
      first.env.SVC_WEBHOOK_SECRET = 'whsec_cli';
      const argv = [
        'batch',
        'run',
        '--type',
        'geo_ip',
        '--file',
        input,
        '--db',
        db,
        '--allow-private-webhook',
      ];
      expect(await main([...argv, '--webhook-url', `${receiver.url}/hook`], first)).toBe(EXIT.ok);
      const firstId = first.out().trim();
      expect(first.err()).toMatch(
        /webhook: evt_\w+ not delivered yet \(HTTP 503, 1 attempt\); next attempt \S+ by `svc batch deliver --db \S+` or the next `svc batch run --db /,
      );
      expect(receiver.deliveries).toHaveLength(1);

      const status = io();
      expect(await main(['batch', 'status', firstId, '--db', db, '--json'], status)).toBe(EXIT.ok);
      const pending = JSON.parse(status.out()).deliveries[0];
      expect(pending).toMatchObject({
        event_id: expect.stringMatching(/^evt_/),
        type: 'batch.completed',
        state: 'pending',
        next_attempt_at: expect.stringMatching(ISO_8601),
        attempts: [{ at: expect.stringMatching(ISO_8601), status: 503, latency_ms: expect.any(Number) }],
      });
      expectApiJson(JSON.parse(status.out()));
      // The schedule's second attempt is about 5 s after the first; a run whose delivery clock is
      // past it delivers it (the clock is moved on, not waited for).
      const ahead = Date.parse(pending.next_attempt_at) + 1 - Date.now();
      const second = io();
      second.now = () => Date.now() + Math.max(0, ahead);
      expect(
        await main(
          [...argv, '--webhook-url', `${receiver.url}/hook`, '--webhook-secret', 'whsec_new,whsec_cli'],
          second,
        ),
      ).toBe(EXIT.ok);
      expect(second.err()).toMatch(/webhook: batch\.completed evt_\w+ delivered \(HTTP 200, 1 attempt\)/);
      await receiver.waitFor(3);
      const events = receiver.deliveries.map((delivery) => {
        const header = String(delivery.headers['x-service-signature']);
        expect(delivery.headers['content-type']).toBe('application/json');
        return verifyPayload(delivery.body, header, 'whsec_cli');
      });
      // The first run's event (retried, same id) and the second run's own event.
      expect(events[1]?.id).toBe(events[0]?.id);
      expect(events.map((event) => (event.data as { object: { id: string } }).object.id)).toEqual([
        firstId,
        firstId,
        second.out().trim(),
      ]);
      const after = io();
      expect(await main(['batch', 'status', firstId, '--db', db], after)).toBe(EXIT.ok);
      expect(after.out()).toMatch(/webhook: batch\.completed evt_\w+ delivered \(HTTP 200, 2 attempts\)/);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('reports an endpoint that answers 410 Gone as gone, not to be retried', async () => {
    const input = join(dir, 'gone-ips.txt');
    await writeFile(input, '8.8.8.8\n');
    const receiver = await startWebhookReceiver({ status: 410 });
    try {
      const run = io();
      const argv = ['batch', 'run', '--type', 'geo_ip', '--file', input, '--db', join(dir, 'gone.db')];
      argv.push('--allow-private-webhook', '--webhook-secret', 's', '--webhook-url', `${receiver.url}/hook`);
      expect(await main(argv, run)).toBe(EXIT.ok);
      expect(run.err()).toMatch(/webhook: evt_\w+ refused with 410 Gone; not retried/);
      const status = io();
      expect(
        await main(['batch', 'status', run.out().trim(), '--db', join(dir, 'gone.db'), '--json'], status),
      ).toBe(EXIT.ok);
      expect(JSON.parse(status.out()).deliveries).toMatchObject([
        { state: 'gone', attempts: [{ status: 410 }] },
      ]);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('refuses webhook settings that cannot work, before doing any work', async () => {
    const input = join(dir, 'one-ip.txt');
    await writeFile(input, '8.8.8.8\n');
    const db = join(dir, 'refused.db');
    const base = ['batch', 'run', '--type', 'geo_ip', '--file', input, '--db', db];

    const noSecret = io();
    expect(await main([...base, '--webhook-url', 'https://hooks.example.com/x'], noSecret)).toBe(EXIT.usage);
    expect(noSecret.err()).toContain(
      '--webhook-url needs a signing secret: --webhook-secret or SVC_WEBHOOK_SECRET',
    );

    const badUrl = io();
    expect(
      await main([...base, '--webhook-url', 'ftp://hooks.example.com/x', '--webhook-secret', 's'], badUrl),
    ).toBe(EXIT.failure);
    expect(badUrl.err()).toContain('webhook_url');

    // A private target without --allow-private-webhook is refused before the job, like a missing
    // secret: the delivery's SSRF guard would refuse every attempt after the job finished.
    const receiver = await startWebhookReceiver();
    try {
      for (const [url, why] of [
        [`${receiver.url}/hook`, '127.0.0.1 is in 127.0.0.0/8, loopback'],
        ['http://10.1.2.3/hook', '10.1.2.3 is in 10.0.0.0/8, private-use'],
        ['http://[::1]:9/hook', '::1 is in ::1/128, loopback'],
        ['http://localhost:9/hook', 'localhost resolves to '],
      ]) {
        const guarded = io();
        expect(await main([...base, '--webhook-url', url as string, '--webhook-secret', 's'], guarded)).toBe(
          EXIT.usage,
        );
        expect(guarded.err()).toContain(`svc: --webhook-url is on a private or reserved address (${why}`);
        expect(guarded.err()).toContain('Pass --allow-private-webhook');
        expect(guarded.err()).not.toContain('Usage:');
      }
      expect(receiver.deliveries).toHaveLength(0);
      await expect(readFile(db)).rejects.toThrow(/ENOENT/); // no job was created
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it.each([
    [['batch'], 'the subcommands are: run, status, results, list, cancel, deliver'],
    [['batch', 'deliver', '--db', 'x.db'], 'batch deliver needs the signing secret'],
    [['batch', 'cancel'], 'batch cancel needs a job id'],
    [['batch', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 100'],
    [
      ['batch', 'run', '--type', 'geo_ip', '--file', 'x.txt', '--probe'],
      '--probe applies to --type verify_email only',
    ],
    [
      ['batch', 'run', '--type', 'verify_email', '--file', 'x.txt', '--smtp-port', 'x'],
      '--smtp-port must be a port number',
    ],
    [
      ['batch', 'run', '--file', 'x.txt'],
      '--type must be one of verify_email, geo_ip, enrich_contact, enrich_company',
    ],
    [['batch', 'run', '--type', 'geo_ip'], 'batch run needs --file'],
    [['batch', 'status'], 'batch status needs a job id'],
  ])('bad usage %j exits 2', async (argv, message) => {
    const captured = io();
    expect(await main(argv, captured)).toBe(EXIT.usage);
    expect(captured.err()).toContain(message);
  });

  it('reads only existing databases, creates one where a run asks, and refuses a bad job before loading data', async () => {
    const missing = join(dir, 'typo.db');
    const status = io();
    expect(await main(['batch', 'status', 'batch_x', '--db', missing], status)).toBe(EXIT.failure);
    expect(status.err()).toContain(`cannot open the job database ${missing}: no such file`);
    await expect(readFile(missing)).rejects.toThrow(/ENOENT/); // nothing was created

    const tooMany = join(dir, 'too-many.txt');
    await writeFile(
      tooMany,
      `${Array.from({ length: 50_001 }, (_, index) => `1.1.${index >> 8}.${index & 255}`).join('\n')}\n`,
    );
    const refused = io();
    expect(
      await main(['batch', 'run', '--type', 'geo_ip', '--file', tooMany, '--db', join(dir, 'x.db')], refused),
    ).toBe(EXIT.usage);
    expect(refused.err()).toContain(
      `svc: ${tooMany} has 50,001 records; a batch job takes at most 50,000 (split the file)\n`,
    );
    expect(refused.err()).not.toContain('Usage:'); // the command line's form was fine
    // Refused before any work: the job database was never opened (not timed).
    expect(existsSync(join(dir, 'x.db'))).toBe(false);
    const empty = join(dir, 'empty.txt');
    await writeFile(empty, '# nothing yet\n\n');
    const none = io();
    expect(
      await main(['batch', 'run', '--type', 'geo_ip', '--file', empty, '--db', join(dir, 'x.db')], none),
    ).toBe(EXIT.usage);
    expect(none.err()).toBe(`svc: ${empty} has no records\n`);

    const one = join(dir, 'one-ip.txt');
    await writeFile(one, '8.8.8.8\n');
    const nested = join(dir, 'new', 'folder', 'jobs.db');
    const run = io();
    expect(await main(['batch', 'run', '--type', 'geo_ip', '--file', one, '--db', nested], run)).toBe(
      EXIT.ok,
    );
    expect((await readFile(nested)).length).toBeGreaterThan(0);
  });

  it('a verify_email job through a resolver that denies its canaries: the summary says how many records were not verified, exit 1', async () => {
    const lying = await startDnsServer({ zones: { '*': 'NXDOMAIN' } });
    try {
      const input = join(dir, 'lying.txt');
      await writeFile(input, 'a@gmail.com\nb@yahoo.com\nnope\n');
      const out = join(dir, 'lying.ndjson');
      const run = io();
      const argv = ['batch', 'run', '--type', 'verify_email', '--file', input, '--db', join(dir, 'lying.db')];
      expect(
        await main([...argv, '--out', out, '--dns', lying.address, '--dns-canary', 'canary.test'], run),
      ).toBe(EXIT.failure);
      expect(run.err()).toContain('batch: completed: 3 ok, 0 failed');
      expect(run.err()).toContain(
        `batch: 2 of 3 addresses were not verified (unknown, dns_unavailable): the DNS resolver ${lying.address} denies names that exist (NXDOMAIN for canary.test), so its negative answers cannot be believed. No domain was called non-existent.`,
      );
      const rows = (await readFile(out, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { result: { state: string; reasons: string[] } });
      expect(rows.map(({ result }) => [result.state, result.reasons[0]])).toEqual([
        ['unknown', 'dns_unavailable'],
        ['unknown', 'dns_unavailable'],
        ['undeliverable', 'invalid_syntax'],
      ]);
    } finally {
      await lying.close();
    }
  }, 120_000);

  it('reports an unknown job id as not found', async () => {
    const captured = io();
    expect(await main(['batch', 'status', 'batch_nope', '--db', join(dir, 'jobs.db')], captured)).toBe(
      EXIT.failure,
    );
    expect(captured.err()).toContain(`no batch job "batch_nope" in ${join(dir, 'jobs.db')}`);
  });
});
