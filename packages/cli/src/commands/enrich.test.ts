import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeDnsServer, startDnsServer } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

let dns: FakeDnsServer;
let dir: string;

beforeAll(async () => {
  // Real-looking names (queries need a registrable domain), answered only by the fake server.
  dns = await startDnsServer({
    zones: {
      'acme.com': {
        MX: [{ priority: 1, exchange: 'aspmx.l.google.com' }],
        TXT: ['v=spf1 include:_spf.google.com include:sendgrid.net -all', 'atlassian-domain-verification=x'],
      },
      'plain.com': { TXT: ['v=spf1 -all'] },
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'svc-enrich-'));
  await writeFile(
    join(dir, 'people.csv'),
    'Email,First Name,Last Name,Job Title,Company,Website\n' +
      'ada@acme.com,Ada,Lovelace,VP Engineering,Acme,acme.com\n' +
      'bob@acme.com,Bob,Smith,Account Executive,Acme,acme.com\n',
  );
});
afterAll(async () => {
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The command line with this test's files; each test gives its own cache so erasures do not leak. */
function files(cache: string) {
  return ['--dataset', join(dir, 'dataset.db'), '--cache', join(dir, cache), '--dns', dns.address];
}

async function run(argv: string[]) {
  const io = { ...captureIo(), cwd: dir };
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('svc enrich import', () => {
  it('imports people into a private dataset index and reports the counts', async () => {
    const result = await run([
      'enrich',
      'import',
      'people.csv',
      '--kind',
      'person',
      '--json',
      ...files('c0.db'),
    ]);
    expect(result.err).toBe('');
    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.out)).toMatchObject({
      kind: 'person',
      imported: 2,
      ignored_columns: [],
      people: 2,
      companies: 0,
    });
    expect((await stat(join(dir, 'dataset.db'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a bad row naming its line, and a missing --kind as bad usage', async () => {
    await writeFile(join(dir, 'bad.csv'), 'email,name\nok@acme.com,Ok\nnope,Bad\n');
    const bad = await run(['enrich', 'import', 'bad.csv', '--kind', 'person', ...files('c0.db')]);
    expect(bad.code).toBe(EXIT.failure);
    expect(bad.err).toContain('bad.csv line 3: email is not an address: "nope"');
    const usage = await run(['enrich', 'import', 'people.csv', ...files('c0.db')]);
    expect(usage.code).toBe(EXIT.usage);
    expect(usage.err).toContain('--kind person or --kind company');
  });
});

describe('svc enrich contact and company', () => {
  beforeAll(async () => {
    await run(['enrich', 'import', 'people.csv', '--kind', 'person', ...files('c0.db')]);
  });

  it('finds a contact in the dataset by email, with seniority and per-field sources', async () => {
    const result = await run([
      'enrich',
      'contact',
      '--email',
      'ADA@acme.com',
      '--json',
      '--adapters',
      'dataset',
      ...files('c1.db'),
    ]);
    expect(result.code).toBe(EXIT.ok);
    const row = JSON.parse(result.out);
    expect(row).toMatchObject({
      input: 'ADA@acme.com',
      suppressed: false,
      person: {
        full_name: 'Ada Lovelace',
        title: 'VP Engineering',
        seniority: 'vp',
        company: { domain: 'acme.com' },
      },
    });
    expect(row.person.sources.title.adapter).toBe('dataset');
    expect(row).toMatchObject({ outcome: 'match', adapters: { dataset: 'hit' } });
  });

  it('finds a contact by domain and name, and prints text by default', async () => {
    const result = await run([
      'enrich',
      'contact',
      '--domain',
      'https://www.acme.com',
      '--name',
      'bob  smith',
      '--adapters',
      'dataset',
      ...files('c1.db'),
    ]);
    expect(result.code).toBe(EXIT.ok);
    expect(result.out).toContain('title: Account Executive');
    expect(result.out).toContain('sources: dataset');
  });

  it('prints no match for an unknown contact (exit 0) and refuses an invalid one (exit 1)', async () => {
    const miss = await run([
      'enrich',
      'contact',
      '--email',
      'eve@acme.com',
      '--adapters',
      'dataset',
      ...files('c1.db'),
    ]);
    expect(miss.code).toBe(EXIT.ok);
    expect(miss.out).toContain('no match (no_match)');
    expect(miss.out).toContain('adapters: dataset=miss');
    const missJson = await run([
      'enrich',
      'contact',
      '--email',
      'eve@acme.com',
      '--json',
      '--adapters',
      'dataset',
      ...files('c1.db'),
    ]);
    // The dataset is never cached (an import shows at once): the second time it is asked again.
    expect(JSON.parse(missJson.out)).toMatchObject({
      person: null,
      outcome: 'no_match',
      adapters: { dataset: 'miss' },
    });
    const invalid = await run([
      'enrich',
      'contact',
      '--email',
      'not-an-address',
      '--json',
      '--adapters',
      'dataset',
      ...files('c1.db'),
    ]);
    expect(invalid.code).toBe(EXIT.failure);
    expect(JSON.parse(invalid.out)).toMatchObject({
      input: 'not-an-address',
      error: { code: 'invalid_request' },
    });
  });

  it('completes a contact’s company from the company lookup of its domain (DNS here), and says how it answered', async () => {
    const args = [
      'enrich',
      'contact',
      '--email',
      'ada@acme.com',
      '--adapters',
      'dataset,dns',
      ...files('c5.db'),
    ];
    const json = await run([...args, '--json']);
    expect(json.code).toBe(EXIT.ok);
    const row = JSON.parse(json.out);
    expect(row.person.company).toMatchObject({ name: 'Acme', domain: 'acme.com' });
    expect([...row.person.company.technologies].sort()).toEqual([
      'Atlassian',
      'Google Workspace',
      'SendGrid',
    ]);
    expect(row.person.sources.company_technologies.adapter).toBe('dns');
    expect(row.company_adapters).toMatchObject({ dns: 'hit' });
    const text = await run(args);
    expect(text.out).toContain('company.technologies: ');
    expect(text.out).toMatch(/company adapters: .*dns=cached_hit/);
  });

  it('reads a company’s technologies from DNS', async () => {
    const result = await run([
      'enrich',
      'company',
      'www.acme.com',
      '--json',
      '--adapters',
      'dns',
      ...files('c1.db'),
    ]);
    expect(result.code).toBe(EXIT.ok);
    const row = JSON.parse(result.out);
    expect(row.company.domain).toBe('acme.com');
    expect([...row.company.technologies].sort()).toEqual(['Atlassian', 'Google Workspace', 'SendGrid']);
  });

  it('takes a file of domains with a summary and writes a private CSV', async () => {
    await writeFile(join(dir, 'domains.txt'), 'acme.com\nplain.com\n');
    const result = await run([
      'enrich',
      'company',
      '--file',
      'domains.txt',
      '--out',
      'companies.csv',
      '--adapters',
      'dns',
      ...files('c1.db'),
    ]);
    expect(result.code).toBe(EXIT.ok);
    expect(result.err).toContain('enrich: 1 matched, 1 no match, 0 refused');
    const csv = await readFile(join(dir, 'companies.csv'), 'utf8');
    const [header, acme, plain] = csv.trim().split('\n');
    expect(header?.split(',').slice(0, 4)).toEqual(['input', 'error_code', 'error_message', 'suppressed']);
    expect(header).toContain('company.technologies');
    expect(acme).toContain('Google Workspace');
    expect(plain?.startsWith('plain.com,,,false')).toBe(true);
    expect((await stat(join(dir, 'companies.csv'))).mode & 0o777).toBe(0o600);
  });

  it('finds a contact by profile URL, and takes a file of emails to NDJSON', async () => {
    await writeFile(
      join(dir, 'more.jsonl'),
      `${JSON.stringify({ name: 'Carol Diaz', title: 'Head of Sales', linkedin: 'linkedin.com/in/CarolDiaz/', company: { domain: 'acme.com' } })}\n`,
    );
    expect((await run(['enrich', 'import', 'more.jsonl', '--kind', 'person', ...files('c3.db')])).code).toBe(
      EXIT.ok,
    );
    const byUrl = await run([
      'enrich',
      'contact',
      '--profile-url',
      'https://de.linkedin.com/in/caroldiaz?trk=1',
      '--json',
      '--adapters',
      'dataset',
      ...files('c3.db'),
    ]);
    expect(JSON.parse(byUrl.out)).toMatchObject({
      person: { full_name: 'Carol Diaz', profile_url: 'https://www.linkedin.com/in/caroldiaz' },
    });

    await writeFile(join(dir, 'emails.csv'), 'email\nada@acme.com\nnobody@acme.com\nbroken\n');
    const result = await run([
      'enrich',
      'contact',
      '--file',
      'emails.csv',
      '--out',
      'people.ndjson',
      '--adapters',
      'dataset',
      ...files('c3.db'),
    ]);
    expect(result.code).toBe(EXIT.failure); // one input refused
    expect(result.err).toContain('enrich: 1 matched, 1 no match, 1 refused');
    const rows = (await readFile(join(dir, 'people.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => row.input)).toEqual(['ada@acme.com', 'nobody@acme.com', 'broken']);
    expect(rows[0].person.title).toBe('VP Engineering');
    expect(rows[1].person).toBeNull();
    expect(rows[2].error.code).toBe('invalid_request');
  });

  it('erases a person: the dataset row removed, and later lookups are suppressed', async () => {
    await run(['enrich', 'import', 'people.csv', '--kind', 'person', ...files('c2.db')]);
    const before = await run([
      'enrich',
      'contact',
      '--email',
      'bob@acme.com',
      '--json',
      '--adapters',
      'dataset',
      ...files('c2.db'),
    ]);
    expect(JSON.parse(before.out).person.full_name).toBe('Bob Smith');
    const erased = await run(['enrich', 'erase', '--email', 'bob@acme.com', '--json', ...files('c2.db')]);
    expect(erased.code).toBe(EXIT.ok);
    // The dataset's answers are never cached: the row itself is what goes.
    expect(JSON.parse(erased.out)).toEqual({
      cache_entries_purged: 0,
      suppressed: true,
      dataset_rows_removed: 1,
      feedback_events_removed: 0,
    });
    const after = await run([
      'enrich',
      'contact',
      '--email',
      'bob@acme.com',
      '--json',
      '--adapters',
      'dataset',
      ...files('c2.db'),
    ]);
    expect(JSON.parse(after.out)).toMatchObject({ person: null, suppressed: true, outcome: 'suppressed' });
  });

  it('refuses mixed or missing query flags and unknown adapters as bad usage', async () => {
    for (const argv of [
      ['enrich', 'contact', '--email', 'a@acme.com', '--profile-url', 'https://www.linkedin.com/in/a'],
      ['enrich', 'contact', '--domain', 'acme.com'],
      ['enrich', 'contact'],
      ['enrich', 'company'],
      ['enrich', 'company', 'acme.com', '--adapters', 'clearbit'],
      ['enrich', 'company', 'acme.com', '--adapters', 'hunter'],
      ['enrich', 'frobnicate'],
    ]) {
      const result = await run([...argv, ...files('c1.db')]);
      expect(result.code, argv.join(' ')).toBe(EXIT.usage);
    }
  });

  it('refuses --database-url beside --cache, and a database URL that is not PostgreSQL', async () => {
    const both = await run([
      'enrich',
      'company',
      'acme.com',
      '--database-url',
      'postgres://127.0.0.1/x',
      ...files('c1.db'),
    ]);
    expect(both.code).toBe(EXIT.usage);
    expect(both.err).toContain('give --cache (a SQLite file) or --database-url (PostgreSQL), not both');
    const io = { ...captureIo(), cwd: dir, env: { SVC_DATABASE_URL: 'mysql://127.0.0.1/x' } };
    expect(await main(['enrich', 'company', 'acme.com', '--dns', dns.address], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('SVC_DATABASE_URL must be a URL such as postgres://');
  });
});
