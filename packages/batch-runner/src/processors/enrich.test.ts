import type { CompanyProfile, Person } from '@svc/core';
import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { createBatchRunner } from '../runner/runner.js';
import { createMemoryStore } from '../stores/memory.js';
import {
  type BatchEnricher,
  createEnrichCompanyProcessor,
  createEnrichContactProcessor,
  hostOf,
} from './enrich.js';
import { createHostGate } from './host-gate.js';

const person = (name: string, domain: string): Person => ({
  full_name: name,
  title: 'Engineer',
  seniority: 'entry',
  company: { name: domain, domain, employee_count: null, founded: null, technologies: [] },
  confidence: 0.9,
});

/**
 * An enricher answering from a table a turn of the event loop later (so lookups overlap unless a
 * limit holds them back), recording the peak lookups in flight per host.
 */
function tableEnricher() {
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  let peakTotal = 0;
  let total = 0;
  const calls: string[] = [];
  const track = async <T>(host: string, answer: () => T): Promise<T> => {
    inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
    total++;
    peak.set(host, Math.max(peak.get(host) ?? 0, inFlight.get(host) ?? 0));
    peakTotal = Math.max(peakTotal, total);
    await new Promise(setImmediate);
    inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
    total--;
    return answer();
  };
  const enricher: BatchEnricher = {
    async enrichContact({ email }) {
      calls.push(email);
      if (!email.includes('@'))
        throw new ServiceError('invalid_request', `email: ${JSON.stringify(email)} is not an address`);
      const domain = email.split('@')[1] as string;
      return track(domain, () =>
        email.startsWith('nobody')
          ? { match: null, miss: 'no_match' }
          : // Every source down for this one: nothing looked at.
            email.startsWith('unreached')
            ? { match: null, miss: 'all_adapters_failed' }
            : { match: person(email.split('@')[0] as string, domain) },
      );
    },
    async enrichCompany({ domain }): Promise<{ match: CompanyProfile | null; miss?: string }> {
      calls.push(domain);
      if (domain === 'down.test') return { match: null, miss: 'all_adapters_failed' };
      return track(domain, () => ({
        match:
          domain === 'unknown.test'
            ? null
            : {
                name: 'Acme',
                domain,
                description: null,
                employee_count: 40,
                founded: 2010,
                industry: null,
                location: null,
                technologies: ['HubSpot'],
                social: {},
                language: 'en',
                confidence: 0.8,
              },
      }));
    },
  };
  return { enricher, peak, calls, peakTotal: () => peakTotal };
}

