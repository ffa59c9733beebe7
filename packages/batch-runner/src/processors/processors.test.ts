import { createGeoResolver, openMmdbBackend } from '@svc/geo-resolver';
import { describe, expect, it } from 'vitest';
import { createBatchRunner } from '../runner/runner.js';
import { createMemoryStore } from '../stores/memory.js';
import { createGeoIpProcessor } from './geo-ip.js';
import { createVerifyEmailProcessor } from './verify-email.js';

const fixtures = new URL('../../../../fixtures/maxmind-db/test-data/', import.meta.url).pathname;

describe('processors', () => {
  it('geo_ip: located results and per-record invalid_ip errors', async () => {
    const resolver = await createGeoResolver({
      backends: [await openMmdbBackend({ source: `${fixtures}GeoIP2-City-Test.mmdb` })],
    });
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createGeoIpProcessor(resolver)],
    });
    const job = await runner.submit({ type: 'geo_ip', records: ['81.2.69.142', '10.0.0.1', 'nonsense'] });
    runner.start();
    await expect.poll(async () => (await runner.get(job.id)).status).toBe('completed');
    expect(await runner.get(job.id)).toMatchObject({ processed: 3, failed: 2, counts: { located: 1 } });
    const { data } = await runner.results(job.id);
    expect(data[0]).toMatchObject({ ok: true, result: { city: 'London' } });
    expect(data[1]).toMatchObject({
      ok: false,
      error: { code: 'invalid_ip', message: '10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)' },
    });
    await runner.close();
  });

  it('verify_email: one verifyMany call per chunk, counted by state', async () => {
    const calls: string[][] = [];
    const verifier = {
      async verifyMany(emails: readonly string[]) {
        calls.push([...emails]);
        return emails.map((email) => ({
          email,
          state: email.startsWith('x') ? 'undeliverable' : 'deliverable',
        }));
      },
    };
    expect(createVerifyEmailProcessor(verifier).chunkSize).toBe(1000);
    // The processor's chunk size wins over the runner's default for its job type.
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createVerifyEmailProcessor(verifier, { chunkSize: 2 })],
      chunkSize: 250,
    });
    const job = await runner.submit({ type: 'verify_email', records: ['a@x.test', 'x@x.test', 'b@x.test'] });
    runner.start();
    await expect.poll(async () => (await runner.get(job.id)).status).toBe('completed');
    expect(calls).toEqual([['a@x.test', 'x@x.test'], ['b@x.test']]);
    expect((await runner.get(job.id)).counts).toEqual({ deliverable: 2, undeliverable: 1 });
    await runner.close();
    expect(() =>
      createBatchRunner({
        store: createMemoryStore(),
        processors: [createVerifyEmailProcessor(verifier, { chunkSize: 0 })],
      }),
    ).toThrow("verify_email processor's chunkSize must be a positive integer, got 0");
  });

  it('verify_email: sandbox jobs go to the sandbox verifier only; without one they fail, never reaching out', async () => {
    const used: Array<[string, string[]]> = [];
    const named = (name: string) => ({
      async verifyMany(emails: readonly string[]) {
        used.push([name, [...emails]]);
        return emails.map((email) => ({ email, state: name === 'sandbox' ? 'deliverable' : 'risky' }));
      },
    });
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createVerifyEmailProcessor(named('live'), { sandbox: named('sandbox') })],
    });
    const sandboxJob = await runner.submit({ type: 'verify_email', records: ['s@x.test'], sandbox: true });
    const liveJob = await runner.submit({ type: 'verify_email', records: ['l@x.test'] });
    runner.start();
    await expect.poll(async () => (await runner.get(liveJob.id)).status).toBe('completed');
    await expect.poll(async () => (await runner.get(sandboxJob.id)).status).toBe('completed');
    expect(new Map(used)).toEqual(
      new Map([
        ['sandbox', ['s@x.test']],
        ['live', ['l@x.test']],
      ]),
    );
    await runner.close();

    const strict = createBatchRunner({
      store: createMemoryStore(),
      processors: [createVerifyEmailProcessor(named('live'))],
      maxAttempts: 1,
      retryDelayMs: () => 0,
    });
    used.length = 0;
    const refused = await strict.submit({ type: 'verify_email', records: ['s@x.test'], sandbox: true });
    strict.start();
    await expect.poll(async () => (await strict.get(refused.id)).status).toBe('failed');
    expect((await strict.get(refused.id)).error?.message).toContain('no sandbox verifier');
    expect(used).toEqual([]);
    await strict.close();
  });

  it('geo_ip: an address the data has nothing for, or only a network owner for, is not located', async () => {
    const resolver = await createGeoResolver({
      backends: [
        await openMmdbBackend({ source: `${fixtures}GeoIP2-City-Test.mmdb` }),
        await openMmdbBackend({ source: `${fixtures}GeoLite2-ASN-Test.mmdb` }),
      ],
    });
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createGeoIpProcessor(resolver)],
    });
    // In the city data; in neither file; in the ASN file only.
    const job = await runner.submit({ type: 'geo_ip', records: ['2001:218::1', '8.8.8.8', '1.128.0.1'] });
    runner.start();
    await expect.poll(async () => (await runner.get(job.id)).status).toBe('completed');
    expect(await runner.get(job.id)).toMatchObject({
      processed: 3,
      failed: 0,
      counts: { located: 1, not_located: 2 },
    });
    const { data } = await runner.results(job.id);
    expect(data.map((record) => record.ok)).toEqual([true, true, true]);
    expect(data[0]).toMatchObject({ result: { country: 'JP', city: null } });
    expect(data[1]).toMatchObject({ result: { country: null, latitude: null, asn: null } });
    expect(data[2]).toMatchObject({ result: { country: null, latitude: null, asn: 1221 } });
    await runner.close();
  });

  it('verify_email: cancelling the job aborts the verifier call in flight', async () => {
    const seen: AbortSignal[] = [];
    const verifier = {
      verifyMany(_emails: readonly string[], _options?: unknown, events?: { signal?: AbortSignal }) {
        if (events?.signal) seen.push(events.signal);
        // Like the real verifier: works until its signal aborts, then rejects with the reason.
        return new Promise<Array<{ state: string }>>((_, reject) => {
          events?.signal?.addEventListener('abort', () => reject(events.signal?.reason), { once: true });
        });
      },
    };
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createVerifyEmailProcessor(verifier)],
    });
    const job = await runner.submit({ type: 'verify_email', records: ['a@x.test'] });
    runner.start();
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]?.aborted).toBe(false);
    await runner.cancel(job.id);
    expect(seen[0]?.aborted).toBe(true);
    expect((await runner.get(job.id)).status).toBe('cancelled');
    await runner.close();
  });
});
