import { promises as nodeDns } from 'node:dns';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatasetAdapters } from './adapters/dataset/dataset.js';
import { type DatasetIndex, openDatasetIndex } from './adapters/dataset/dataset-index.js';
import { createDnsAdapter } from './adapters/dns/dns.js';
import { createSqliteCache } from './cache/sqlite.js';
import { createEnricher } from './enricher.js';
import { createSqliteSuppression } from './privacy/suppression.js';

// The orchestrator with the real built-in adapters: the user's dataset (SQLite) and DNS (the
// testkit's DNS server on loopback), cache and suppression list in one SQLite file.
let server: FakeDnsServer;
let dir: string;
let index: DatasetIndex;

beforeAll(async () => {
  server = await startDnsServer({
    zones: {
      'acme.com': {
        MX: [{ priority: 1, exchange: 'aspmx.l.google.com' }],
        TXT: ['v=spf1 include:_spf.google.com include:sendgrid.net -all'],
      },
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'enricher-it-'));
  await writeFile(
    join(dir, 'people.csv'),
    'Email,First Name,Last Name,Job Title,Company,Website\nada@acme.com,Ada,Lovelace,VP Engineering,Acme,acme.com\n',
  );
  index = await openDatasetIndex({ path: ':memory:' });
  await index.importFile(join(dir, 'people.csv'), { kind: 'person' });
});
afterAll(async () => {
  index?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function open() {
  const resolver = new nodeDns.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server.address]);
  const path = join(dir, `enrich-${Math.random().toString(36).slice(2)}.db`);
  const cache = await createSqliteCache({ path });
  const suppression = await createSqliteSuppression({ path });
  const dataset = createDatasetAdapters(index);
  const enricher = createEnricher({
    adapters: [dataset.person, dataset.company, createDnsAdapter()],
    cache,
    suppression,
    dns: { resolveMx: (d) => resolver.resolveMx(d), resolveTxt: (d) => resolver.resolveTxt(d) },
  });
  return { enricher, close: async () => Promise.all([cache.close(), suppression.close()]) };
}

describe('createEnricher with the built-in adapters', () => {
  it('enriches a contact from the dataset and a company from DNS, with sources', async () => {
    const { enricher, close } = await open();
    const contact = await enricher.enrichContact({ email: 'ADA@acme.com' });
    expect(contact.match).toMatchObject({
      full_name: 'Ada Lovelace',
      title: 'VP Engineering',
      seniority: 'vp',
      company: { name: 'Acme', domain: 'acme.com' },
    });
    expect(contact.match?.sources.title?.adapter).toBe('dataset');
    const byName = await enricher.enrichContact({ domain: 'www.acme.com', full_name: 'ada lovelace' });
    expect(byName.match?.email).toBe('ada@acme.com');

    const company = await enricher.enrichCompany({ domain: 'https://acme.com/about' });
    expect(company.match?.domain).toBe('acme.com');
    expect(company.match?.technologies).toEqual(expect.arrayContaining(['Google Workspace', 'SendGrid']));
    expect(company.match?.sources.technologies?.adapter).toBe('dns');
    const queries = server.queries.length;
    await enricher.enrichCompany({ domain: 'acme.com' });
    expect(server.queries.length, 'the second company lookup is served from the cache').toBe(queries);
    await close();
  });

  it('erase suppresses the person in the SQLite store', async () => {
    const { enricher, close } = await open();
    await enricher.enrichContact({ email: 'ada@acme.com' });
    const erased = await enricher.erase({ email: 'ada@acme.com' });
    // The dataset's answers are never cached (TTL 0), so there was nothing about her to purge.
    expect(erased.cache_entries_purged).toBe(0);
    expect(await enricher.enrichContact({ email: 'ada@acme.com' })).toMatchObject({
      match: null,
      suppressed: true,
    });
    expect(await enricher.enrichContact({ domain: 'acme.com', full_name: 'Ada Lovelace' })).toMatchObject({
      match: null,
      suppressed: true,
    });
    await close();
  });
});