describe('enrich processors', () => {
  it('enrich_contact: { person } counted matched, { person: null } counted no_match, a refused record is its error', async () => {
    const { enricher } = tableEnricher();
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createEnrichContactProcessor(enricher)],
    });
    const job = await runner.submit({
      type: 'enrich_contact',
      records: ['dana@acme.test', 'nobody@acme.test', 'not-an-address'],
    });
    runner.start();
    await expect.poll(async () => (await runner.get(job.id)).status).toBe('completed');
    expect(await runner.get(job.id)).toMatchObject({
      processed: 3,
      failed: 1,
      counts: { matched: 1, no_match: 1 },
    });
    const { data } = await runner.results(job.id);
    expect(data[0]).toMatchObject({
      ok: true,
      result: { person: { full_name: 'dana', company: { domain: 'acme.test' } } },
    });
    expect(data[1]).toMatchObject({ ok: true, result: { person: null, outcome: 'no_match' } });
    expect(data[2]).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: 'email: "not-an-address" is not an address' },
    });
    await runner.close();
  });

  it('a record no source could be reached for is counted all_adapters_failed, not no_match, its result saying so', async () => {
    const { enricher } = tableEnricher();
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createEnrichContactProcessor(enricher), createEnrichCompanyProcessor(enricher)],
    });
    const contacts = await runner.submit({
      type: 'enrich_contact',
      records: ['dana@acme.test', 'nobody@acme.test', 'unreached@acme.test'],
    });
    const companies = await runner.submit({ type: 'enrich_company', records: ['unknown.test', 'down.test'] });
    runner.start();
    for (const id of [contacts.id, companies.id])
      await expect.poll(async () => (await runner.get(id)).status).toBe('completed');
    expect((await runner.get(contacts.id)).counts).toEqual({
      matched: 1,
      no_match: 1,
      all_adapters_failed: 1,
    });
    expect((await runner.get(companies.id)).counts).toEqual({ no_match: 1, all_adapters_failed: 1 });
    expect((await runner.results(contacts.id)).data[2]).toMatchObject({
      ok: true,
      result: { person: null, outcome: 'all_adapters_failed' },
    });
    // An enricher that gives no reason (an older one) still has its misses counted no_match.
    expect((await runner.results(companies.id)).data[0]).toMatchObject({ result: { company: null } });
    await runner.close();
  });

  it('per-host politeness holds across the chunks of a job: one lookup per company domain at a time, others in parallel', async () => {
    const { enricher, peak, peakTotal } = tableEnricher();
    const runner = createBatchRunner({
      store: createMemoryStore(),
      // Chunks of 2 run concurrently: the limit must hold across them, not just within one.
      processors: [createEnrichContactProcessor(enricher, { chunkSize: 2, concurrency: 8 })],
      concurrency: 4,
    });
    const records = [
      ...Array.from({ length: 6 }, (_, i) => `p${i}@big.test`),
      ...Array.from({ length: 6 }, (_, i) => `q@site${i}.test`),
    ];
    const job = await runner.submit({ type: 'enrich_contact', records });
    runner.start();
    await expect.poll(async () => (await runner.get(job.id)).status, { timeout: 5000 }).toBe('completed');
    expect(peak.get('big.test')).toBe(1);
    expect(peakTotal()).toBeGreaterThan(1); // different hosts did overlap
    expect((await runner.get(job.id)).counts).toEqual({ matched: 12 });
    await runner.close();
  });

  it('enrich_company: { company } results; sandbox jobs go to the sandbox enricher, and fail without one', async () => {
    const live = tableEnricher();
    const sandbox = tableEnricher();
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [
        createEnrichCompanyProcessor(live.enricher, { sandbox: sandbox.enricher }),
        createEnrichContactProcessor(live.enricher),
      ],
      maxAttempts: 1,
      retryDelayMs: () => 0,
    });
    const companies = await runner.submit({ type: 'enrich_company', records: ['acme.test', 'unknown.test'] });
    const sandboxed = await runner.submit({
      type: 'enrich_company',
      records: ['sandbox.test'],
      sandbox: true,
    });
    const refused = await runner.submit({ type: 'enrich_contact', records: ['s@x.test'], sandbox: true });
    runner.start();
    await expect.poll(async () => (await runner.get(companies.id)).status).toBe('completed');
    await expect.poll(async () => (await runner.get(sandboxed.id)).status).toBe('completed');
    await expect.poll(async () => (await runner.get(refused.id)).status).toBe('failed');
    expect((await runner.get(refused.id)).error?.message).toContain('no sandbox enricher');
    const { data } = await runner.results(companies.id);
    expect(data[0]).toMatchObject({
      ok: true,
      result: { company: { domain: 'acme.test', technologies: ['HubSpot'] } },
    });
    expect(data[1]).toMatchObject({ ok: true, result: { company: null } });
    expect(sandbox.calls).toEqual(['sandbox.test']);
    expect(live.calls).not.toContain('sandbox.test');
    expect(live.calls).not.toContain('s@x.test');
    await runner.close();
  });

  it('hostOf: the email domain, or a URL/host without scheme, path, port and www', () => {
    expect(hostOf(' Dana@Acme.TEST ')).toBe('acme.test');
    expect(hostOf('https://www.acme.test/about?x=1')).toBe('acme.test');
    expect(hostOf('acme.test:8080')).toBe('acme.test');
  });

  it('host gate: a waiter whose signal aborts leaves the queue; bad limits are refused', async () => {
    const gate = createHostGate(1);
    let release: () => void = () => {};
    const first = gate.run('h', new AbortController().signal, () => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const second = gate.run('h', controller.signal, async () => 'ran');
    controller.abort(new Error('gave up'));
    await expect(second).rejects.toThrow('gave up');
    expect(gate.active('h')).toBe(1);
    release();
    await first;
    expect(gate.active('h')).toBe(0);
    expect(() => createHostGate(0)).toThrow('perHostConcurrency must be a positive integer, got 0');
  });
});
