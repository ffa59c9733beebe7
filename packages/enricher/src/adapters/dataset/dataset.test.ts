import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '@svc/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterContext } from '../../adapter.js';
import { describeAdapter } from '../../testing/describe-adapter.js';
import { createDatasetAdapters } from './dataset.js';
import { type DatasetIndex, openDatasetIndex } from './dataset-index.js';

let dir: string;
let index: DatasetIndex;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'enricher-dataset-'));
  index = await openDatasetIndex({ path: join(dir, 'dataset.db') });
});

afterEach(() => {
  index.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const context: AdapterContext = {
  signal: new AbortController().signal,
  now: () => Date.now(),
  fetch: () => Promise.reject(new Error('the dataset adapter must not fetch')),
  dns: {
    resolveMx: () => Promise.reject(new Error('no DNS')),
    resolveTxt: () => Promise.reject(new Error('no DNS')),
  },
};

const PEOPLE_CSV = [
  '\uFEFFEmail,First Name,Last Name,Job Title,LinkedIn URL,Company,Website,Notes',
  'Ada.Lovelace@Acme.Com,Ada,Lovelace,VP Engineering,http://linkedin.com/in/Ada-L/?trk=x,Acme,https://www.acme.com/about,"likes ""maths"", and\nline breaks"',
  ',Grace,Hopper,CTO,,Globex,globex.com,',
  'bob@globex.com,Bob,  Smith,Account Executive,https://de.linkedin.com/in/bobsmith,Globex,,',
  '',
].join('\n');

async function expectImportError(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(ServiceError.is(error), String(error)).toBe(true);
  expect((error as ServiceError).code).toBe('invalid_request');
  expect((error as ServiceError).message).toMatch(message);
}

describe('dataset import', () => {
  it('imports people from a CRM-style CSV (aliases, quoted line breaks, BOM) and finds them by each query form', async () => {
    const summary = await index.importFile(file('people.csv', PEOPLE_CSV), { kind: 'person' });
    expect(summary).toEqual({ kind: 'person', imported: 3, ignored_columns: ['Notes'] });

    expect(index.findPeople({ by: 'email', email: 'ada.lovelace@acme.com', domain: 'acme.com' })).toEqual([
      {
        email: 'ada.lovelace@acme.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        full_name: 'Ada Lovelace',
        title: 'VP Engineering',
        profile_url: 'https://www.linkedin.com/in/ada-l',
        company_name: 'Acme',
        company_domain: 'acme.com',
      },
    ]);
    expect(
      index.findPeople({ by: 'profile_url', profile_url: 'https://www.linkedin.com/in/bobsmith' }),
    ).toHaveLength(1);
    // Known only by name and company: found by domain + name, whatever the case and spacing.
    const grace = index.findPeople({
      by: 'domain_name',
      domain: 'globex.com',
      full_name: 'grace  HOPPER',
    });
    expect(grace.map((person) => person.title)).toEqual(['CTO']);
    // Bob's domain comes from his address; his name's double space is collapsed.
    expect(
      index.findPeople({ by: 'domain_name', domain: 'globex.com', full_name: 'Bob Smith' }),
    ).toHaveLength(1);
    expect(index.findPeople({ by: 'domain_name', domain: 'acme.com', full_name: 'Grace Hopper' })).toEqual(
      [],
    );
  });

  it('re-importing the same file replaces rows rather than doubling them', async () => {
    const path = file('people.csv', PEOPLE_CSV);
    await index.importFile(path, { kind: 'person' });
    await index.importFile(path, { kind: 'person' });
    expect(index.counts()).toEqual({ people: 3, companies: 0 });
  });

  it('imports companies from JSONL, nested objects and arrays included', async () => {
    const path = file(
      'companies.jsonl',
      [
        JSON.stringify({
          name: 'Acme',
          domain: 'https://shop.acme.com/',
          employee_count: 120,
          founded: 1999,
          technologies: ['HubSpot', 'Stripe', 'HubSpot'],
          social: { linkedin: 'https://www.linkedin.com/company/acme/' },
        }),
        '',
        JSON.stringify({ company_name: 'Globex', website: 'globex.com', industry: 'Energy' }),
      ].join('\n'),
    );
    expect(await index.importFile(path, { kind: 'company' })).toEqual({
      kind: 'company',
      imported: 2,
      ignored_columns: [],
    });
    expect(index.findCompany('acme.com')).toEqual({
      name: 'Acme',
      domain: 'acme.com',
      employee_count: 120,
      founded: 1999,
      technologies: ['HubSpot', 'Stripe'],
      social: { linkedin: 'https://www.linkedin.com/company/acme' },
    });
    expect(index.findCompany('www.globex.com')?.industry).toBe('Energy');
    expect(index.findCompany('initech.com')).toBeNull();
  });

  it('names the file and line of a bad row, and keeps nothing of that file', async () => {
    const bad = file(
      'bad.csv',
      'email,name\nok@acme.com,Ok\nok2@acme.com,"multi\nline"\nnot-an-address,Bad\n',
    );
    await expectImportError(
      index.importFile(bad, { kind: 'person' }),
      /^bad\.csv line 5: email is not an address: "not-an-address"$/,
    );
    expect(index.counts().people).toBe(0);
  });

  it('rejects each kind of bad file with a clear message', async () => {
    await expectImportError(
      index.importFile(file('short.csv', 'email,name\na@b.com,A\nc@d.com\n'), { kind: 'person' }),
      /^short\.csv line 3: Invalid Record Length/,
    );
    await expectImportError(
      index.importFile(file('x.jsonl', '{"email":"a@b.com"}\n{"email": nope}\n'), { kind: 'person' }),
      /^x\.jsonl line 2: not JSON/,
    );
    await expectImportError(
      index.importFile(file('y.jsonl', '[1,2]\n'), { kind: 'person' }),
      /^y\.jsonl line 1: each line must be one JSON object$/,
    );
    await expectImportError(
      index.importFile(file('nokey.csv', 'name,title\nAda,CTO\n'), { kind: 'person' }),
      /^nokey\.csv line 2: a person needs an email, a profile_url, or a full_name with a company_domain$/,
    );
    await expectImportError(
      index.importFile(file('co.csv', 'name,domain,founded\nAcme,acme.com,3020\n'), { kind: 'company' }),
      /^co\.csv line 2: founded must be a whole number from 1000 to \d{4}, got "3020"$/,
    );
    await expectImportError(
      index.importFile(file('clash.csv', 'domain,website\na.com,b.com\n'), { kind: 'company' }),
      /^clash\.csv: columns "domain" and "website" both give domain; keep one$/,
    );
    await expectImportError(
      index.importFile(file('empty.csv', 'email\n'), { kind: 'person' }),
      /^empty\.csv: no people in the file$/,
    );
    await expectImportError(
      index.importFile(file('people.txt', 'x'), { kind: 'person' }),
      /name it \.csv, \.jsonl or \.ndjson/,
    );
    await expectImportError(
      index.importFile(join(dir, 'missing.csv'), { kind: 'person' }),
      /^missing\.csv: no such file$/,
    );
    expect(index.counts()).toEqual({ people: 0, companies: 0 });
  });

  it('keeps the index file readable by its owner only', () => {
    expect(statSync(join(dir, 'dataset.db')).mode & 0o777).toBe(0o600);
  });

  it('erases a person by email or profile URL and a company by domain', async () => {
    await index.importFile(file('people.csv', PEOPLE_CSV), { kind: 'person' });
    await index.importFile(file('c.csv', 'domain,name\nacme.com,Acme\n'), { kind: 'company' });
    expect(index.erase('ADA.LOVELACE@acme.com')).toBe(1);
    expect(index.erase('https://linkedin.com/in/BobSmith/')).toBe(1);
    expect(index.erase('https://acme.com')).toBe(0); // a URL names a profile, not a company
    expect(index.erase('acme.com')).toBe(1);
    expect(index.counts()).toEqual({ people: 1, companies: 0 });
  });
});

describe('erasePerson', () => {
  it('removes the people each query form finds, and nobody else', async () => {
    await index.importFile(file('people.csv', PEOPLE_CSV), { kind: 'person' });
    expect(index.erasePerson({ by: 'domain_name', domain: 'globex.com', full_name: 'GRACE hopper' })).toBe(1);
    expect(
      index.erasePerson({ by: 'profile_url', profile_url: 'https://www.linkedin.com/in/bobsmith' }),
    ).toBe(1);
    expect(index.erasePerson({ by: 'email', email: 'nobody@acme.com', domain: 'acme.com' })).toBe(0);
    expect(index.erasePerson({ by: 'email', email: 'ada.lovelace@acme.com', domain: 'acme.com' })).toBe(1);
    expect(index.counts().people).toBe(0);
  });
});

describe('dataset adapters', () => {
  it('answer hits with the stored fields and confidence, and misses for unknown keys', async () => {
    await index.importFile(file('people.csv', PEOPLE_CSV), { kind: 'person' });
    await index.importFile(file('c.csv', 'domain,name,employees\nacme.com,Acme,"1,200"\n'), {
      kind: 'company',
    });
    const { person, company } = createDatasetAdapters(index);

    const hit = await person.lookup({ by: 'email', email: 'bob@globex.com', domain: 'globex.com' }, context);
    expect(hit).toMatchObject({
      type: 'hit',
      cost: 0,
      candidates: [{ confidence: 0.95, fields: { title: 'Account Executive' } }],
    });
    const byName = await person.lookup(
      { by: 'domain_name', domain: 'globex.com', full_name: 'Grace Hopper' },
      context,
    );
    expect(byName).toMatchObject({ type: 'hit', candidates: [{ confidence: 0.85 }] });
    expect(
      await person.lookup({ by: 'email', email: 'eve@globex.com', domain: 'globex.com' }, context),
    ).toEqual({
      type: 'miss',
      cost: 0,
    });

    expect(await company.lookup({ by: 'domain', domain: 'acme.com' }, context)).toMatchObject({
      type: 'hit',
      candidates: [{ fields: { name: 'Acme', employee_count: 1200 } }],
    });
    expect(await company.lookup({ by: 'domain', domain: 'nope.com' }, context)).toEqual({
      type: 'miss',
      cost: 0,
    });
  });

  it('report a closed index as an upstream error instead of throwing', async () => {
    const { company } = createDatasetAdapters(index);
    index.close();
    expect(await company.lookup({ by: 'domain', domain: 'acme.com' }, context)).toMatchObject({
      type: 'error',
      error: { kind: 'upstream' },
    });
  });
});

describe('dataset conformance', () => {
  let shared: DatasetIndex;
  let sharedDir: string;
  beforeAll(async () => {
    sharedDir = mkdtempSync(join(tmpdir(), 'enricher-dataset-conformance-'));
    shared = await openDatasetIndex({ path: join(sharedDir, 'dataset.db') });
    const people = join(sharedDir, 'people.csv');
    writeFileSync(people, PEOPLE_CSV);
    await shared.importFile(people, { kind: 'person' });
    const companies = join(sharedDir, 'companies.jsonl');
    writeFileSync(
      companies,
      `${JSON.stringify({ domain: 'acme.com', name: 'Acme', technologies: ['Stripe'] })}\n`,
    );
    await shared.importFile(companies, { kind: 'company' });
  });
  afterAll(() => {
    shared?.close();
    rmSync(sharedDir, { recursive: true, force: true });
  });

  describeAdapter('dataset (person)', {
    create: () => createDatasetAdapters(shared).person,
    hits: [
      { by: 'email', email: 'bob@globex.com', domain: 'globex.com' },
      { by: 'domain_name', domain: 'globex.com', full_name: 'Grace Hopper' },
      { by: 'profile_url', profile_url: 'https://www.linkedin.com/in/ada-l' },
    ],
    misses: [
      { by: 'email', email: 'eve@globex.com', domain: 'globex.com' },
      { by: 'domain_name', domain: 'acme.com', full_name: 'Grace Hopper' },
      { by: 'profile_url', profile_url: 'https://www.linkedin.com/in/nobody' },
    ],
  });
  describeAdapter('dataset (company)', {
    create: () => createDatasetAdapters(shared).company,
    hits: [{ by: 'domain', domain: 'acme.com' }],
    misses: [{ by: 'domain', domain: 'globex.com' }],
  });
});
