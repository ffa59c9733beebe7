import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_TYPE_IDS } from '@svc/core';
import { startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-batch-types-'));
  await writeFile(
    join(dir, 'people.csv'),
    'Email,First Name,Last Name,Job Title,Company,Website\nada@acme.com,Ada,Lovelace,VP Engineering,Acme,acme.com\n',
  );
  await writeFile(join(dir, 'emails.txt'), 'ada@acme.com\nnobody@acme.com\n');
  await writeFile(join(dir, 'domains.txt'), 'acme.com\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const io = { ...captureIo(), cwd: dir };
  io.env.SVC_DATA_DIR = join(dir, 'data');
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** The enricher's files of this test: its own dataset and cache, and only the dataset adapter (no network). */
const enrichFiles = ['--adapters', 'dataset', '--dataset', join('dataset.db'), '--cache', 'cache.db'];

describe('svc batch run takes every job type of the registry', () => {
  it('runs enrich_contact and enrich_company jobs with svc enrich setup flags', async () => {
    const imported = await run([
      'enrich',
      'import',
      'people.csv',
      '--kind',
      'person',
      ...enrichFiles.slice(2),
    ]);
    expect(imported.code).toBe(EXIT.ok);

    const contacts = await run([
      'batch',
      'run',
      '--type',
      'enrich_contact',
      '--file',
      'emails.txt',
      '--db',
      'jobs.db',
      '--out',
      'contacts.ndjson',
      ...enrichFiles,
    ]);
    expect(contacts.err).toContain('batch: completed: 2 ok, 0 failed {"matched":1,"no_match":1}');
    expect(contacts.code).toBe(EXIT.ok);
    const lines = (await readFile(join(dir, 'contacts.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0].result.person).toMatchObject({ email: 'ada@acme.com', title: 'VP Engineering' });
    expect(lines[1].result).toEqual({ person: null, outcome: 'no_match' });

    const companies = await run([
      'batch',
      'run',
      '--type',
      'enrich_company',
      '--file',
      'domains.txt',
      '--db',
      'jobs.db',
      ...enrichFiles,
    ]);
    expect(companies.err).toContain('batch: completed: 1 ok, 0 failed');
    expect(companies.code).toBe(EXIT.ok);
  });

  it('counts enrich records no source could be reached for apart (all_adapters_failed), and says so', async () => {
    // The only adapter is DNS, and the DNS server fails every lookup: nothing was looked at.
    const dns = await startDnsServer({ zones: { 'broken.com': 'SERVFAIL' } });
    try {
      await writeFile(join(dir, 'broken.txt'), 'broken.com\n');
      const companies = await run([
        'batch',
        'run',
        '--type',
        'enrich_company',
        '--file',
        'broken.txt',
        '--db',
        'unreached.db',
        '--adapters',
        'dns',
        '--dns',
        dns.address,
        '--cache',
        'unreached-cache.db',
      ]);
      expect(companies.err).toContain('batch: completed: 1 ok, 0 failed {"all_adapters_failed":1}');
      expect(companies.err).toContain(
        'batch: 1 of 1 records were not looked up: no enrichment source could be reached (all_adapters_failed); run them again later',
      );
    } finally {
      await dns.close();
    }
  });

  it('names every job type when --type is wrong, and keeps each family of flags to its types', async () => {
    const wrong = await run(['batch', 'run', '--type', 'nope', '--file', 'emails.txt']);
    expect(wrong.code).toBe(EXIT.usage);
    expect(wrong.err).toContain(`--type must be one of ${JOB_TYPE_IDS.join(', ')}`);
    const probe = await run(['batch', 'run', '--type', 'enrich_contact', '--file', 'emails.txt', '--probe']);
    expect(probe.code).toBe(EXIT.usage);
    expect(probe.err).toContain('--probe applies to --type verify_email only');
    const adapters = await run([
      'batch',
      'run',
      '--type',
      'geo_ip',
      '--file',
      'emails.txt',
      '--adapters',
      'dns',
    ]);
    expect(adapters.code).toBe(EXIT.usage);
    expect(adapters.err).toContain('--adapters applies to --type enrich_contact or enrich_company only');
  });

  it('lists every job type in its help', async () => {
    const help = await run(['batch', '--help']);
    for (const type of JOB_TYPE_IDS) expect(help.out + help.err).toContain(type);
  });
});
